"""GET /week and /week.json over a real SQLite history written through the app's own routes,
on the fake clock: minutes, met and missed per local day, the weekly streak across week
boundaries, the apps and sites judged off task, and a chart whose label says the table's
figures."""

from __future__ import annotations

import re
import time
from datetime import date, timedelta

import pytest

from antidrift.drift.policy import DriftSettings
from antidrift.settings.kinds import PrivatePattern
from antidrift.store.sqlite import SQLiteStore
from tests.fakes import RecordingNotifier, wait_until
from tests.support.html import parse

NOW = DriftSettings(timedelta(0), timedelta(0), 30)  # judged at once, no grace
# 13 hours ahead of UTC (a POSIX zone, no tz database needed): the fake clock's start,
# Monday 2 March 2026 09:00 UTC, is 22:00 there, so a local day ends at 11:00 UTC.
AHEAD = "NZT-13"


@pytest.fixture
def store(tmp_path):
    """The real store under every fixture that takes `store` (the app's runtime included)."""
    made = SQLiteStore(tmp_path / "antidrift.sqlite3")
    yield made
    made.close()


@pytest.fixture
def zone(monkeypatch):
    """zone(tz): the process's local time zone for the test (restored after)."""

    def set_zone(tz: str) -> None:
        monkeypatch.setenv("TZ", tz)
        time.tzset()

    yield set_zone
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def web(make_controller, make_app, judge):
    """A client of the app whose drift guard judges "code" on task and every other app off."""
    controller = make_controller(judge=judge, drift=NOW, notifier=RecordingNotifier())
    return make_app(controller).test_client()


@pytest.fixture
def private_web(make_controller, make_app, judge):
    """The same, with a private-title pattern that matches the bank's site."""
    controller = make_controller(
        judge=judge,
        drift=NOW,
        notifier=RecordingNotifier(),
        exclude_titles=PrivatePattern(r"bank\.example"),
    )
    return make_app(controller).test_client()


def commit(client, clock, outcome: str, minutes: int = 0, windows=(), judged=None) -> None:
    """One commitment through the routes: `windows` are (app, title, seconds[, url]) focused
    in turn, sampled every 30 s as a watcher would; then `minutes` more, finish, the outcome.
    `judged`: (store, n) to wait for before the finish, n windows with a stored verdict."""
    assert client.post("/planning").status_code == 200
    plan = {"next_action": "Write", "success_condition": "Done", "timebox_minutes": 120}
    assert client.post("/commitment", json=plan).status_code == 200
    cid = state(client)["commitment"]["id"]
    for app, title, seconds, *url in windows:
        sent = {"app": app, "title": title, **({"url": url[0]} if url else {})}
        for n in range(0, seconds, 30):
            assert client.post("/evidence/window", json=sent).status_code
            if n == 0:  # the guard has decided this window before its time is counted
                wait_until(lambda: state(client)["drift"]["status"] in ("on_task", "drifting"))
            clock.advance(30)
    if judged is not None:
        store, count = judged
        wait_until(lambda: len(store.judgements(cid)) >= count)
    clock.advance(timedelta(minutes=minutes))
    assert client.post("/finish").status_code == 200
    assert client.post("/end", json={"outcome": outcome}).status_code == 200


def state(client) -> dict:
    return client.get("/state").get_json()


def week(client) -> dict:
    response = client.get("/week.json")
    assert response.status_code == 200
    return response.get_json()


def day(body: dict, when: date) -> dict:
    return next(d for d in body["days"] if d["date"] == when.isoformat())


def test_an_empty_week_is_seven_days_of_nothing_ending_today(web, zone):
    zone("UTC")
    body = week(web)
    dates = [date.fromisoformat(d["date"]) for d in body["days"]]
    assert dates == [date(2026, 3, 2) - timedelta(days=6 - n) for n in range(7)]
    assert [(d["focused_minutes"], d["met"], d["missed"]) for d in body["days"]] == [(0, 0, 0)] * 7
    assert (body["week_streak"], body["top_distractions"]) == (0, [])
    page = parse(web.get("/week").get_data(as_text=True))
    assert "Nothing was judged off task" in page.text()


