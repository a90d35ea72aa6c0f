"""The coach orchestration: async calls, the generation guard, cancellation, never persisted."""

from __future__ import annotations

import dataclasses
import time

import pytest

from antidrift.ai import CLITimeout, Proposal
from antidrift.core.domain import (
    IllegalTransitionError,
    NotPlanning,
    Plan,
    RuntimeState,
    ValidationError,
)
from antidrift.core.ports import Persisted
from antidrift.session.snapshot import CoachStatus
from tests.fakes import FakeCoach, Recorder, wait_until

P1 = Proposal("Outline the report", "Five headings in the doc", 30)
P2 = Proposal("Draft the summary", "Three paragraphs written", 45)


def plan(p: Proposal) -> Plan:
    """The plan the controller offers for a proposal (the domain validated it)."""
    return Plan(p.next_action, p.success_condition, p.timebox_minutes * 60)


def planning(controller) -> Recorder:
    controller.enter_planning()
    rec = Recorder(controller)
    controller.subscribe(rec)
    return rec


def status(controller) -> str | None:
    coach = controller.snapshot().coach
    return coach.status if coach else None


def settle(seconds: float = 0.05) -> None:
    """Give a discarded result time to (wrongly) show up; used only to prove an absence."""
    time.sleep(seconds)


# -- the happy path and its failures ------------------------------------------------------------


def test_request_goes_pending_then_ready_and_notifies_twice(make_controller):
    coach = FakeCoach(P1, gated=True)
    controller = make_controller(coach)
    rec = planning(controller)
    controller.coaching.request("  write the report  ")
    assert rec.statuses == [CoachStatus.PENDING]
    pending = controller.snapshot().coach
    assert pending.proposal is None and pending.pending_since is not None
    [call] = coach.wait_calls(1)
    assert call.intent == "write the report"  # trimmed before it reaches the coach
    coach.release()
    wait_until(lambda: len(rec) >= 2)
    settle()
    assert rec.statuses == [CoachStatus.PENDING, CoachStatus.READY]
    ready = controller.snapshot().coach
    assert ready.proposal == plan(P1)
    assert ready.proposal_id and ready.error is None
    assert controller.snapshot().state is RuntimeState.PLANNING


def test_each_ready_proposal_has_its_own_id(make_controller):
    controller = make_controller(FakeCoach(P1, P2))
    planning(controller)
    ids = []
    for intent in ("one", "two"):
        controller.coaching.request(intent)
        wait_until(lambda: status(controller) == CoachStatus.READY)
        ids.append(controller.snapshot().coach.proposal_id)
    assert ids[0] != ids[1]
    other = make_controller(FakeCoach(P1))  # a restarted server: same store, still planning
    assert other.snapshot().state is RuntimeState.PLANNING
    other.coaching.request("one")
    wait_until(lambda: status(other) == CoachStatus.READY)
    assert other.snapshot().coach.proposal_id not in ids  # unique across restarts too


def test_a_coach_error_goes_pending_then_error_with_its_message(make_controller):
    controller = make_controller(FakeCoach(CLITimeout(60)))
    rec = planning(controller)
    controller.coaching.request("write")
    wait_until(lambda: len(rec) >= 2)
    assert rec.statuses == [CoachStatus.PENDING, CoachStatus.ERROR]
    coach = controller.snapshot().coach
    assert coach.error == "the coach took longer than 60 s"
    assert coach.proposal is None


def test_an_unexpected_exception_becomes_a_plain_error_not_a_crash(make_controller):
    controller = make_controller(FakeCoach(RuntimeError("secret raw output")))
    rec = planning(controller)
    controller.coaching.request("write")
    wait_until(lambda: len(rec) >= 2)
    coach = controller.snapshot().coach
    assert coach.status == CoachStatus.ERROR
    assert "secret raw output" not in coach.error
    assert "unexpectedly" in coach.error


