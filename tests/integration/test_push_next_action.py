"""WS /ws when the running commitment's next action changes (a real websocket client on an
in-process server over fakes): every page gets the whole view again, its socket URL saying
the new words, while a page that connects with the current words gets only its widgets."""

from __future__ import annotations

import pytest

from tests.support.html import parse
from tests.support.live import ids, roots, ws_params


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


def _has_view(message: str) -> bool:
    return "view" in ids(message)


def test_a_changed_next_action_sends_every_page_the_whole_view(srv):
    srv.to("active")
    shows = _served(srv)
    assert shows["n"]  # the words' digest
    page = srv.open(**shows)
    assert "view" not in ids(page.recv())  # as served: only its widgets
    assert srv.post("/commitment/next_action", {"next_action": "Fix the chart"})[0] == 200
    message = page.recv_until(_has_view)[-1]
    view = roots(message)["view"]
    assert view.by_id("active-title").text().strip() == "Fix the chart"
    assert "autofocus" in view.by_id("active-title").attrs
    again = ws_params(view.by_id("ws"))
    assert again["n"] and again["n"] != shows["n"]
    fresh = srv.open(**again)  # a reconnect with the new words: no whole view
    assert "view" not in ids(fresh.recv())


def test_a_page_served_before_the_change_gets_the_whole_view_on_connect(srv):
    srv.to("active")
    shows = _served(srv)
    srv.post("/commitment/next_action", {"next_action": "Fix the chart"})
    page = srv.open(**shows)
    assert _has_view(page.recv())