def test_minutes_met_and_missed_go_to_the_users_local_day(web, clock, zone):
    zone(AHEAD)
    commit(web, clock, "met", minutes=30)  # ends 09:30 UTC: Monday 22:30 here
    clock.advance(timedelta(hours=1, minutes=40))
    commit(web, clock, "missed", minutes=20)  # ends 11:30 UTC, still Monday in UTC: Tuesday here
    commit(web, clock, "met", minutes=7)
    body = week(web)
    assert body["days"][-1]["date"] == "2026-03-03"  # today, here
    assert day(body, date(2026, 3, 3)) == {
        "date": "2026-03-03",
        "focused_minutes": 27,
        "met": 1,
        "missed": 1,
        "planned": 0,
        "done": 0,
    }
    assert day(body, date(2026, 3, 2)) == {
        "date": "2026-03-02",
        "focused_minutes": 30,
        "met": 1,
        "missed": 0,
        "planned": 0,
        "done": 0,
    }
    assert sum(d["focused_minutes"] for d in body["days"]) == 57
    # The locked view's "today" line and the week's today agree.
    today = parse(web.get("/").get_data(as_text=True)).by_id("today").text()
    assert "2 commitments, 1 met, 27 min focused" in today


def test_a_day_older_than_seven_is_out_of_the_week(web, clock, zone):
    zone("UTC")
    commit(web, clock, "met", minutes=10)  # Monday 2 March
    clock.advance(timedelta(days=6))
    body = week(web)
    assert body["days"][0] == {
        "date": "2026-03-02",
        "focused_minutes": 10,
        "met": 1,
        "missed": 0,
        "planned": 0,
        "done": 0,
    }
    clock.advance(timedelta(days=1))
    body = week(web)
    assert body["days"][0]["date"] == "2026-03-03"
    assert sum(d["focused_minutes"] + d["met"] for d in body["days"]) == 0
    assert body["week_streak"] == 1  # last week had a met one, and this one is not over


def test_the_week_streak_counts_weeks_in_a_row_across_boundaries(web, clock, zone):
    zone(AHEAD)
    # Monday 2 March 09:00 UTC is 22:00 local on Monday: week 10 (from Monday 2 March).
    commit(web, clock, "met", minutes=10)
    assert week(web)["week_streak"] == 1
    # Sunday 8 March, 10:45 UTC = 23:45 local: still week 10; a miss adds nothing.
    clock.advance(timedelta(days=6, minutes=95))
    commit(web, clock, "missed", minutes=5)
    assert week(web)["week_streak"] == 1
    # 11:05 UTC, still Sunday in UTC, is Monday 9 March here: week 11, nothing met yet. The
    # week is not over, so the run stands.
    clock.advance(timedelta(minutes=15))
    assert week(web)["week_streak"] == 1
    commit(web, clock, "met", minutes=10)  # Monday 9 March, local
    assert week(web)["week_streak"] == 2
    # Week 12 holds a miss only: while it lasts the run stands; in week 13 it is broken.
    clock.advance(timedelta(days=7))
    commit(web, clock, "missed", minutes=5)
    assert week(web)["week_streak"] == 2
    clock.advance(timedelta(days=7))
    assert week(web)["week_streak"] == 0
    commit(web, clock, "met", minutes=5)
    assert week(web)["week_streak"] == 1


def test_the_streak_is_a_local_week_not_a_utc_one(web, clock, zone):
    zone(AHEAD)
    # Sunday 8 March 10:45 UTC is Sunday 23:45 here, and 11:05 UTC Monday 9 March here: in
    # UTC both are Sunday, one week; here they are two.
    clock.advance(timedelta(days=6, minutes=100))
    commit(web, clock, "met", minutes=5)  # ends 10:45 UTC
    clock.advance(timedelta(minutes=15))
    commit(web, clock, "met", minutes=5)  # ends 11:05 UTC
    assert week(web)["week_streak"] == 2


