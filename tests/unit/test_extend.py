"""Extend: more time while active, or a timebox that ran out reopened; the plan stays."""

from __future__ import annotations

import sqlite3
from datetime import timedelta

import pytest

from antidrift.core.domain import (
    Commitment,
    IllegalTransitionError,
    RuntimeState,
    ValidationError,
    parse_extend_minutes,
)
from antidrift.store import opening as database
from antidrift.store.migrations import MIGRATIONS
from antidrift.store.sqlite import SQLiteStore
from tests.fakes import START
from tests.support.store import committing
from tests.support.walk import walk

ACTIVE, REVIEW = RuntimeState.ACTIVE, RuntimeState.REVIEW


# -- domain ------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["1", 1, "120", 120, " 5 "])
def test_extend_minutes_within_1_to_120_are_accepted(value):
    assert 1 <= parse_extend_minutes(value) <= 120


@pytest.mark.parametrize("value", ["0", 0, "121", 121, "-5", "5.5", "", None, True, "ten", [5]])
def test_extend_minutes_outside_1_to_120_are_refused_naming_the_field(value):
    with pytest.raises(ValidationError) as err:
        parse_extend_minutes(value)
    assert err.value.field == "minutes"
    assert "1 to 120" in err.value.message


# -- controller --------------------------------------------------------------------------------


def test_extend_while_active_moves_the_deadline_and_keeps_the_plan(controller, clock, store):
    started = walk(controller, "active")
    clock.advance(120)
    extended = controller.extend("5")
    assert extended.deadline == started.deadline + timedelta(minutes=5)
    assert (extended.timebox_secs, extended.extended_secs) == (600, 300)
    snap = controller.snapshot()
    assert snap.state is ACTIVE and snap.commitment == extended
    assert store.current == extended  # persisted
    controller.extend(10)
    assert controller.snapshot().commitment.extended_secs == 900


def test_extend_after_the_timebox_ran_out_reopens_it_from_now(controller, clock, store):
    started = walk(controller, "active")
    clock.advance(600)
    assert controller.expire_if_due()
    clock.advance(90)  # the person reads the review for a while
    now = clock.now()
    extended = controller.extend(10)
    assert controller.snapshot().state is ACTIVE
    assert extended.deadline == now + timedelta(minutes=10)
    assert extended.ended_at is None
    assert (extended.id, extended.started_at) == (started.id, started.started_at)
    assert extended.extended_secs == 600
    assert store.state is ACTIVE and store.current == extended
    # and it can run out again
    clock.advance(600)
    assert controller.expire_if_due()
    assert controller.snapshot().commitment.ran_out


def test_extend_of_a_deadline_passed_but_not_yet_expired_counts_from_now(controller, clock):
    walk(controller, "active")
    clock.advance(605)  # the ticker has not run yet
    now = clock.now()
    assert controller.extend(5).deadline == now + timedelta(minutes=5)


def test_extend_after_finishing_by_hand_is_refused(controller, clock, store):
    walk(controller, "active")
    clock.advance(60)
    controller.finish()
    before = store.snapshot()
    with pytest.raises(IllegalTransitionError):
        controller.extend(5)
    assert store.snapshot() == before
    assert controller.snapshot().state is REVIEW


@pytest.mark.parametrize("state", ["locked", "planning"])
def test_extend_without_a_commitment_is_refused(controller, store, state):
    if state == "planning":
        controller.enter_planning()
    before = store.snapshot()
    with pytest.raises(IllegalTransitionError):
        controller.extend(5)
    assert store.snapshot() == before


def test_the_state_is_checked_before_the_minutes(controller):
    with pytest.raises(IllegalTransitionError):
        controller.extend("nonsense")


def test_a_total_over_480_minutes_is_refused_and_changes_nothing(controller, store):
    walk(controller, "active", timebox_minutes=400)
    controller.extend(80)  # exactly 480: fine
    before = store.snapshot()
    with pytest.raises(ValidationError) as err:
        controller.extend(1)
    assert "481" in err.value.message and "480" in err.value.message
    assert store.snapshot() == before
    assert controller.snapshot().commitment.extended_secs == 80 * 60


def test_a_bad_minutes_value_changes_nothing(controller, store):
    walk(controller, "active")
    before = store.snapshot()
    with pytest.raises(ValidationError):
        controller.extend("121")
    assert store.snapshot() == before


# -- store -------------------------------------------------------------------------------------


def test_extended_secs_and_the_moved_deadline_survive_a_reopen(tmp_path):
    path = tmp_path / "db.sqlite3"
    c = Commitment("c-1", "Write", "Done", 600, START, START + timedelta(minutes=10))
    s = committing(path)
    s.save(ACTIVE, c)
    moved = c.extend(15, START + timedelta(minutes=2))
    s.save(ACTIVE, moved)
    s.close()
    again = SQLiteStore(path)
    try:
        loaded = again.load().commitment
        assert loaded.deadline == START + timedelta(minutes=25)
        assert (loaded.timebox_secs, loaded.extended_secs) == (600, 900)
    finally:
        again.close()


def test_migration_2_adds_extended_secs_to_a_version_1_database(tmp_path, monkeypatch):
    path = tmp_path / "db.sqlite3"
    monkeypatch.setattr(database, "MIGRATIONS", [m for m in MIGRATIONS if m[0] == 1])
    old = SQLiteStore(path)
    db = sqlite3.connect(path)
    db.execute(
        "INSERT INTO commitments (id, next_action, success_condition, timebox_secs, started_at,"
        " deadline, ended_at, outcome, note) VALUES ('old', 'a', 'b', 600, ?, ?, ?, 'met', '')",
        (START.isoformat(), (START + timedelta(minutes=10)).isoformat(), START.isoformat()),
    )
    db.commit()
    db.close()
    old.close()
    monkeypatch.setattr(database, "MIGRATIONS", MIGRATIONS)
    new = SQLiteStore(path)
    try:
        [row] = new.history()
        assert (row.id, row.extended_secs) == ("old", 0)
    finally:
        new.close()
