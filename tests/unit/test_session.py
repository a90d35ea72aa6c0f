"""The controller's transitions over a fake clock and a fake store."""

from __future__ import annotations

import re
import threading
import time
from datetime import timedelta

import pytest

from antidrift.core.domain import (
    EXCLUDED_TITLE,
    Commitment,
    Health,
    IllegalTransitionError,
    Outcome,
    RuntimeState,
    ValidationError,
    WindowSample,
)
from tests.fakes import START, FakeCoach, FakeStore, Recorder, RecordingNotifier
from tests.support.walk import walk

LOCKED, PLANNING, ACTIVE, REVIEW = (
    RuntimeState.LOCKED,
    RuntimeState.PLANNING,
    RuntimeState.ACTIVE,
    RuntimeState.REVIEW,
)

ACTIONS = {
    "plan": lambda c: c.enter_planning(),
    "cancel": lambda c: c.cancel_planning(),
    "start": lambda c: c.start_manual_commitment("Write the intro", "Intro in the doc", 10),
    "finish": lambda c: c.finish(),
    "end": lambda c: c.end("met", ""),
}
LEGAL = {
    (LOCKED, "plan"): PLANNING,
    (PLANNING, "cancel"): LOCKED,
    (PLANNING, "start"): ACTIVE,
    (ACTIVE, "finish"): REVIEW,
    (REVIEW, "end"): LOCKED,
}
# -- the transition table -----------------------------------------------------------------------


@pytest.mark.parametrize(("state", "action"), sorted(LEGAL, key=str))
def test_each_legal_transition_moves_persists_and_notifies_once(controller, store, state, action):
    walk(controller, state)
    saves = len(store.saves)
    rec = Recorder(controller)
    controller.subscribe(rec)
    ACTIONS[action](controller)
    expected = LEGAL[(state, action)]
    assert controller.snapshot().state is expected
    assert store.state is expected
    assert len(store.saves) == saves + 1
    assert [s.state for s in rec.snapshots] == [expected]


ILLEGAL = [(s, a) for s in RuntimeState for a in ACTIONS if (s, a) not in LEGAL]


@pytest.mark.parametrize(("state", "action"), ILLEGAL)
def test_each_illegal_transition_raises_and_changes_nothing(controller, store, state, action):
    walk(controller, state)
    before = controller.snapshot()
    stored = store.snapshot()
    rec = Recorder(controller)
    controller.subscribe(rec)
    with pytest.raises(IllegalTransitionError) as err:
        ACTIONS[action](controller)
    assert err.value.message  # a sentence for the page
    after = controller.snapshot()
    assert (after.state, after.commitment, after.version) == (
        before.state,
        before.commitment,
        before.version,
    )
    assert store.snapshot() == stored
    assert len(rec) == 0


def test_invalid_plan_raises_validation_error_and_stays_in_planning(controller, store):
    controller.enter_planning()
    stored = store.snapshot()
    rec = Recorder(controller)
    controller.subscribe(rec)
    with pytest.raises(ValidationError):
        controller.start_manual_commitment("  ", "done", 10)
    with pytest.raises(ValidationError):
        controller.start_manual_commitment("a", "b", 0)
    assert controller.snapshot().state is PLANNING
    assert store.snapshot() == stored
    assert len(rec) == 0


def test_invalid_plan_while_locked_is_refused_for_the_state_first(controller, store):
    # The wrong state is the real problem: 409, not "fix your body".
    with pytest.raises(IllegalTransitionError):
        controller.start_manual_commitment("", "", "x")
    assert controller.snapshot().state is LOCKED
    assert store.saves == []


# -- the commitment itself ----------------------------------------------------------------------


