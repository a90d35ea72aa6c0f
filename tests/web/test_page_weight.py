"""The page's weight (issue 33, the benchmark's P5): the planning page and everything it loads,
gzip-compressed, stays under the 30 KiB cap. Bytes, not time: the same on any machine."""

from __future__ import annotations

import gzip
from html.parser import HTMLParser
from urllib.parse import urlsplit

from tests.support.web import to

CAP = 30 * 1024


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


def test_the_planning_page_and_what_it_loads_stay_under_the_cap(client):
    to(client, "planning")
    page = client.get("/")
    refs = _Refs()
    refs.feed(page.get_data(as_text=True))
    bodies = {"/": page.get_data()}
    for ref in dict.fromkeys(refs.refs):
        path = urlsplit(ref).path
        response = client.get(ref)
        assert response.status_code == 200, ref
        bodies[path] = response.get_data()
    assert any(p.endswith(".css") for p in bodies) and any(p.endswith(".js") for p in bodies)
    sizes = {
        path: len(gzip.compress(body, compresslevel=6, mtime=0)) for path, body in bodies.items()
    }
    assert sum(sizes.values()) <= CAP, sizes