def test_no_coach_means_status_error_coach_unavailable_and_no_exception(make_controller):
    controller = make_controller(None, coach_unavailable="coach unavailable — set X")
    rec = planning(controller)
    controller.coaching.request("write")  # no exception
    assert rec.statuses == [CoachStatus.ERROR]
    coach = controller.snapshot().coach
    assert coach.error.startswith("coach unavailable")
    assert coach.error == "coach unavailable — set X"
    # manual planning still works
    controller.start_manual_commitment("a", "b", 5)
    assert controller.snapshot().state is RuntimeState.ACTIVE


@pytest.mark.parametrize("state", ["locked", "active", "review"])
def test_outside_planning_is_not_planning_with_no_change_and_no_call(make_controller, state):
    coach = FakeCoach(P1)
    controller = make_controller(coach)
    if state != "locked":
        controller.enter_planning()
        controller.start_manual_commitment("a", "b", 5)
        if state == "review":
            controller.finish()
    before = controller.snapshot()
    rec = Recorder(controller)
    controller.subscribe(rec)
    with pytest.raises(NotPlanning):
        controller.coaching.request("write")
    with pytest.raises(IllegalTransitionError):  # cancel is a transition: 409, not 400
        controller.coaching.cancel()
    settle()
    after = controller.snapshot()
    assert (after.state, after.commitment, after.version) == (
        before.state,
        before.commitment,
        before.version,
    )
    assert after.coach is None
    assert coach.calls == [] and len(rec) == 0


@pytest.mark.parametrize("intent", ["", "   ", None, "x" * 2001, 17])
def test_a_bad_intent_is_a_validation_error_and_changes_nothing(make_controller, intent):
    coach = FakeCoach(P1)
    controller = make_controller(coach)
    rec = planning(controller)
    before = controller.snapshot()
    with pytest.raises(ValidationError):
        controller.coaching.request(intent)
    settle()
    after = controller.snapshot()
    assert after.coach == before.coach and after.version == before.version
    assert coach.calls == [] and len(rec) == 0


def test_a_bad_intent_does_not_disturb_a_running_call(make_controller):
    coach = FakeCoach(P1, gated=True)
    controller = make_controller(coach)
    planning(controller)
    controller.coaching.request("good")
    [call] = coach.wait_calls(1)
    with pytest.raises(ValidationError):
        controller.coaching.request("")
    assert not call.scope.cancelled
    coach.release()
    wait_until(lambda: status(controller) == CoachStatus.READY)


# -- the generation guard -----------------------------------------------------------------------


@pytest.mark.parametrize("honour_cancel", [True, False])
def test_a_superseded_call_is_cancelled_and_only_the_newest_result_is_projected(
    make_controller, honour_cancel
):
    coach = FakeCoach(P1, P2, gated=True, honour_cancel=honour_cancel)
    controller = make_controller(coach)
    rec = planning(controller)
    controller.coaching.request("first")
    first = coach.wait_calls(1)[0]
    controller.coaching.request("second")
    assert first.scope.cancelled  # the first call's CLI is killed at once
    second = coach.wait_calls(2)[1]
    assert not second.scope.cancelled
    # The slow first call comes back only after the second: it must not be projected.
    coach.release(1)
    wait_until(lambda: status(controller) == CoachStatus.READY)
    coach.release(0)
    assert first.finished.wait(2)
    settle()
    assert controller.snapshot().coach.proposal == plan(P2)
    assert rec.statuses == [CoachStatus.PENDING, CoachStatus.PENDING, CoachStatus.READY]


def test_a_stale_result_arriving_while_the_newer_call_runs_is_discarded(make_controller):
    coach = FakeCoach(P1, P2, gated=True, honour_cancel=False)
    controller = make_controller(coach)
    rec = planning(controller)
    controller.coaching.request("first")
    coach.wait_calls(1)
    controller.coaching.request("second")
    coach.wait_calls(2)
    coach.release(0)
    assert coach.calls[0].finished.wait(2)
    settle()
    assert status(controller) == CoachStatus.PENDING
    coach.release(1)
    wait_until(lambda: status(controller) == CoachStatus.READY)
    assert controller.snapshot().coach.proposal == plan(P2)
    assert rec.statuses == [CoachStatus.PENDING, CoachStatus.PENDING, CoachStatus.READY]