def test_top_distractions_are_the_apps_judged_off_task_with_their_minutes(web, clock, zone):
    zone("UTC")
    # Eight days ago: slack for four minutes, outside the week.
    commit(web, clock, "met", windows=[("slack", "general", 240)])
    clock.advance(timedelta(days=8))
    windows = [
        ("code", "intro.md", 300),  # on task: no distraction
        ("firefox", "(3) feed", 90),
        ("firefox", "(4) feed", 90),  # the same window, as the guard keys it (no new verdict)
        ("slack", "general", 60),
        ("code", "intro.md", 60),
    ]
    commit(web, clock, "missed", windows=windows)
    body = week(web)
    assert body["top_distractions"] == [
        {"name": "firefox", "minutes": 3},
        {"name": "slack", "minutes": 1},
    ]
    rows = parse(web.get("/week").get_data(as_text=True)).find_all(
        "table", class_="shares distractions"
    )
    cells = [[c.text() for c in tr.find_all("td")] for tr in rows[0].find_all("tr")[1:]]
    assert cells == [["firefox", "3 min"], ["slack", "1 min"]]


def distraction_rows(client) -> list[dict]:
    """The page's top distractions as the JSON says them."""
    page = parse(client.get("/week").get_data(as_text=True))
    (table,) = page.find_all("table", class_="shares distractions")
    cells = [[c.text() for c in tr.find_all("td")] for tr in table.find_all("tr")[1:]]
    return [{"name": name, "minutes": int(said.removesuffix(" min"))} for name, said in cells]


def test_a_browsers_off_task_time_is_named_by_site_and_a_private_site_never(
    private_web, clock, zone, store
):
    zone("UTC")
    windows = [
        ("code", "intro.md", 120),  # on task
        ("firefox", "A video - YouTube", 180, "https://www.youtube.com/watch?v=1"),
        ("firefox", "Front page", 120, "https://news.example.org/"),
        ("slack", "general", 60),  # not a browser: its app's name
        ("firefox", "Accounts", 240, "https://my.bank.example/a?id=7"),  # private
        ("firefox", "Reader", 60),  # a browser's page with no site known
        ("firefox", "A video - YouTube", 60, "https://www.youtube.com/watch?v=1"),
        ("code", "intro.md", 60),
    ]
    commit(private_web, clock, "met", windows=windows, judged=(store, 6))
    body = week(private_web)
    assert body["top_distractions"] == [
        {"name": "firefox", "minutes": 5},  # the private page's 4 and the page with no site
        {"name": "youtube.com", "minutes": 4},
        {"name": "news.example.org", "minutes": 2},
        {"name": "slack", "minutes": 1},
    ]
    assert distraction_rows(private_web) == body["top_distractions"]
    page = private_web.get("/week").get_data(as_text=True)
    assert "bank" not in page and "bank" not in str(body)


def test_one_site_over_days_and_browsers_is_one_distraction(web, clock, zone, store):
    zone("UTC")
    one = [("firefox", "Feed", 120, "https://m.example.com/feed")]
    commit(web, clock, "met", windows=one, judged=(store, 1))
    clock.advance(timedelta(days=1))
    two = [
        ("chromium", "Feed", 90, "https://m.example.com/feed"),
        ("chromium", "Mail", 60, "https://mail.example.net/"),
    ]
    commit(web, clock, "missed", windows=two, judged=(store, 2))
    body = week(web)
    assert body["top_distractions"] == [
        {"name": "m.example.com", "minutes": 3},  # 2 + 1.5 minutes, rounded down once
        {"name": "mail.example.net", "minutes": 1},
    ]
    assert distraction_rows(web) == body["top_distractions"]


