"""The insights page's view model: figures, chart geometry and one page of history, frozen.

Built in the route from what the controller read; the template only lays it out, so the
page renders without calling back into the app.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from antidrift.core import insights
from antidrift.core.domain import COUNTED, Commitment, Share
from antidrift.core.minutes import whole_minutes

PAGE_SIZE = 50
CHART_COMMITMENTS = 20
# The planned-against-actual chart's drawing box (SVG user units); CSS scales it.
CHART_W, CHART_H = 400, 150
CHART_LEFT, CHART_BOTTOM, CHART_TOP = 30, 18, 8
# The axis's "older" and "newest" at their widest: the ticks' largest font (13 units, where the
# chart is drawn small: style.css) at about 0.6 em a letter, and the room kept between them.
LABEL_FONT, LABEL_EM, LABEL_GAP = 13, 0.6, 8


@dataclass(frozen=True)
class Column:
    """One commitment in the planned-against-actual chart."""

    label: str  # what the text equivalent says, e.g. the next action
    planned_minutes: int
    actual_minutes: int
    outcome: str
    x: float
    width: float
    planned_y: float
    planned_h: float
    actual_x: float
    actual_width: float
    actual_y: float
    actual_h: float


@dataclass(frozen=True)
class Tick:
    minutes: int
    y: float


@dataclass(frozen=True)
class AxisLabel:
    """A word under the columns: where it is drawn, and which of its ends is there."""

    text: str
    x: float
    anchor: str  # SVG's text-anchor: "start" or "end"

    @property
    def extent(self) -> tuple[float, float]:
        """From where to where it is drawn at its widest (LABEL_FONT)."""
        width = label_width(self.text)
        return (self.x, self.x + width) if self.anchor == "start" else (self.x - width, self.x)


def label_width(text: str) -> float:
    return len(text) * LABEL_FONT * LABEL_EM


@dataclass(frozen=True)
class Chart:
    """Planned against actual minutes for the most recent commitments, oldest first."""

    columns: tuple[Column, ...]
    ticks: tuple[Tick, ...]
    width: int = CHART_W
    height: int = CHART_H
    left: int = CHART_LEFT
    baseline: float = CHART_H - CHART_BOTTOM

    @property
    def right(self) -> float:
        """Where the newest column ends (its label goes there)."""
        last = self.columns[-1] if self.columns else None
        return round(last.x + last.width, 2) if last else self.width

    @property
    def labels(self) -> tuple[AxisLabel, ...]:
        """ "older" under the first column and "newest" ending under the last, when both fit
        between them without touching; with fewer columns "newest" alone, ending under the
        last one, or starting at the axis where it would run into the minutes."""
        if not self.columns:
            return ()
        older, newest = "older", "newest"
        if self.right - self.left >= label_width(older) + LABEL_GAP + label_width(newest):
            return (AxisLabel(older, self.left, "start"), AxisLabel(newest, self.right, "end"))
        if self.right - label_width(newest) >= self.left:
            return (AxisLabel(newest, self.right, "end"),)
        return (AxisLabel(newest, self.left, "start"),)


@dataclass(frozen=True)
class Entry:
    """One history entry as the page lists it."""

    commitment: Commitment
    actual_secs: int
    drift_count: int = 0
    on_task_share: float | None = None  # None: the drift guard did not judge it


@dataclass(frozen=True)
class InsightsView:
    summary: insights.Summary
    streaks: insights.Streaks
    calibration: insights.Calibration | None
    chart: Chart
    apps: tuple[Share, ...]
    entries: tuple[Entry, ...]
    older: str | None  # the id to page on from, when older entries exist
    paged: bool  # this is not the newest page
    back: str  # where a correction or removal returns to


def build(
    figures: Sequence[insights.Ended],
    recent: Sequence[Commitment],
    app_totals: Mapping[str, float],
    page: Sequence[Commitment],
    *,
    before: str | None,
    drift: Mapping[str, tuple[int, float | None]] | None = None,
) -> InsightsView:
    """figures: every ended commitment, newest first; recent: the newest few for the chart;
    page: up to PAGE_SIZE + 1 entries (one more tells whether an older page exists);
    drift: the drift guard's (count, on-task share) per entry id, where it judged."""
    shown = list(page[:PAGE_SIZE])
    drift = drift or {}
    counted = [c for c in recent if c.outcome in COUNTED]  # a discarded one is not charted
    return InsightsView(
        summary=insights.summarize(figures),
        streaks=insights.streaks(item.outcome for item in figures),
        calibration=insights.calibration(figures),
        chart=chart(list(reversed(counted[:CHART_COMMITMENTS]))),
        apps=tuple(insights.app_time(app_totals)),
        entries=tuple(
            Entry(c, insights.ended(c).actual_secs, *drift.get(c.id, (0, None))) for c in shown
        ),
        older=shown[-1].id if len(page) > PAGE_SIZE else None,
        paged=before is not None,
        back=back_to(before),
    )


def back_to(before: str | None) -> str:
    return f"/insights?before={before}" if before else "/insights"


def chart(oldest_first: Sequence[Commitment]) -> Chart:
    """Column geometry: a wide light bar for the plan, a narrow solid one for the actual."""
    items = [(c, insights.ended(c)) for c in oldest_first]
    top = nice_ceiling(max([max(e.planned_secs, e.actual_secs) / 60 for _, e in items], default=0))
    plot_h = CHART_H - CHART_BOTTOM - CHART_TOP
    baseline = CHART_H - CHART_BOTTOM
    # A few commitments keep slim columns from the left rather than a few wide slabs.
    slot = (CHART_W - CHART_LEFT) / max(len(items), CHART_COMMITMENTS // 2)

    def height(minutes: float) -> float:
        return round(plot_h * minutes / top, 2)

    columns = []
    for index, (c, e) in enumerate(items):
        planned, actual = e.planned_secs / 60, e.actual_secs / 60
        x = CHART_LEFT + index * slot + slot * 0.1
        width = slot * 0.8
        actual_width = slot * 0.4
        columns.append(
            Column(
                label=c.next_action,
                planned_minutes=whole_minutes(e.planned_secs),
                actual_minutes=whole_minutes(e.actual_secs),
                outcome=e.outcome.value,
                x=round(x, 2),
                width=round(width, 2),
                planned_y=round(baseline - height(planned), 2),
                planned_h=height(planned),
                actual_x=round(x + (width - actual_width) / 2, 2),
                actual_width=round(actual_width, 2),
                actual_y=round(baseline - height(actual), 2),
                actual_h=height(actual),
            )
        )
    ticks = tuple(Tick(m, round(baseline - height(m), 2)) for m in (0, top // 2, top))
    return Chart(tuple(columns), ticks)


def nice_ceiling(minutes: float) -> int:
    """A round top for the axis: 10, 15, 30, 60, then half hours up to 4 h, then hours."""
    for step in (10, 15, 30, 60):
        if minutes <= step:
            return step
    unit = 30 if minutes <= 240 else 60
    return unit * math.ceil(minutes / unit)
