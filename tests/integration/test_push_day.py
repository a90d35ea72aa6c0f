"""Sharpen the day over real websockets: /day's socket (`view=day`) is sent the proposal card
(id="day-proposal") and its seconds, nothing else and never a field; and through a real
`antidrift serve` with a fake claude on PATH and a calendar, the card arrives pushed while the
CLI never reads an event's title (in its prompt or its arguments)."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from urllib.parse import urlencode

import pytest

from tests.fakes import wait_until
from tests.support.fake_cli import FakeCLI, path_with
from tests.support.html import parse
from tests.support.ics import event, write
from tests.support.live import Page, ids, inputs, roots
from tests.support.server import RunningServer

SECRET = "Dentist: Dr Quill"
ANSWER = {
    "commitments": [
        {"next_action": "Draft the summary", "success_condition": "Done", "timebox_minutes": 50},
        {"next_action": "...", "success_condition": "TODO", "timebox_minutes": 25},
        {"next_action": "Review the first PR", "success_condition": "Sent", "timebox_minutes": 30},
    ]
}  # fmt: skip


@pytest.fixture
def srv(live):
    live.reset()
    live.controller.day.clear()
    yield live
    live.coach.release_all()


def card(message: str):
    return roots(message)["day-proposal"]


def test_a_day_page_gets_the_card_and_its_seconds_never_a_view_or_a_field(srv):
    page = srv.open(view="day", p="")  # a key it does not show: the card on connect
    assert ids(page.recv()) == ["day-proposal"]  # its seconds are inside it
    srv.coach.gated = True
    assert srv.post("/day/sharpen", {"intent": "grant report, two PRs"})[0] == 202
    pending = page.recv()
    assert ids(pending) == ["day-proposal"] and card(pending).get("data-status") == "pending"
    srv.coach.wait_calls(1)
    srv.clock.advance(2)
    srv.hub.refresh()  # the ticker's second
    elapsed = page.recv()
    assert ids(elapsed) == ["day-proposal-elapsed"]
    assert parse(elapsed).by_id("day-proposal-elapsed").text() == "2 s"
    srv.post("/planning")  # another view on the main page: nothing of it comes here
    srv.coach.release_all()
    got = page.recv_until(lambda m: "day-proposal" in ids(m) and 'data-status="ready"' in m)
    assert all(set(ids(m)) <= {"day-proposal", "day-proposal-elapsed"} for m in got)
    assert all(inputs(m) == [] for m in got)
    ready = card(got[-1])
    buttons = [b for b in ready.iter() if b.tag == "button"]
    assert [(b.get("name"), b.get("value")) for b in buttons] == [
        ("index", "0"),
        ("index", "1"),
        ("all", "1"),
    ]
    assert buttons[0].get("aria-label") == "Add to the day: Draft the grant summary"
    [form] = [n for n in ready.iter() if n.tag == "form"]
    key = srv.controller.snapshot().day_plan.key
    assert json.loads(form.get("hx-vals")) == {"proposal": key}
    srv.post("/planning/cancel")
    assert page.quiet() == []


def test_a_day_page_showing_the_current_card_gets_nothing_on_connect(srv):
    srv.post("/day/sharpen", {"intent": "the day"})
    wait_until(lambda: srv.controller.snapshot().day_plan.status == "ready")
    key = srv.controller.snapshot().day_plan.key
    page = srv.open(view="day", p=key)
    assert page.quiet() == []
    assert srv.post("/day/proposal/use", {"index": 0, "proposal": key})[0] == 201
    left = page.recv()
    assert ids(left) == ["day-proposal"] and inputs(left) == []


# -- the real server ------------------------------------------------------------------------------


def _at_ten(now: datetime) -> float:
    """Seconds from `now` to the next 10:00 local: the server's clock is moved there, so the
    day has free time before and after the event whatever the hour the test runs."""
    local = now.astimezone()
    ten = local.replace(hour=10, minute=0, second=0, microsecond=0)
    return ((ten if ten > local else ten + timedelta(days=1)) - local).total_seconds()


def test_a_real_sharpen_the_day_is_pushed_and_no_event_title_reaches_the_cli(tmp_path):
    cli = FakeCLI(tmp_path / "bin")
    cli.configure(answer=ANSWER)
    ten = datetime.now().astimezone() + timedelta(seconds=_at_ten(datetime.now()))
    ics = write(tmp_path / "work.ics", event("d@x", SECRET, ten + timedelta(hours=1), minutes=30))
    env = {"PATH": path_with(cli.folder), "ANTIDRIFT_CALENDAR": str(ics)}
    server = RunningServer(tmp_path / "data", env=env, test_clock=True)
    assert server.clock is not None
    server.clock.advance(_at_ten(datetime.now()))
    with server:
        # The calendar is read on its own thread: its event leaves the day less free time.
        wait_until(lambda: server.get("/day.json")["free_minutes"] < 8 * 60 - 5, timeout=15)
        page = Page(f"{server.ws_base}/ws?{urlencode({'view': 'day', 'p': ''})}")
        try:
            page.recv()  # the card as it is on connect (idle)
            status, body = server.post("/day/sharpen", {"intent": "grant report, two PRs"})
            assert (status, body["status"]) == (202, "pending")
            got = page.recv_until(lambda m: 'data-status="ready"' in m, timeout=30)
            ready = card(got[-1])
            actions = [n.text() for n in ready.iter() if n.get("class") == "day-proposed-action"]
            assert actions == ["Draft the summary", "Review the first PR"]
            assert "1 more was left out" in ready.text()
        finally:
            page.close()
        [call] = cli.calls()
        told = call["stdin"] + " ".join(call["argv"])
        assert "Dentist" not in told and "Quill" not in told
        assert len(re.findall(r"- from \d\d:\d\d: \d+ min", call["stdin"])) == 2
        assert '"grant report, two PRs"' in call["stdin"]
        status, day = server.post("/day/proposal/use", {"all": "1"})
        assert status == 201 and len(day["items"]) == 2 and day["proposal"] is None
