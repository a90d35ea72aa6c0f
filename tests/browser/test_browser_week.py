"""The week page in a real Chromium: desktop and phone, light and dark, no sideways scroll,
axe-clean, the chart an image named by its figures, and the three figure tiles (here and on
Insights) never two on a row and one below."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from antidrift.core.domain import Commitment, Outcome, RuntimeState, WindowSample
from antidrift.core.drift_records import Judgement, Source, Verdict, Window
from tests.support.browser import App, history_app
from tests.support.store import committing

pytestmark = pytest.mark.browser

# (days ago, minutes taken, outcome, off-task app or None, its site or None): ended at the
# server's real now less that many days, so each lands on its own local day of the week.
WEEK = [
    (14, 25, Outcome.MET, None, None),
    (7, 30, Outcome.MET, None, None),
    (6, 45, Outcome.MET, "firefox", "news.example.org"),
    (5, 25, Outcome.MISSED, "slack", None),
    (5, 50, Outcome.MET, None, None),
    (3, 90, Outcome.MET, "firefox", "youtube.com"),
    (2, 15, Outcome.MISSED, "youtube-music", None),
    (0, 40, Outcome.MET, "slack", None),
]


def seed_week(path: Path, now: datetime) -> None:
    """The WEEK's commitments through the store's own writes, with window samples every 30 s
    and the guard's verdicts: "code" on task, the named app off task for a third of the time
    (a browser's on the named site)."""
    store = committing(path)
    for n, (ago, minutes, outcome, off, site) in enumerate(WEEK):
        end = now - timedelta(days=ago, minutes=5)
        start = end - timedelta(minutes=minutes)
        c = Commitment(f"week-{n}", f"Commitment {n}", "Done", minutes * 60, start, end)
        store.save(RuntimeState.ACTIVE, c)
        steps = minutes * 2
        for step in range(steps):
            at = start + timedelta(seconds=30 * step)
            if off and step >= steps * 2 // 3:
                sample = WindowSample(off, "window", at, site=site)
            else:
                sample = WindowSample("code", "window", at)
            store.add_sample(c.id, sample)
        verdicts = [("code", Verdict.ON_TASK)] + ([(off, Verdict.OFF_TASK)] if off else [])
        for app, verdict in verdicts:
            store.save_judgement(
                c.id, Window(app, "window"), Judgement(verdict, "seeded", Source.JUDGE)
            )
        stopped = c.stopped(end)
        store.save(RuntimeState.REVIEW, stopped)
        store.save(RuntimeState.LOCKED, stopped.ended(end, outcome, ""))
    store.close()


@pytest.fixture(scope="module")
def app(tmp_path_factory, _chromium_available) -> Iterator[App]:
    tmp = tmp_path_factory.mktemp("week")
    seed_week(tmp / "data" / "antidrift.sqlite3", datetime.now(UTC))
    with history_app(tmp) as app:
        yield app


def test_the_week_looks_right_everywhere_and_says_its_figures(browser, app, ui):
    def check(page) -> None:
        ui.expect(page.get_by_role("heading", name="The last seven days")).to_be_visible()
        chart = page.get_by_role("img", name="Focused minutes per day", exact=False)
        ui.expect(chart).to_be_visible()
        assert page.locator(".week-table tbody tr").count() == 7
        week = app.server.get("/week.json")
        names = page.locator(".distractions tbody td.title-cell").all_text_contents()
        assert names == [t["name"] for t in week["top_distractions"]]
        assert "youtube.com" in names and "firefox" not in names  # a browser's by site
        minutes = [str(d["focused_minutes"]) for d in week["days"]]
        values = page.locator(".week-chart .chart-value").all_text_contents()
        assert values == minutes
        box = chart.bounding_box()
        assert box["height"] > 120 and box["width"] >= min(page.viewport_size["width"], 704) * 0.8

    ui.each_look(browser, app.base + "/week", "week", check)


@pytest.mark.parametrize("width", [390, 560, 1280])
@pytest.mark.parametrize("path", ["/week", "/insights"])
def test_the_three_tiles_are_one_row_or_one_column_never_two_and_one(new_tabs, ui, path, width):
    page, _ = new_tabs(viewport={"width": width, "height": 900}).open(path)
    tops = [round(b["y"]) for b in (ui.box(t) for t in page.locator(".figure").all())]
    assert len(tops) == 3
    assert len(set(tops)) in (1, 3), f"{path} at {width} px puts the tiles at {tops}"
    ui.snap(page, f"tiles{path.replace('/', '-')}-{width}")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_week_has_no_accessibility_violations(new_tabs, ui, scheme):
    tabs = new_tabs(viewport={"width": 390, "height": 844}, color_scheme=scheme, bypass_csp=True)
    page, watch = tabs.open("/week")
    ui.settled(page)
    assert ui.axe_problems(page) == []
    assert watch.errors == [] and watch.csp_violations() == []


def test_the_way_there_from_the_locked_view_and_back(tabs, ui):
    page, _ = tabs.open("/")
    page.get_by_role("link", name="This week").click()
    ui.expect(page.get_by_role("heading", name="The last seven days")).to_be_visible()
    page.get_by_role("link", name="Insights and all history").click()
    ui.expect(page.get_by_role("heading", name="How your commitments went")).to_be_visible()
    page.get_by_role("link", name="This week, day by day").click()
    ui.expect(page.get_by_role("heading", name="The last seven days")).to_be_visible()
