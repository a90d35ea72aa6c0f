"""Corrections and removals of history entries, refused from other origins by a real server:
nothing changes, and the same request from the app's own page goes through."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest


def _ended(server, sec) -> str:
    cid = sec.to_active(server)
    server.post("/finish")
    assert server.post("/end", {"outcome": "missed", "note": "first"})[0] == 200
    return cid


REFUSED = [
    {"Origin": "http://evil.com"},
    {"Origin": "null"},
    {"Sec-Fetch-Site": "cross-site"},
    {"Origin": "http://127.0.0.1:1", "Sec-Fetch-Site": "same-site"},
]


@pytest.mark.parametrize("headers", REFUSED)
def test_a_foreign_page_cannot_correct_or_remove_an_entry(server, sec, headers):
    cid = _ended(server, sec)
    before = server.get("/history")
    form = urlencode({"outcome": "met", "note": "forged"}).encode()
    for path in (f"/history/{cid}", f"/history/{cid}/delete"):
        status, _, body = sec.http(
            server.port,
            "POST",
            path,
            body=form,
            headers={"Content-Type": "application/x-www-form-urlencoded", **headers},
        )
        assert status == 403, (path, headers, body)
        assert json.loads(body)["error"].startswith("Requests from other")
    assert server.get("/history") == before


def test_the_apps_own_page_corrects_and_removes(server, sec):
    cid = _ended(server, sec)
    own = {
        "Origin": server.base,
        "Sec-Fetch-Site": "same-origin",
        "Content-Type": "application/x-www-form-urlencoded",
        "Accept": "text/html",
    }
    form = urlencode({"outcome": "met", "note": "fixed", "back": "/insights"}).encode()
    status, headers, _ = sec.http(server.port, "POST", f"/history/{cid}", body=form, headers=own)
    # Back to the page it came from, which then says what was done.
    assert status == 303 and headers["location"].endswith("/insights?done=corrected")
    row = next(r for r in server.get("/history") if r["id"] == cid)
    assert (row["outcome"], row["note"]) == ("met", "fixed")
    status, _, page = sec.http(server.port, "GET", "/insights?done=corrected", headers=own)
    assert status == 200 and b"Correction saved." in page
    status, headers, _ = sec.http(
        server.port, "POST", f"/history/{cid}/delete", body=b"", headers=own
    )
    assert status == 303 and headers["location"].endswith("/insights?done=removed")
    assert cid not in [r["id"] for r in server.get("/history")]