def test_start_mints_an_id_and_a_deadline_from_the_clock(controller, store, clock):
    controller.enter_planning()
    c = controller.start_manual_commitment("  Write  ", " Done ", "15")
    assert c.next_action == "Write" and c.success_condition == "Done"
    assert c.timebox_secs == 900
    assert c.started_at == START
    assert c.deadline == START + timedelta(minutes=15)
    assert c.ended_at is None and c.outcome is None
    assert len(c.id) >= 32
    assert controller.snapshot().commitment == c
    assert store.current == c


def test_two_commitments_get_different_ids(controller):
    ids = set()
    for _ in range(3):
        walk(controller, ACTIVE)
        ids.add(controller.snapshot().commitment.id)
        controller.finish()
        controller.end("missed")
    assert len(ids) == 3


def test_finish_early_ends_at_now(controller, clock):
    walk(controller, ACTIVE)
    clock.advance(125)
    controller.finish()
    snap = controller.snapshot()
    assert snap.state is REVIEW
    assert snap.commitment.ended_at == START + timedelta(seconds=125)


def test_end_writes_history_and_goes_back_to_locked(controller, store, clock, reads):
    walk(controller, REVIEW)
    cid = controller.snapshot().commitment.id
    clock.advance(60)
    ended = controller.end("missed", "  got distracted  ")
    assert ended.outcome is Outcome.MISSED and ended.note == "got distracted"
    snap = controller.snapshot()
    assert snap.state is LOCKED and snap.commitment is None
    assert store.current is None
    [item] = reads.history()
    assert (item.id, item.outcome, item.note) == (cid, Outcome.MISSED, "got distracted")
    # the commitment ended when it went to review, not when the review was written
    assert item.ended_at == START


def test_end_with_a_bad_outcome_stays_in_review(controller, store):
    walk(controller, REVIEW)
    stored = store.snapshot()
    with pytest.raises(ValidationError):
        controller.end("maybe", "")
    assert controller.snapshot().state is REVIEW
    assert store.snapshot() == stored


def test_history_is_newest_first(controller, clock, reads):
    for action in ("first", "second", "third"):
        controller.enter_planning()
        controller.start_manual_commitment(action, "done", 5)
        clock.advance(10)
        controller.finish()
        controller.end("met")
    assert [c.next_action for c in reads.history()] == ["third", "second", "first"]


# -- the timebox --------------------------------------------------------------------------------


def test_timebox_expiry_moves_to_review_at_the_deadline(controller, store, clock):
    walk(controller, ACTIVE)
    deadline = controller.snapshot().commitment.deadline
    rec = Recorder(controller)
    controller.subscribe(rec)
    clock.set(deadline - timedelta(milliseconds=1))
    assert controller.expire_if_due() is False
    assert controller.snapshot().state is ACTIVE
    clock.advance(3600)  # the ticker ran late: the commitment still ends at its deadline
    assert controller.expire_if_due() is True
    snap = controller.snapshot()
    assert snap.state is REVIEW
    assert snap.commitment.ended_at == deadline
    assert store.state is REVIEW and store.current.ended_at == deadline
    assert [s.state for s in rec.snapshots] == [REVIEW]
    assert controller.expire_if_due() is False  # only once
    assert len(rec) == 1


def test_timebox_expires_exactly_at_the_deadline(controller, clock):
    walk(controller, ACTIVE)
    clock.set(controller.snapshot().commitment.deadline)
    assert controller.expire_if_due() is True


@pytest.mark.parametrize("state", [LOCKED, PLANNING, REVIEW])
def test_expiry_outside_active_does_nothing(controller, store, clock, state):
    walk(controller, state)
    clock.advance(10 * 3600)
    rec = Recorder(controller)
    controller.subscribe(rec)
    stored = store.snapshot()
    assert controller.expire_if_due() is False
    assert controller.snapshot().state is state
    assert store.snapshot() == stored and len(rec) == 0


# -- start-up -----------------------------------------------------------------------------------


