"""The week's chart: a bar per day of focused minutes, their values and days, and the words
that say it all (GET /week, web/week.py). Loaded with the page (issue 40: the footprint)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from antidrift.web.insights_view import nice_ceiling

if TYPE_CHECKING:
    from antidrift.core.week import Day

# The bars' drawing box (SVG user units); CSS scales it to the card.
CHART_W, CHART_H = 420, 170
CHART_LEFT, CHART_TOP, CHART_BOTTOM = 30, 16, 34  # room for the axis, the values, the days


@dataclass(frozen=True)
class Bar:
    """One day's bar, its value above it and its day below."""

    day: Day
    label: str  # "Mon 2", or "Today"
    spoken: str  # the aria-label's words for the day, e.g. "Monday 2 March"
    x: float
    width: float
    y: float
    height: float
    centre: float
    today: bool


@dataclass(frozen=True)
class WeekTick:
    minutes: int
    y: float


@dataclass(frozen=True)
class WeekChart:
    bars: tuple[Bar, ...]
    ticks: tuple[WeekTick, ...]
    label: str  # what the image says: every day's figure
    width: int = CHART_W
    height: int = CHART_H
    left: int = CHART_LEFT
    baseline: float = CHART_H - CHART_BOTTOM


def chart(days: tuple[Day, ...]) -> WeekChart:
    """Bars of focused minutes, oldest on the left, today's marked; the label says it all."""
    top = nice_ceiling(max((d.focused_minutes for d in days), default=0))
    baseline = CHART_H - CHART_BOTTOM
    plot_h = baseline - CHART_TOP
    slot = (CHART_W - CHART_LEFT) / max(len(days), 1)
    width = slot * 0.62
    bars = []
    for index, d in enumerate(days):
        height = round(plot_h * d.focused_minutes / top, 2)
        x = CHART_LEFT + index * slot + (slot - width) / 2
        last = index == len(days) - 1
        bars.append(
            Bar(
                day=d,
                label="Today" if last else f"{d.date:%a} {d.date.day}",
                spoken=_spoken(d.date, today=last),
                x=round(x, 2),
                width=round(width, 2),
                y=round(baseline - height, 2),
                height=height,
                centre=round(x + width / 2, 2),
                today=last,
            )
        )
    figures = "; ".join(f"{b.spoken}: {_minutes(b.day.focused_minutes)}" for b in bars)
    label = f"Focused minutes per day, oldest first. {figures}."
    ticks = tuple(WeekTick(m, round(baseline - plot_h * m / top, 2)) for m in (0, top // 2, top))
    return WeekChart(tuple(bars), ticks, label)


def _spoken(day: date, *, today: bool) -> str:
    said = f"{day:%A} {day.day} {day:%B}"
    return f"today, {said}" if today else said


def _minutes(n: int) -> str:
    return f"{n} minute{'s' if n != 1 else ''}"
