"""Widgets outside the view, over a real websocket: the document title (every state, every
second while active), the offline notice's heartbeat, and the chime once when time runs out."""

from __future__ import annotations

import time

import pytest
import websocket

from tests.support.html import parse, top_level
from tests.support.plans import PLAN


class RawPage:
    """A socket whose every message is kept, page-level widgets included."""

    def __init__(self, url: str) -> None:
        self.ws = websocket.create_connection(url, timeout=5)

    def messages(self, seconds: float = 0.4) -> list[str]:
        """Every message in the next `seconds` (a quiet spell: nothing more is coming)."""
        got: list[str] = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            self.ws.settimeout(left)
            try:
                got.append(self.ws.recv())
            except websocket.WebSocketTimeoutException:
                break
        return got

    def until(self, *wanted: str, seconds: float = 5.0) -> list[str]:
        """The messages up to the one that brings the last of the `wanted` widgets; what
        comes after stays for the next read (a test ends with a quiet spell of messages())."""
        got: list[str] = []
        deadline = time.monotonic() + seconds
        while not all(count(got, w) for w in wanted):
            left = deadline - time.monotonic()
            assert left > 0, (wanted, got)
            self.ws.settimeout(left)
            got.append(self.ws.recv())
        return got

    def close(self) -> None:
        self.ws.close()


def titles(messages: list[str]) -> list[str]:
    found = []
    for message in messages:
        for node in top_level(message):
            if node.id == "page-title":
                assert node.get("hx-swap-oob") == "innerHTML:title"
                found.append(node.text())
    return found


def count(messages: list[str], wanted: str) -> int:
    return sum(1 for m in messages for n in top_level(m) if n.id == wanted)


@pytest.fixture
def srv(live):
    live.reset()
    opened: list[RawPage] = []

    def open_page(**query: str) -> RawPage:
        from urllib.parse import urlencode

        page = RawPage(live.ws_base + (f"?{urlencode(query)}" if query else ""))
        opened.append(page)
        return page

    live.open_raw = open_page
    yield live
    for page in opened:
        page.close()


def test_every_state_change_carries_the_title_of_the_new_view(srv):
    page = srv.open_raw()
    assert titles(page.until("page-title")) == ["No commitment · AntiDrift"]
    srv.post("/planning")
    assert titles(page.until("page-title")) == ["Planning · AntiDrift"]
    srv.post("/commitment", PLAN)
    assert titles(page.until("page-title")) == ["20:00 · Write the intro · AntiDrift"]
    srv.post("/finish")
    assert titles(page.until("page-title")) == ["Review · Write the intro · AntiDrift"]
    assert titles(page.messages()) == []  # one title a change, no more


def test_while_active_the_title_counts_down_every_second(srv):
    srv.to("active")
    page = srv.open_raw()
    page.until("page-title")
    seen = []
    for _ in range(3):
        srv.clock.advance(1)
        srv.hub.refresh()
        seen += titles(page.until("page-title"))
    seen += titles(page.messages())  # one title a second, no more
    assert seen == [
        "19:59 · Write the intro · AntiDrift",
        "19:58 · Write the intro · AntiDrift",
        "19:57 · Write the intro · AntiDrift",
    ]


def test_over_an_hour_the_title_shows_hours(srv):
    srv.to("planning")
    srv.post("/commitment", {**PLAN, "timebox_minutes": 90})
    page = srv.open_raw()
    assert titles(page.until("page-title"))[0].startswith("1:30:00 · ")


def test_a_timebox_that_ran_out_says_times_up_and_chimes_once(srv):
    srv.to("active")
    cid = srv.state()["commitment"]["id"]
    page = srv.open_raw(view="active", c=cid, p="")
    page.until("offline")
    srv.clock.advance(20 * 60)
    assert srv.controller.expire_if_due()
    got = page.until("page-title", "chime")
    assert titles(got) == ["Time's up · Write the intro · AntiDrift"]
    [chime] = [n for m in got for n in top_level(m) if n.id == "chime"]
    audio = chime.find_all("audio")
    assert len(audio) == 1 and "autoplay" in audio[0].attrs
    srv.clock.advance(1)
    srv.hub.refresh()
    assert count(page.until("offline") + page.messages(), "chime") == 0  # once, not every tick
    # A page opened later, or reloaded, does not chime again.
    later = srv.open_raw()
    assert count(later.until("offline") + later.messages(), "chime") == 0


def test_finishing_by_hand_does_not_chime(srv):
    srv.to("active")
    cid = srv.state()["commitment"]["id"]
    page = srv.open_raw(view="active", c=cid, p="")
    page.until("offline")
    srv.post("/finish")
    assert count(page.until("page-title") + page.messages(), "chime") == 0


@pytest.mark.parametrize("where", ["locked", "planning", "active", "review"])
def test_the_offline_notice_is_renewed_at_every_tick_in_every_state(srv, where):
    srv.to(where)
    page = srv.open_raw()
    assert count(page.messages(), "offline") == 1  # on connect
    for _ in range(3):
        srv.clock.advance(1)
        srv.hub.refresh()
        got = page.messages(0.3)  # each tick's own: one notice, not two next to none
        assert count(got, "offline") == 1
        [notice] = [n for m in got for n in top_level(m) if n.id == "offline"]
        assert "reconnecting" in notice.text()


def beats(messages: list[str]) -> list[str | None]:
    return [n.get("data-beat") for m in messages for n in top_level(m) if n.id == "offline"]


@pytest.mark.parametrize("where", ["locked", "active"])
def test_every_offline_notice_a_page_gets_flips_its_beat_which_restarts_the_view_delay(srv, where):
    """The view's buttons go inert when a CSS delay runs out; each notice restarts that delay
    only if its data-beat differs from the one before (static/loop.css). The first on a
    socket is "c", never the served page's "p" nor a beat that socket sends later."""
    srv.to(where)
    first, second = srv.open_raw(), srv.open_raw()
    seen = {id(first): beats(first.until("offline")), id(second): beats(second.until("offline"))}
    for _ in range(4):
        srv.clock.advance(1)
        srv.hub.refresh()
        for page in (first, second):
            seen[id(page)] += beats(page.until("offline"))
    for page in (first, second):
        seen[id(page)] += beats(page.messages())  # one a tick, no more
    for got in seen.values():
        assert got == ["c", "0", "1", "0", "1"]
        assert all(a != b for a, b in zip(got, got[1:], strict=False))


def test_the_page_has_the_title_and_a_hidden_offline_notice(srv):
    import urllib.request

    srv.to("active")
    with urllib.request.urlopen(srv.base + "/", timeout=5) as resp:
        tree = parse(resp.read().decode())
    assert tree.find_all("title")[0].text() == "20:00 · Write the intro · AntiDrift"
    assert tree.by_id("offline") is not None
    assert tree.by_id("offline").get("data-beat") == "p"
    assert tree.by_id("chime").find_all("audio") == []