def persisted_active(store: FakeStore, minutes: int = 10) -> Commitment:
    c = Commitment("c-1", "Write", "Done", minutes * 60, START, START + timedelta(minutes=minutes))
    store.save(ACTIVE, c)
    store.add_sample(c.id, WindowSample("code", "a.py", START + timedelta(seconds=5)))
    store.add_sample(c.id, WindowSample("mail", "Inbox", START + timedelta(seconds=9)))
    return c


def test_startup_resumes_an_active_commitment_and_its_last_sample(make_controller, store, clock):
    c = persisted_active(store)
    clock.advance(60)
    controller = make_controller()
    controller.start()
    snap = controller.snapshot()
    assert snap.state is ACTIVE
    assert snap.commitment == c
    assert snap.evidence.last == WindowSample("mail", "Inbox", START + timedelta(seconds=9))


def test_startup_after_the_deadline_passed_while_down_goes_to_review(make_controller, store, clock):
    c = persisted_active(store, minutes=10)
    clock.advance(timedelta(hours=5))
    controller = make_controller()
    controller.start()
    snap = controller.snapshot()
    assert snap.state is REVIEW
    assert snap.commitment.id == c.id
    assert snap.commitment.ended_at == c.deadline
    assert store.state is REVIEW and store.current.ended_at == c.deadline


class WarmingCoach(FakeCoach):
    """A coach that records each keep_warm (a warm claude started or stopped)."""

    def __init__(self) -> None:
        super().__init__()
        self.warm: list[bool] = []

    def keep_warm(self, on: bool) -> None:
        self.warm.append(on)


def test_building_a_controller_starts_nothing_and_start_takes_up_the_stored_state(
    make_controller, store, clock
):
    """A deadline passed while the server was down: the constructor saves, announces and
    notifies nothing; start() moves it to review and says so, once."""
    c = persisted_active(store, minutes=10)
    clock.advance(timedelta(hours=5))
    saves, notifier = len(store.saves), RecordingNotifier()
    controller = make_controller(notifier=notifier)
    rec = Recorder(controller)
    controller.subscribe(rec)
    assert controller.snapshot().state is ACTIVE
    assert (len(store.saves), notifier.shown, len(rec)) == (saves, [], 0)
    controller.start()
    assert controller.snapshot().state is REVIEW and store.current.ended_at == c.deadline
    assert len(notifier.shown) == 1 and len(rec) == 1
    controller.start()  # once: a second call takes up nothing again
    assert len(notifier.shown) == 1 and len(rec) == 1 and len(store.saves) == saves + 1


def test_a_restart_in_planning_warms_the_coach_at_start_not_when_built(make_controller, store):
    store.save(PLANNING, None)
    coach = WarmingCoach()
    controller = make_controller(coach)
    assert coach.warm == []
    controller.start()
    assert coach.warm == [True]
    controller.cancel_planning()
    assert coach.warm == [True, False]


@pytest.mark.parametrize("state", [PLANNING, REVIEW])
def test_startup_resumes_planning_and_review(make_controller, store, state):
    if state is REVIEW:
        c = persisted_active(store)
        store.save(REVIEW, c.stopped(START + timedelta(minutes=2)))
    else:
        store.save(PLANNING, None)
    controller = make_controller()
    controller.start()
    snap = controller.snapshot()
    assert snap.state is state
    assert (snap.coach is not None) == (state is PLANNING)


# -- persist, then notify -----------------------------------------------------------------------


def test_listeners_see_the_persisted_state(controller, store):
    seen: list[tuple[RuntimeState, RuntimeState]] = []
    controller.subscribe(lambda: seen.append((controller.snapshot().state, store.state)))
    controller.enter_planning()
    controller.start_manual_commitment("a", "b", 1)
    controller.finish()
    controller.end("met")
    assert seen == [(s, s) for s in (PLANNING, ACTIVE, REVIEW, LOCKED)]