def test_ten_quick_requests_start_the_coach_at_most_twice_and_project_the_last(make_controller):
    results = [Proposal(f"Step {i}", f"Done {i}", i + 1) for i in range(10)]
    coach = FakeCoach(*results, gated=True, poll=0.2)  # slow to notice: workers stay busy
    controller = make_controller(coach)
    planning(controller)
    controller.coaching.request("intent 0")
    coach.wait_calls(1)
    for i in range(1, 10):
        controller.coaching.request(f"intent {i}")
    wait_until(lambda: "intent 9" in coach.intents)
    coach.release_all()
    wait_until(lambda: status(controller) == CoachStatus.READY)
    settle(0.1)
    started = coach.intents
    # The first call was running; at most one more slipped into a free worker before it
    # was superseded; the queued stale ones never started. The last one always runs.
    assert started[0] == "intent 0" and started[-1] == "intent 9"
    assert len(started) <= 3, started
    assert set(started) <= {"intent 0", "intent 1", "intent 9"}
    assert all(c.scope.cancelled for c in coach.calls[:-1])
    proposal = controller.snapshot().coach.proposal
    # Results are handed out in call order, so the last call got the next queued answer.
    assert proposal == plan(results[len(started) - 1])
    assert controller.snapshot().coach.status == CoachStatus.READY


# -- leaving planning, cancelling, shutting down ------------------------------------------------


def test_leaving_planning_while_pending_discards_the_call(make_controller):
    coach = FakeCoach(P1, gated=True, honour_cancel=False)
    controller = make_controller(coach)
    rec = planning(controller)
    controller.coaching.request("write")
    [call] = coach.wait_calls(1)
    controller.start_manual_commitment("manual", "done", 5)
    assert call.scope.cancelled
    assert controller.snapshot().coach is None
    coach.release()
    assert call.finished.wait(2)
    settle()
    snap = controller.snapshot()
    assert snap.state is RuntimeState.ACTIVE and snap.coach is None
    assert snap.commitment.next_action == "manual"
    assert [s.state for s in rec.snapshots] == [RuntimeState.PLANNING, RuntimeState.ACTIVE]


def test_a_late_result_after_cancel_and_replan_does_not_leak_into_the_new_planning(
    make_controller,
):
    coach = FakeCoach(P1, gated=True, honour_cancel=False)
    controller = make_controller(coach)
    planning(controller)
    controller.coaching.request("write")
    [call] = coach.wait_calls(1)
    controller.cancel_planning()
    controller.enter_planning()
    coach.release()
    assert call.finished.wait(2)
    settle()
    assert controller.snapshot().coach.status == CoachStatus.IDLE


def test_a_ready_proposal_is_gone_once_active_and_planning_starts_idle_again(make_controller):
    controller = make_controller(FakeCoach(P1))
    planning(controller)
    controller.coaching.request("write")
    wait_until(lambda: status(controller) == CoachStatus.READY)
    controller.start_manual_commitment(P1.next_action, P1.success_condition, 30)
    assert controller.snapshot().coach is None
    controller.finish()
    controller.end("met")
    controller.enter_planning()
    coach = controller.snapshot().coach
    assert coach.status == CoachStatus.IDLE and coach.proposal is None


def test_cancel_coach_goes_idle_kills_the_call_and_drops_its_result(make_controller):
    coach = FakeCoach(P1, gated=True, honour_cancel=False)
    controller = make_controller(coach)
    rec = planning(controller)
    controller.coaching.request("write")
    [call] = coach.wait_calls(1)
    controller.coaching.cancel()
    assert call.scope.cancelled
    assert status(controller) == CoachStatus.IDLE
    coach.release()
    assert call.finished.wait(2)
    settle()
    assert status(controller) == CoachStatus.IDLE
    assert rec.statuses == [CoachStatus.PENDING, CoachStatus.IDLE]


