"""History corrections (under the controller's lock): validated, 404 for the unknown, announced."""

from __future__ import annotations

import pytest

from antidrift.core.domain import NotFound, Outcome, RuntimeState, ValidationError


def finish_one(controller, clock, outcome="missed", note="") -> str:
    controller.enter_planning()
    c = controller.start_manual_commitment("Write", "Done", "10")
    clock.advance(120)
    controller.finish()
    controller.end(outcome, note)
    return c.id


def test_a_correction_changes_the_outcome_and_note_and_is_announced(controller, clock, reads):
    cid = finish_one(controller, clock)
    calls = []
    controller.subscribe(lambda: calls.append(1))
    fixed = controller.corrections.correct(cid, "met", "  it was met  ")
    assert (fixed.outcome, fixed.note) == (Outcome.MET, "it was met")
    assert reads.history()[0] == fixed
    assert calls == [1]


def test_a_bad_correction_changes_nothing(controller, clock, store):
    cid = finish_one(controller, clock)
    before = store.snapshot()
    with pytest.raises(ValidationError):
        controller.corrections.correct(cid, "maybe", "")
    assert store.snapshot() == before


def test_the_running_commitment_cannot_be_corrected_or_removed(controller, clock, store):
    controller.enter_planning()
    running = controller.start_manual_commitment("Write", "Done", "10")
    before = store.snapshot()
    with pytest.raises(NotFound):
        controller.corrections.correct(running.id, "met", "")
    with pytest.raises(NotFound):
        controller.corrections.remove(running.id)
    assert store.snapshot() == before
    assert controller.snapshot().state is RuntimeState.ACTIVE


def test_removing_an_entry_deletes_it_and_its_samples(controller, clock, store, reads):
    controller.enter_planning()
    c = controller.start_manual_commitment("Write", "Done", "10")
    controller.record_window("code", "a.py")
    clock.advance(30)
    controller.finish()
    controller.end("met")
    controller.corrections.remove(c.id)
    assert reads.history() == [] and store.samples(c.id) == []
    with pytest.raises(NotFound):
        controller.corrections.remove(c.id)


def test_paging_from_an_unknown_id_is_not_found(controller, clock, reads):
    finish_one(controller, clock)
    with pytest.raises(NotFound):
        reads.history(limit=5, before="nope")


def test_the_coach_gets_the_track_record_once_three_commitments_have_ended(
    controller, clock, fake_coach
):
    for n, expected in enumerate((0, 0, 0, 3), 1):
        controller.enter_planning()
        controller.coaching.request("write")
        call = fake_coach.wait_calls(n)[-1]
        call.finished.wait(5)
        assert len(call.track_record) == expected
        controller.start_manual_commitment("Write", "Done", "10")
        clock.advance(120)
        controller.finish()
        controller.end("missed")
    # Newest first: planned 10, took 2, missed.
    line = call.track_record[0]
    assert (line.planned_minutes, line.actual_minutes, line.outcome) == (10, 2, "missed")


def test_a_store_that_cannot_read_the_record_does_not_stop_the_coach(
    make_controller, clock, store, fake_coach
):
    controller = make_controller(fake_coach)
    for _ in range(3):
        finish_one(controller, clock)

    def broken(limit=None):
        raise OSError("disk gone")

    store.ended_figures = broken
    controller.enter_planning()
    controller.coaching.request("write")
    call = fake_coach.wait_calls(1)[0]
    call.finished.wait(5)
    assert call.outcome == "returned" and call.track_record == ()


def test_calibration_speaks_once_three_have_ended(controller, clock, reads):
    assert reads.calibration() is None
    for _ in range(3):
        finish_one(controller, clock)
    assert reads.calibration().sentence() == "Your 10-minute plans took 2 minutes on average."
