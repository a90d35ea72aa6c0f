"""The insights page's view model: chart geometry inside its box, paging, the way back."""

from __future__ import annotations

from datetime import timedelta

import pytest

from antidrift.core.domain import Commitment, Outcome
from antidrift.web import insights_view as iv
from tests.fakes import START


def ended(i: int, planned: int, took: float, outcome=Outcome.MET) -> Commitment:
    start = START + timedelta(hours=i)
    return Commitment(
        f"c{i}",
        f"task {i}",
        "done",
        planned * 60,
        start,
        start + timedelta(minutes=planned),
        ended_at=start + timedelta(minutes=took),
        outcome=outcome,
    )


@pytest.mark.parametrize(
    ("minutes", "top"), [(0, 10), (9.5, 10), (14, 15), (31, 60), (61, 90), (200, 210), (479, 480)]
)
def test_the_axis_top_is_round_and_above_every_bar(minutes, top):
    assert iv.nice_ceiling(minutes) == top


def test_every_bar_stands_on_the_baseline_inside_the_drawing():
    items = [ended(i, 30, 10 + 7 * i, Outcome.MISSED if i % 2 else Outcome.MET) for i in range(8)]
    chart = iv.chart(items)
    assert len(chart.columns) == 8
    for col in chart.columns:
        assert col.planned_y + col.planned_h == pytest.approx(chart.baseline, abs=0.02)
        assert col.actual_y + col.actual_h == pytest.approx(chart.baseline, abs=0.02)
        assert col.planned_y >= iv.CHART_TOP - 0.01 and col.actual_y >= iv.CHART_TOP - 0.01
        assert col.x >= iv.CHART_LEFT and col.x + col.width <= chart.width
    tallest = max(chart.columns, key=lambda c: c.actual_minutes)
    assert tallest.actual_minutes == 59 and tallest.actual_y < iv.CHART_TOP + 3
    assert [t.minutes for t in chart.ticks] == [0, 30, 60]


def test_an_empty_history_draws_no_columns_and_no_division_by_zero():
    view = iv.build([], [], {}, [], before=None)
    assert view.chart.columns == () and view.summary.count == 0 and view.older is None


def test_a_page_knows_whether_an_older_one_exists_from_one_extra_entry():
    page = [ended(i, 30, 20) for i in range(iv.PAGE_SIZE + 1)]
    view = iv.build([], page[:5], {}, page, before=None)
    assert len(view.entries) == iv.PAGE_SIZE and view.older == page[iv.PAGE_SIZE - 1].id
    assert not view.paged and view.back == "/insights"
    last = iv.build([], [], {}, page[:3], before="c9")
    assert last.older is None and last.paged and last.back == "/insights?before=c9"


def test_a_few_commitments_draw_slim_columns_from_the_left_with_newest_under_the_last():
    chart = iv.chart([ended(i, 30, 20) for i in range(3)])
    last = chart.columns[-1]
    assert last.width < (chart.width - iv.CHART_LEFT) / 8
    assert chart.right == pytest.approx(last.x + last.width, abs=0.01)
    assert chart.right < chart.width / 2


@pytest.mark.parametrize("count", range(1, iv.CHART_COMMITMENTS + 1))
def test_the_axis_words_never_overlap_and_stay_inside_the_drawing(count):
    chart = iv.chart([ended(i, 30, 20) for i in range(count)])
    labels = chart.labels
    assert [label.text for label in labels][-1] == "newest"
    spans = sorted(label.extent for label in labels)
    for (_, end), (start, _) in zip(spans, spans[1:], strict=False):
        assert start - end >= iv.LABEL_GAP, f"{count} columns: the axis words touch"
    assert all(a >= iv.CHART_LEFT and b <= chart.width for a, b in spans)


def test_one_or_two_commitments_name_only_the_newest_and_more_both_ends():
    def words(count: int) -> list[str]:
        return [label.text for label in iv.chart([ended(i, 30, 20) for i in range(count)]).labels]

    assert words(1) == words(2) == ["newest"]
    assert words(3) == words(20) == ["older", "newest"]
    one = iv.chart([ended(0, 30, 20)])
    [label] = one.labels
    # Ending under the one column, it would run into the minutes: it starts at the axis.
    assert (label.x, label.anchor) == (iv.CHART_LEFT, "start")
    two = iv.chart([ended(i, 30, 20) for i in range(2)])
    [label] = two.labels
    assert (label.x, label.anchor) == (two.right, "end")  # under the newest column
    assert iv.chart([]).labels == ()
