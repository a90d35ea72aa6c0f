"""The stylesheets as served (antidrift/web/assets.py): each of static/*.css without comments
and blank runs, the same rules (tests/browser/test_browser_stylesheet.py compares them in
Chromium), alone or a page's sheets as one answer, answered as a static file is."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from antidrift.web.assets import minify_css

STATIC = Path(__file__).resolve().parents[2] / "static"
CSS = (STATIC / "style.css").read_text()


def test_comments_and_blank_runs_go_and_every_separating_space_stays():
    text = """/* a comment */
    .a  .b , .c > .d {  color : red ;  margin: 0  8px; }
    /* two
       lines */ body { font: 16px/1.55 "Segoe  UI", sans-serif; content: "a /* b */ c"; }
    @media (max-width: 520px) { .card { padding: calc(1rem + 2px); } }"""
    assert minify_css(text) == (
        ".a .b , .c > .d{color : red;margin: 0 8px;}"
        'body{font: 16px/1.55 "Segoe  UI", sans-serif;content: "a /* b */ c";}'
        "@media (max-width: 520px){.card{padding: calc(1rem + 2px);}}"
    )


def test_the_page_loads_the_stylesheet_minified_and_a_quarter_smaller(client):
    response = client.get("/static/style.css")
    assert response.status_code == 200 and response.mimetype == "text/css"
    body = response.get_data(as_text=True)
    assert body == minify_css(CSS) and "/*" not in body and "\n" not in body
    assert len(gzip.compress(body.encode())) < 0.75 * len(gzip.compress(CSS.encode()))
    assert response.headers["Cache-Control"] == "no-cache"


def test_a_pages_sheets_are_one_answer_each_sheet_minified_in_order(client):
    response = client.get("/sheets/style+loop+insights.css")
    assert response.status_code == 200 and response.mimetype == "text/css"
    files = [(STATIC / f"{name}.css").read_text() for name in ("style", "loop", "insights")]
    assert response.get_data(as_text=True) == "".join(minify_css(text) for text in files)
    assert client.get("/static/loop.css").get_data(as_text=True) == minify_css(files[1])


@pytest.mark.parametrize(
    "names", ["loop", "style+nope", "style+insights+loop", "style+loop+loop", "style+..%2Fx"]
)
def test_only_the_shared_sheet_then_known_area_sheets_in_order_are_answered(client, names):
    response = client.get(f"/sheets/{names}.css")
    assert response.status_code == 404 and b"nothing at this address" in response.get_data()


def test_an_unchanged_stylesheet_is_a_304(client):
    etag = client.get("/static/style.css").headers["ETag"]
    again = client.get("/static/style.css", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.get_data() == b""
    assert client.head("/static/style.css").status_code == 200
    etag = client.get("/sheets/style+day.css").headers["ETag"]
    assert client.get("/sheets/style+day.css", headers={"If-None-Match": etag}).status_code == 304


def test_the_other_static_files_are_served_as_written(client):
    svg = Path(__file__).resolve().parents[2] / "static" / "favicon.svg"
    assert client.get("/static/favicon.svg").get_data() == svg.read_bytes()
