"""WS /ws when the running commitment's next action changes (a real websocket client on an
in-process server over fakes): every page gets the new words in place — its heading, and its
editor only while that is closed (0.6: a push never closes a dialog being typed in) — never
the whole view; a page served before the change gets them when it connects, and a page that
connects with the current words gets only its widgets."""

from __future__ import annotations

import pytest

from tests.support.html import parse
from tests.support.live import ids, ws_params


@pytest.fixture
def srv(live):
    live.reset()
    yield live
    live.coach.release_all()


def _served(srv) -> dict[str, str]:
    """What the page as served says it shows (its socket URL's query)."""
    with srv.app.test_client() as client:
        doc = parse(client.get("/").get_data(as_text=True))
    return ws_params(doc.by_id("ws"))


def _renamed(message: str) -> bool:
    """The heading in place with the new words (the title says them in any push)."""
    return any(
        n.id == "active-title" and "Fix the chart" in n.text()
        for n in parse(message).find_all("h1")
    )


def test_a_changed_next_action_sends_every_page_the_new_words_in_place(srv):
    srv.to("active")
    shows = _served(srv)
    assert shows["n"]  # the words' digest
    page = srv.open(**shows)
    assert "view" not in ids(page.recv())  # as served: only its widgets
    assert srv.post("/commitment/next_action", {"next_action": "Fix the chart"})[0] == 200
    message = page.recv_until(_renamed)[-1]
    assert "view" not in ids(message)  # the page stays as it is: focus, an open dialog
    headings = [n for n in parse(message).find_all("h1") if n.id == "active-title"]
    assert headings and all(h.text().strip() == "Fix the chart" for h in headings)
    [editor] = [n for n in parse(message).find_all("div") if n.id == "edit-next"]
    assert ":not(:popover-open)" in editor.get("hx-swap-oob")  # never an open editor
    again = _served(srv)
    assert again["n"] and again["n"] != shows["n"]
    fresh = srv.open(**again)  # a reconnect with the new words: nothing of the words
    assert not _renamed(fresh.recv())


def test_a_page_served_before_the_change_gets_the_new_words_on_connect(srv):
    srv.to("active")
    shows = _served(srv)
    srv.post("/commitment/next_action", {"next_action": "Fix the chart"})
    page = srv.open(**shows)
    message = page.recv()
    assert _renamed(message) and "view" not in ids(message)