def test_listeners_run_after_the_lock_is_released(controller):
    """A listener that reads the state from another thread would deadlock under the lock."""
    results: list[RuntimeState | None] = []

    def listener() -> None:
        box: list[RuntimeState] = []
        reader = threading.Thread(target=lambda: box.append(controller.snapshot().state))
        reader.start()
        reader.join(2.0)
        results.append(box[0] if box else None)

    controller.subscribe(listener)
    controller.enter_planning()
    controller.start_manual_commitment("a", "b", 1)
    controller.record_window("code", "x")
    assert results == [PLANNING, ACTIVE, ACTIVE]


def test_a_failing_listener_does_not_undo_the_transition_or_starve_others(controller, store):
    calls: list[str] = []

    def broken() -> None:
        raise RuntimeError("boom")

    controller.subscribe(broken)
    controller.subscribe(lambda: calls.append("second"))
    controller.enter_planning()
    assert controller.snapshot().state is PLANNING and store.state is PLANNING
    assert calls == ["second"]


def test_a_sample_the_store_refuses_changes_nothing_and_notifies_nobody(controller, store):
    walk(controller, ACTIVE)
    controller.record_window("code", "first")
    before = controller.snapshot()
    rec = Recorder(controller)
    controller.subscribe(rec)
    store.fail_samples = OSError("disk full")
    with pytest.raises(OSError):
        controller.record_window("browser", "second")
    after = controller.snapshot()
    assert after.evidence.last == before.evidence.last and after.version == before.version
    assert len(rec) == 0
    store.fail_samples = None
    assert controller.record_window("browser", "second")  # recorded once the disk is back
    assert controller.snapshot().evidence.last.title == "second" and len(rec) == 1


# -- evidence -----------------------------------------------------------------------------------


@pytest.mark.parametrize("state", [LOCKED, PLANNING, REVIEW])
def test_samples_outside_active_are_accepted_and_dropped(controller, store, state):
    walk(controller, state)
    rec = Recorder(controller)
    controller.subscribe(rec)
    assert controller.record_window("code", "main.py") is False
    assert store.sample_rows == []
    assert controller.snapshot().evidence.last is None
    assert len(rec) == 0


def test_samples_while_active_are_stored_for_that_commitment(controller, store, clock):
    walk(controller, ACTIVE)
    cid = controller.snapshot().commitment.id
    rec = Recorder(controller)
    controller.subscribe(rec)
    clock.advance(3)
    assert controller.record_window("code", "main.py") is True
    explicit = START + timedelta(seconds=5)
    assert controller.record_window("firefox", "docs", explicit) is True
    assert store.samples(cid) == [
        WindowSample("code", "main.py", START + timedelta(seconds=3)),
        WindowSample("firefox", "docs", explicit),
    ]
    assert controller.snapshot().evidence.last == WindowSample("firefox", "docs", explicit)
    assert len(rec) == 2


def test_an_older_sample_is_stored_but_does_not_become_the_last(controller, clock, store):
    walk(controller, ACTIVE)
    clock.advance(20)
    controller.record_window("code", "new")
    controller.record_window("mail", "old", START + timedelta(seconds=1))
    assert controller.snapshot().evidence.last.title == "new"
    assert len(store.samples(controller.snapshot().commitment.id)) == 2


def test_excluded_titles_are_stored_as_excluded(make_controller, store):
    controller = make_controller(exclude_titles=re.compile("bank|private", re.IGNORECASE))
    walk(controller, ACTIVE)
    controller.record_window("firefox", "My Bank — statement")
    controller.record_window("code", "notes.txt")
    titles = [s.title for _, s in store.sample_rows]
    assert titles == [EXCLUDED_TITLE, "notes.txt"]
    assert all("Bank" not in s.title for _, s in store.sample_rows)
    assert controller.snapshot().evidence.last.title == "notes.txt"