def test_the_chart_is_an_image_whose_label_says_the_tables_figures(web, clock, zone):
    zone("UTC")
    commit(web, clock, "met", minutes=25)
    clock.advance(timedelta(days=1))
    commit(web, clock, "missed", minutes=40)
    commit(web, clock, "met", minutes=5)
    clock.advance(timedelta(days=2))
    commit(web, clock, "met", minutes=12)
    page = parse(web.get("/week").get_data(as_text=True))
    charts = page.find_all("svg", role="img")
    assert len(charts) == 1
    label = charts[0].get("aria-label")
    said = [int(n) for n in re.findall(r": (\d+) minutes?", label)]
    table = page.find_all("table", class_="shares week-table")[0]
    body_rows = table.find_all("tbody")[0].find_all("tr")
    shown = [int(tr.find_all("td")[0].text().split()[0]) for tr in body_rows]
    assert said == shown == [0, 0, 0, 25, 45, 0, 12]
    assert [d["focused_minutes"] for d in week(web)["days"]] == shown
    assert "oldest first" in label and "today, Thursday 5 March: 12 minutes" in label
    met = [int(tr.find_all("td")[1].text()) for tr in body_rows]
    missed = [int(tr.find_all("td")[2].text()) for tr in body_rows]
    assert (met, missed) == ([0, 0, 0, 1, 1, 0, 1], [0, 0, 0, 0, 1, 0, 0])
    # One bar per day that has minutes, the tallest for the longest day.
    bars = charts[0].find_all("rect")
    assert len(bars) == 3
    assert max(bars, key=lambda b: float(b.get("height"))) is bars[1]


def test_the_week_is_linked_from_the_locked_view_and_insights(client):
    for path in ("/", "/insights"):
        links = parse(client.get(path).get_data(as_text=True)).find_all("a", href="/week")
        assert links, path
    assert parse(client.get("/week").get_data(as_text=True)).find_all("a", href="/insights")


def plan_it(client, clock, next_action: str, outcome: str | None) -> None:
    """The day's first item through Plan it and Start; then ended `outcome` (None: discarded)."""
    item = client.get("/day.json").get_json()["items"][0]
    assert item["next_action"] == next_action
    assert client.post("/planning", json={"day_item": item["id"]}).status_code == 200
    plan = {"next_action": next_action, "success_condition": "Done", "timebox_minutes": 20}
    assert client.post("/commitment", json=plan).status_code == 200
    clock.advance(timedelta(minutes=5))
    if outcome is None:
        assert client.post("/discard").status_code == 200
        return
    assert client.post("/finish").status_code == 200
    assert client.post("/end", json={"outcome": outcome}).status_code == 200


def test_days_count_the_queues_items_planned_and_done(web, clock, zone):
    """planned: the day's items, started ones included (one carried over counts on the day
    it was carried to); done: those whose commitment was met. /day says the same of today."""
    zone("UTC")
    for text in ("One", "Two", "Three"):
        assert web.post("/day/items", json={"next_action": text}).status_code == 201
    plan_it(web, clock, "One", "met")
    plan_it(web, clock, "Two", "missed")
    monday = week(web)["days"][-1]
    assert (monday["planned"], monday["done"]) == (3, 1)
    assert web.get("/day.json").get_json()["tally"] == {
        "planned": 3,
        "met": 1,
        "missed": 1,
        "carried": 1,
    }
    page = parse(web.get("/day", headers={"Accept": "text/html"}).get_data(as_text=True))
    said = " ".join(page.by_id("day-done").text().split())
    assert said == "Today so far: 3 planned · 1 met · 1 missed · 1 left to carry over"
    table = parse(web.get("/week").get_data(as_text=True)).text()
    assert "1 of 3 planned items done" in table

    clock.advance(timedelta(days=1))  # "Three" is carried to Tuesday, and counts there
    plan_it(web, clock, "Three", None)  # discarded: back in the queue, not done
    plan_it(web, clock, "Three", "met")
    days = week(web)["days"]
    assert [(d["planned"], d["done"]) for d in days[-2:]] == [(2, 1), (1, 1)]
    assert web.get("/day.json").get_json()["tally"] == {
        "planned": 1,
        "met": 1,
        "missed": 0,
        "carried": 0,
    }
