"""What `antidrift status` writes for a /state object: the line, waybar's JSON, the class."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from antidrift.cli import statusline

COMMITMENT = {
    "id": "c1",
    "next_action": "Write the intro",
    "success_condition": "Intro in the doc",
    "timebox_secs": 1200,
    "extended_secs": 0,
    "ran_out": False,
}


def state(runtime: str, **extra) -> dict:
    body = {"runtime_state": runtime, "commitment": None}
    if runtime in ("active", "review"):
        body["commitment"] = dict(COMMITMENT)
    if runtime == "active":
        body["left_secs"] = 900
        body["drift"] = {"status": "on_task", "since": None, "reason": None}
    body.update(extra)
    return body


def timesup() -> dict:
    body = state("review")
    body["commitment"]["ran_out"] = True
    return body


CASES = [
    (state("locked"), "locked", "No commitment"),
    (state("planning"), "planning", "Planning"),
    (state("active"), "active", "15:00 · Write the intro"),
    (
        state("active", drift={"status": "drifting", "since": None, "reason": "x"}),
        "drifting",
        "Drifting? · 15:00 · Write the intro",
    ),
    (state("active", paused=True), "paused", "Paused · 15:00 · Write the intro"),
    (timesup(), "timesup", "Time's up · Write the intro"),
    (state("review"), "review", "Review · Write the intro"),
]


@pytest.mark.parametrize(("body", "kind", "line"), CASES, ids=[c[1] for c in CASES])
def test_each_state_has_its_class_and_line(body, kind, line):
    assert statusline.kind(body) == kind
    assert statusline.line(body) == line
    bar = json.loads(statusline.waybar(body))
    assert set(bar) == {"text", "tooltip", "class", "percentage"}
    assert bar["class"] == kind and bar["class"] in statusline.KINDS
    assert "\n" not in statusline.waybar(body)  # one line for waybar


def test_every_class_is_reachable():
    assert {statusline.kind(b) for b, _, _ in CASES} == set(statusline.KINDS)


def test_percentage_is_the_share_of_the_timebox_gone():
    assert statusline.percentage(state("locked")) == 0
    assert statusline.percentage(state("active")) == 25  # 300 of 1200 s gone
    extended = state("active", left_secs=1200)
    extended["commitment"]["extended_secs"] = 1200
    assert statusline.percentage(extended) == 50
    assert statusline.percentage(timesup()) == 100


def test_waybar_text_is_pango_safe_and_short():
    body = state("active")
    body["commitment"]["next_action"] = "Fix <b>bold</b> & the " + "very " * 20 + "long title"
    bar = json.loads(statusline.waybar(body))
    assert "<b>" not in bar["text"] and "&lt;b&gt;" in bar["text"] and "&amp;" in bar["text"]
    assert bar["text"].startswith("15:00 Fix")
    assert len(bar["text"]) < 70
    assert "Done when: Intro in the doc" in bar["tooltip"]


def test_no_server_hides_the_module_and_says_why_in_the_tooltip():
    bar = json.loads(statusline.waybar_down("AntiDrift is not running <here>"))
    assert bar["text"] == "" and bar["class"] == "locked"
    assert bar["tooltip"] == "AntiDrift is not running &lt;here&gt;"


# -- the next calendar event, within the hour ---------------------------------------------------


def with_next(body: dict, minutes: int, title: str = "Team standup") -> dict:
    body["calendar"] = {"now": None, "next": {"title": title, "in_minutes": minutes}}
    return body


def test_the_line_adds_the_next_event_within_the_hour():
    assert statusline.line(with_next(state("active"), 40)) == (
        "15:00 · Write the intro · Team standup in 40 min"
    )
    assert (
        statusline.line(with_next(state("locked"), 60)) == "No commitment · Team standup in 60 min"
    )
    assert statusline.line(with_next(state("planning"), 61)) == "Planning"


def test_under_a_minute_the_line_says_seconds_as_everywhere():
    from datetime import UTC, datetime, timedelta

    body = with_next(state("locked"), 0)
    soon = datetime.now(UTC) + timedelta(seconds=42)
    body["calendar"]["next"]["starts_at"] = soon.isoformat()
    said = statusline.line(body)
    assert said.startswith("No commitment · Team standup in 4") and said.endswith(" s"), said
    assert "in 0 min" not in said


def test_waybar_adds_the_next_event_as_text_never_markup():
    body = json.loads(statusline.waybar(with_next(state("active"), 5, "1:1 <b>&</b> review")))
    assert body["text"] == "15:00 Write the intro · 1:1 &lt;b&gt;&amp;&lt;/b&gt; review in 5 min"
    assert body["class"] == "active"
    assert "in 5 min" in body["tooltip"]
    none = json.loads(statusline.waybar(state("active")))
    assert "min" not in none["text"]


def test_away_is_said_first_as_the_pages_title_says_it_the_class_stays_active():
    body = state("active", away=True, drift={"status": "away", "since": None, "reason": None})
    assert statusline.line(body) == "Away · 15:00 · Write the intro"
    bar = json.loads(statusline.waybar(body))
    assert bar["text"].startswith("Away 15:00 ") and bar["class"] == "active"


def test_a_break_is_said_with_its_end_as_the_page_says_it_the_class_stays_locked():
    """The page's title says Break while one runs; "No commitment" alone hid it."""
    ends = datetime(2026, 3, 2, 9, 10, tzinfo=UTC)
    body = state("locked", **{"break": {"ends_at": ends.isoformat(), "long": False}})
    until = f"{ends.astimezone():%H:%M}"
    assert statusline.line(body) == f"Break until {until}"
    bar = json.loads(statusline.waybar(body))
    assert (bar["text"], bar["class"]) == (f"Break until {until}", "locked")
    long = state("locked", **{"break": {"ends_at": ends.isoformat(), "long": True}})
    assert statusline.line(long) == f"Long break until {until}"
    for ends_at in ("soon", 5, None, ["x"]):  # an odd shape is no traceback
        odd = state("locked", **{"break": {"ends_at": ends_at, "long": False}})
        assert statusline.line(odd) == "Break", ends_at
    assert statusline.line(state("locked", **{"break": None})) == "No commitment"


def test_locked_with_the_days_queue_says_next_up_pango_safe_and_short():
    first = {
        "id": "x",
        "next_action": "Write  the <intro> & send it to Ana, then lunch",
        "queued": 2,
    }
    state = {"runtime_state": "locked", "next_up": first}
    assert statusline.line(state) == (
        "No commitment · next up: Write the <intro> & send it to Ana, then lunch"
    )
    body = json.loads(statusline.waybar(state))
    assert body["text"] == "No commitment · next up: Write the &lt;intro&gt; &amp; send it to…"
    assert body["class"] == "locked"
    assert "then lunch" in body["tooltip"] and "<intro>" not in body["tooltip"]
    # none queued, an older server, a break, or any other state: as before
    for quiet in (
        {"runtime_state": "locked", "next_up": None},
        {"runtime_state": "locked"},
        {"runtime_state": "locked", "next_up": {"next_action": "  "}},
    ):
        assert statusline.line(quiet) == "No commitment"
    rest = {"long": False, "ends_at": None}
    assert statusline.line({"runtime_state": "locked", "break": rest, "next_up": first}) == "Break"
    assert statusline.line({"runtime_state": "planning", "next_up": first}) == "Planning"
