"""Time per window has one definition, `domain.time_shares`: each sample counts until the next
one (or the end), at most a minute. The store sums it in SQL (one CTE for the page's figures,
the time per app kept with each ended commitment, and the rebuild after an import); these
properties hold every one of those queries to the domain's definition."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from antidrift.core import insights
from antidrift.core.domain import (
    Commitment,
    Outcome,
    RuntimeState,
    WindowSample,
    app_shares,
    time_shares,
)
from antidrift.store.sqlite import SQLiteStore
from tests.fakes import START
from tests.support.store import committing

samples = st.lists(
    st.tuples(
        st.sampled_from(["code", "mail", "chat"]),
        st.sampled_from(["", "a", "b"]),
        st.integers(0, 400),  # seconds after the start: repeats, and gaps over a minute
    ),
    max_size=30,
)
took = st.integers(0, 10)  # minutes until the end: samples may lie after it
quick = settings(max_examples=40, deadline=None)


def ended(store: SQLiteStore, cid: str, rows, minutes_taken: int, start=START):
    """One commitment through active → review → history; returns (its samples, its end)."""
    c = Commitment(cid, "do it", "done", 600, start, start + timedelta(minutes=10))
    store.save(RuntimeState.ACTIVE, c)
    added = [WindowSample(app, title, start + timedelta(seconds=s)) for app, title, s in rows]
    for sample in added:
        store.add_sample(cid, sample)
    stopped = c.stopped(start + timedelta(minutes=minutes_taken))
    store.save(RuntimeState.REVIEW, stopped)
    store.save(RuntimeState.LOCKED, stopped.ended(stopped.ended_at, Outcome.MET, ""))
    return added, stopped.ended_at


def near(values: dict) -> dict:
    """Rounded, and without zero entries (SQL keeps a window with no time; so may Python)."""
    return {key: round(secs, 3) for key, secs in values.items() if round(secs, 3)}


@quick
@given(rows=samples, minutes_taken=took)
def test_a_commitments_time_per_window_and_per_app_in_sql_is_the_domains(rows, minutes_taken):
    store = committing(":memory:")
    try:
        added, end = ended(store, "c", rows, minutes_taken)
        got = store.window_time("c", end, top=1000)
        want = time_shares(added, end)
        assert near({(w.app, w.title): w.seconds for w in got.windows}) == near(
            {(w.app, w.title): w.seconds for w in want}
        )
        assert near({a.app: a.seconds for a in got.apps}) == near(
            {a.app: a.seconds for a in app_shares(want)}
        )
        assert got.sample_count == len(rows)
    finally:
        store.close()


@quick
@given(rows=samples, minutes_taken=took, top=st.integers(1, 4))
def test_the_top_windows_are_the_domains_largest(rows, minutes_taken, top):
    store = committing(":memory:")
    try:
        added, end = ended(store, "c", rows, minutes_taken)
        got = store.window_time("c", end, top=top)
        want = time_shares(added, end)[:top]
        # Equal times may come in either order: the sizes are what must agree.
        assert [round(w.seconds, 3) for w in got.windows] == [round(w.seconds, 3) for w in want]
    finally:
        store.close()


@quick
@given(commitments=st.lists(st.tuples(samples, took), min_size=1, max_size=3))
def test_time_per_app_kept_at_each_end_and_rebuilt_after_an_import_is_the_domains(
    commitments,
):
    store = committing(":memory:")
    try:
        want: Counter = Counter()
        for n, (rows, minutes_taken) in enumerate(commitments):
            added, end = ended(store, f"c{n}", rows, minutes_taken, START + timedelta(hours=n))
            for share in app_shares(time_shares(added, end)):
                want[share.app] += share.seconds
        assert near(store.app_totals()) == near(want)
        store.rebuild_app_time()
        assert near(store.app_totals()) == near(want)
    finally:
        store.close()


def test_a_sample_counts_until_the_next_at_most_a_minute():
    # The definition itself, in one worked example, so the properties above hold a known thing.
    rows = [("code", "a", 0), ("mail", "", 30), ("code", "a", 200), ("chat", "b", 230)]
    store = committing(":memory:")
    try:
        _, end = ended(store, "c", rows, 4)  # ends at 240 s
        got = {(w.app, w.title): w.seconds for w in store.window_time("c", end).windows}
    finally:
        store.close()
    assert got == pytest.approx({("code", "a"): 30 + 30, ("mail", ""): 60, ("chat", "b"): 10})


sited = st.lists(
    st.tuples(
        st.sampled_from(["code", "firefox"]),
        st.sampled_from(["a", "b"]),
        st.sampled_from([None, "youtube.com", "docs.python.org"]),
        st.integers(0, 400),
    ),
    max_size=30,
)


@quick
@given(rows=sited, minutes_taken=took)
def test_a_browser_s_time_is_counted_per_site_in_sql_as_in_the_reference(rows, minutes_taken):

    store = committing(":memory:")
    try:
        c = Commitment("c", "do it", "done", 600, START, START + timedelta(minutes=10))
        store.save(RuntimeState.ACTIVE, c)
        added = [
            WindowSample(app, title, START + timedelta(seconds=s), site=site)
            for app, title, site, s in rows
        ]
        for sample in added:
            store.add_sample("c", sample)
        stopped = c.stopped(START + timedelta(minutes=minutes_taken))
        store.save(RuntimeState.REVIEW, stopped)
        store.save(RuntimeState.LOCKED, stopped.ended(stopped.ended_at, Outcome.MET, ""))
        got = store.window_time("c", stopped.ended_at, top=1000)
        want = insights.window_time(added, stopped.ended_at, top=1000)
        assert near({a.app: a.seconds for a in got.apps}) == near(
            {a.app: a.seconds for a in want.apps}
        )
        assert near({(w.app, w.title): w.seconds for w in got.windows}) == near(
            {(w.app, w.title): w.seconds for w in want.windows}
        )
        assert near(store.app_totals()) == near({a.app: a.seconds for a in want.apps})
        # Per window and place (the week's distractions): the same split, window by window.
        split = store.place_time("c", stopped.ended_at)
        assert near(split) == near(insights.place_time(added, stopped.ended_at))
        per_place: Counter = Counter()
        for (_, _, place), secs in split.items():
            per_place[place] += secs
        assert near(per_place) == near({a.app: a.seconds for a in got.apps})
        # The places are sites for a browser's pages and apps for the rest.
        places = {a.app for a in got.apps}
        assert places <= {"code", "firefox", "youtube.com", "docs.python.org"}
        assert ("youtube.com" in places) == any(site == "youtube.com" for *_, site, _ in rows)
        sites = Counter(site for *_, site, _ in rows if site)
        top = store.top_sites(["c"]).get("c")
        assert top == (min(sites, key=lambda s: (-sites[s], s)) if sites else None)
    finally:
        store.close()
