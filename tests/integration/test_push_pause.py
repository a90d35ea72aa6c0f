"""Pause, undo and the announcements over a real websocket (the app over fakes): what each
push carries, and that the Undo button's removal is pushed by the tick once 30 s have passed."""

from __future__ import annotations

import time

import pytest
import websocket

from tests.support.html import top_level
from tests.support.plans import PLAN


class RawPage:
    """A socket whose every message is kept, page-level widgets included."""

    def __init__(self, url: str) -> None:
        self.ws = websocket.create_connection(url, timeout=5)

    def roots(self, seconds: float = 0.4) -> dict[str, list]:
        """Every top-level element received within `seconds`, by id."""
        got: dict[str, list] = {}
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            self.ws.settimeout(left)
            try:
                message = self.ws.recv()
            except websocket.WebSocketTimeoutException:
                break
            for node in top_level(message):
                got.setdefault(node.id, []).append(node)
        return got

    def close(self) -> None:
        self.ws.close()


@pytest.fixture
def srv(live):
    live.reset()
    opened: list[RawPage] = []

    def open_page() -> RawPage:
        state = live.state()
        c = (state.get("commitment") or {}).get("id", "")
        page = RawPage(f"{live.ws_base}?view={state['runtime_state']}&c={c}&p=")
        opened.append(page)
        page.roots()  # what a fresh page is sent first
        return page

    live.open_page = open_page
    yield live
    for page in opened:
        page.close()


def text(node) -> str:
    return " ".join(node.text().split())


def test_pause_pushes_the_controls_with_resume_focused_and_the_paused_title(srv):
    srv.to("active")
    page = srv.open_page()
    assert srv.post("/pause")[0] == 200
    got = page.roots()
    assert "view" not in got  # the same view: only what changed
    [controls] = got["controls"]
    [resume] = [b for b in controls.find_all("button") if b.text().strip() == "Resume"]
    assert "autofocus" in resume.attrs
    assert text(got["page-title"][0]).startswith("Paused · 20:00 ·")
    assert got["drift-guard"] and "data-paused" in got["time-left"][0].attrs
    # While paused the clock stands still: a tick pushes no new time.
    srv.clock.advance(1)
    srv.hub.refresh()
    assert "time-left" not in page.roots(0.3)
    srv.post("/resume")
    [controls] = page.roots()["controls"]
    assert [b.text().strip() for b in controls.find_all("button")][:2] == ["Finish", "Pause"]


def test_the_undo_button_goes_by_push_when_30_seconds_have_passed(srv):
    srv.to("active")
    page = srv.open_page()
    srv.post("/finish")
    [view] = page.roots()["view"]
    [button] = view.by_id("undo").find_all("button")
    assert button.text().split() == ["Undo", "Finish", "30", "s"]  # its seconds count down
    srv.clock.advance(30)
    srv.hub.refresh()  # the once-a-second tick
    assert "undo" not in page.roots(0.3)  # still there at 30 s
    srv.clock.advance(1)
    srv.hub.refresh()
    [undo] = page.roots()["undo"]
    assert undo.find_all("button") == []


def test_five_minutes_left_and_times_up_are_pushed_into_the_live_region(srv):
    srv.to("planning")
    srv.post("/commitment", {**PLAN, "timebox_minutes": 15})
    page = srv.open_page()
    srv.clock.advance(10 * 60)
    srv.hub.refresh()
    got = page.roots()
    [region] = got["announce"]
    assert region.get("hx-swap-oob") == "innerHTML"  # its text changes: said once
    assert region.text() == "5 minutes left."
    assert text(got["page-title"][0]).startswith("5 min left · 05:00 ·")
    srv.clock.advance(1)
    srv.hub.refresh()
    assert "announce" not in page.roots(0.3)  # unchanged: not sent, not said again
    srv.clock.advance(5 * 60)
    assert srv.controller.expire_if_due()
    got = page.roots()
    assert [r.text() for r in got["announce"]] == ["Time's up."]