def test_evidence_health_follows_the_newest_sample(controller, clock):
    walk(controller, ACTIVE)
    assert controller.snapshot().evidence.health is Health.UNAVAILABLE
    controller.record_window("code", "x")
    assert controller.snapshot().evidence.health is Health.HEALTHY
    clock.advance(30)
    assert controller.snapshot().evidence.health is Health.HEALTHY
    clock.advance(1)
    assert controller.snapshot().evidence.health is Health.STALE


def test_a_running_sampler_is_healthy_during_its_grace_then_stale(make_controller, clock):
    controller = make_controller()
    controller.set_watcher(True)
    walk(controller, ACTIVE)
    assert controller.snapshot().evidence.health is Health.HEALTHY
    clock.advance(31)
    assert controller.snapshot().evidence.health is Health.STALE


def test_the_last_sample_does_not_carry_over_to_the_next_commitment(controller):
    walk(controller, ACTIVE)
    controller.record_window("code", "x")
    controller.finish()
    assert controller.snapshot().evidence.last is None  # review shows no live sample
    controller.end("met")
    walk(controller, ACTIVE)
    assert controller.snapshot().evidence.last is None


# -- concurrency --------------------------------------------------------------------------------


def test_evidence_recorded_from_many_threads_during_transitions_keeps_the_invariants(
    controller, store, clock
):
    stop = threading.Event()
    errors: list[BaseException] = []
    recorded = [0] * 8
    notified = [0]
    lock = threading.Lock()

    def count() -> None:
        with lock:
            notified[0] += 1

    controller.subscribe(count)

    def recorder(index: int) -> None:
        try:
            while not stop.is_set():
                if controller.record_window(f"app{index}", f"title {index}"):
                    recorded[index] += 1
                _ = controller.snapshot()
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=recorder, args=(i,)) for i in range(len(recorded))]
    for t in threads:
        t.start()
    transitions = 0
    try:
        for _ in range(60):
            for step in ("plan", "start", "finish", "end"):
                clock.advance(1)
                ACTIONS[step](controller)
                transitions += 1
                if step == "start":  # let the recorders in while active, even on a busy CI
                    seen = len(store.sample_rows)
                    deadline = time.monotonic() + 1
                    while len(store.sample_rows) == seen and time.monotonic() < deadline:
                        time.sleep(0.0005)
            controller.enter_planning()
            controller.cancel_planning()
            transitions += 2
    finally:
        stop.set()
        for t in threads:
            t.join(5)
    assert errors == []
    assert sum(recorded) == len(store.sample_rows) > 0
    with lock:
        assert notified[0] == transitions + sum(recorded)
    # No sample belongs to anything but a commitment, and each lies within its active span.
    for cid, sample in store.sample_rows:
        c = store.commitments[cid]
        assert c.started_at <= sample.at <= c.ended_at
    assert {cid for cid, _ in store.sample_rows} <= set(store.commitments)
    assert controller.snapshot().state is LOCKED
    assert len(store.history(limit=1000)) == 60


# -- review fixes: health outside active, bounded samples, unbounded history ---------------------


@pytest.mark.parametrize("running, health", [(True, "healthy"), (False, "unavailable")])
def test_outside_active_health_only_says_whether_a_watcher_runs(make_controller, running, health):
    controller = make_controller()
    controller.set_watcher(running)
    assert controller.snapshot().evidence.health.value == health
    controller.enter_planning()
    assert controller.snapshot().evidence.health.value == health


def test_a_sample_from_any_source_is_bounded_to_500_characters(controller, store):
    controller.enter_planning()
    c = controller.start_manual_commitment("Write", "Done", "10")
    controller.record_window("a" * 900, "t" * 70_000)
    (sample,) = store.samples(c.id)
    assert (len(sample.app), len(sample.title)) == (500, 500)


def test_history_is_every_ended_commitment_not_the_newest_hundred(controller, clock, reads):
    for _ in range(105):
        controller.enter_planning()
        controller.start_manual_commitment("Write", "Done", "10")
        clock.advance(60)
        controller.finish()
        controller.end("met")
    assert len(reads.history()) == 105
