"""The page's weight (issue 33, the benchmark's P5; SYSTEM.md 0.6): each page and everything it
loads (its HTML, every script, stylesheet and icon it references), gzip-compressed, stays
within 28 KiB: each state of "/" and every other page. Bytes, not time: the same on any
machine."""

from __future__ import annotations

import gzip
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest

from tests.support.web import to

CAP = 28 * 1024


class _Refs(HTMLParser):
    """What a browser fetches for the page: scripts, stylesheets, icons, images."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        rel = set((a.get("rel") or "").lower().split())
        if tag in ("script", "img") and a.get("src"):
            self.refs.append(a["src"])
        elif tag == "link" and a.get("href") and rel & {"stylesheet", "icon", "preload"}:
            self.refs.append(a["href"])


def _weigh(client, path: str) -> dict[str, int]:
    """path's page and each file it loads: gzip bytes (level 6) by path."""
    page = client.get(path, headers={"Accept": "text/html"})
    assert page.status_code == 200, path
    refs = _Refs()
    refs.feed(page.get_data(as_text=True))
    bodies = {path: page.get_data()}
    for ref in dict.fromkeys(refs.refs):
        response = client.get(ref)  # as a browser asks, every file the page names
        assert response.status_code == 200, ref
        bodies[urlsplit(ref).path] = response.get_data()
    return {p: len(gzip.compress(body, compresslevel=6, mtime=0)) for p, body in bodies.items()}


@pytest.mark.parametrize("state", ["locked", "planning", "active", "review"])
def test_each_state_of_the_page_and_what_it_loads_stay_within_the_cap(client, state):
    to(client, state)
    sizes = _weigh(client, "/")
    # the shared sheet and the loop's (one answer), htmx and its websocket extension: counted
    assert {"/sheets/style+loop.css", "/static/vendor/ws-2.0.4.min.js"} <= sizes.keys(), sizes

    assert sum(sizes.values()) <= CAP, sizes


@pytest.mark.parametrize(
    ("path", "sheets"),
    [
        ("/day", "style+day"),
        ("/week", "style+loop+insights"),
        ("/insights", "style+loop+insights"),
        ("/rules", "style+settings"),
        ("/settings", "style+settings"),
    ],
)
def test_every_other_page_and_what_it_loads_stay_within_the_cap(client, path, sheets):
    sizes = _weigh(client, path)
    assert [p for p in sizes if p.endswith(".css")] == [f"/sheets/{sheets}.css"], sizes
    # only the pages that open a socket load the websocket extension
    assert ("/static/vendor/ws-2.0.4.min.js" in sizes) == (path == "/day"), sizes

    assert sum(sizes.values()) <= CAP, sizes