def test_cancel_coach_also_clears_a_ready_proposal(make_controller):
    controller = make_controller(FakeCoach(P1))
    planning(controller)
    controller.coaching.request("write")
    wait_until(lambda: status(controller) == CoachStatus.READY)
    controller.coaching.cancel()
    coach = controller.snapshot().coach
    assert coach.status == CoachStatus.IDLE and coach.proposal is None


def test_shutdown_cancels_a_running_call_and_later_requests_say_unavailable(make_controller):
    coach = FakeCoach(P1, gated=True)
    controller = make_controller(coach)
    planning(controller)
    controller.coaching.request("write")
    [call] = coach.wait_calls(1)
    controller.shutdown()
    assert call.scope.cancelled
    assert call.finished.wait(2)
    assert status(controller) == CoachStatus.IDLE
    controller.coaching.request("again")  # must not raise
    coach_view = controller.snapshot().coach
    assert coach_view.status == CoachStatus.ERROR
    assert coach_view.error.startswith("coach unavailable")
    settle()
    assert len(coach.calls) == 1


# -- never persisted ----------------------------------------------------------------------------


def test_coach_activity_writes_nothing_to_the_store(make_controller, store):
    controller = make_controller(FakeCoach(P1, CLITimeout(5)))
    planning(controller)
    stored = store.snapshot()
    controller.coaching.request("write")
    wait_until(lambda: status(controller) == CoachStatus.READY)
    controller.coaching.request("again")
    wait_until(lambda: status(controller) == CoachStatus.ERROR)
    controller.coaching.cancel()
    assert store.snapshot() == stored


def test_saved_records_carry_no_coach_fields(make_controller, store):
    controller = make_controller(FakeCoach(P1))
    planning(controller)
    controller.coaching.request("INTENT-7f3a the quarterly report")
    wait_until(lambda: status(controller) == CoachStatus.READY)
    proposal_id = controller.snapshot().coach.proposal_id
    controller.start_manual_commitment("a", "b", 5)  # the user typed their own plan
    fields = {f.name for f in dataclasses.fields(Persisted)}
    assert fields == {"state", "commitment", "samples"}
    for state, commitment in store.saves:
        assert isinstance(state, RuntimeState)
        if commitment is not None:
            names = {f.name for f in dataclasses.fields(commitment)}
            assert not {n for n in names if "coach" in n or "proposal" in n or "intent" in n}
    # Neither the intent, nor the proposal the user did not take, nor its id, is stored.
    stored = repr((store.snapshot(), store.saves))
    for secret in ("INTENT-7f3a", P1.next_action, P1.success_condition, proposal_id):
        assert secret not in stored, secret


def test_a_restart_during_ready_comes_back_idle(make_controller, store):
    controller = make_controller(FakeCoach(P1))
    planning(controller)
    controller.coaching.request("write")
    wait_until(lambda: status(controller) == CoachStatus.READY)
    controller.shutdown()
    again = make_controller(FakeCoach())
    snap = again.snapshot()
    assert snap.state is RuntimeState.PLANNING
    assert snap.coach.status == CoachStatus.IDLE and snap.coach.proposal is None


@pytest.mark.parametrize("minutes", [1, 480])
def test_a_proposal_at_the_domains_bounds_is_ready_and_starts_as_is(make_controller, minutes):
    """What the page submits from a ready proposal is a plan the domain takes unchanged."""
    controller = make_controller(FakeCoach(Proposal("Write", "Done", minutes)))
    planning(controller)
    controller.coaching.request("write")
    wait_until(lambda: status(controller) == CoachStatus.READY)
    p = controller.snapshot().coach.proposal
    c = controller.start_manual_commitment(p.next_action, p.success_condition, p.timebox_secs // 60)
    assert (c.next_action, c.success_condition, c.timebox_secs) == ("Write", "Done", minutes * 60)
