"""The controller's history corrections: validated, 404 for the unknown, announced."""

from __future__ import annotations

import pytest

from antidrift.domain import NotFound, Outcome, RuntimeState, ValidationError


def finish_one(controller, clock, outcome="missed", note="") -> str:
    controller.enter_planning()
    c = controller.start_manual_commitment("Write", "Done", "10")
    clock.advance(120)
    controller.finish()
    controller.end(outcome, note)
    return c.id


def test_a_correction_changes_the_outcome_and_note_and_is_announced(controller, clock):
    cid = finish_one(controller, clock)
    calls = []
    controller.subscribe(lambda: calls.append(1))
    fixed = controller.correct(cid, "met", "  it was met  ")
    assert (fixed.outcome, fixed.note) == (Outcome.MET, "it was met")
    assert controller.history()[0] == fixed
    assert calls == [1]


def test_a_bad_correction_changes_nothing(controller, clock, store):
    cid = finish_one(controller, clock)
    before = store.snapshot()
    with pytest.raises(ValidationError):
        controller.correct(cid, "maybe", "")
    assert store.snapshot() == before


def test_the_running_commitment_cannot_be_corrected_or_removed(controller, clock, store):
    controller.enter_planning()
    running = controller.start_manual_commitment("Write", "Done", "10")
    before = store.snapshot()
    with pytest.raises(NotFound):
        controller.correct(running.id, "met", "")
    with pytest.raises(NotFound):
        controller.remove(running.id)
    assert store.snapshot() == before
    assert controller.snapshot().state is RuntimeState.ACTIVE


def test_removing_an_entry_deletes_it_and_its_samples(controller, clock, store):
    controller.enter_planning()
    c = controller.start_manual_commitment("Write", "Done", "10")
    controller.record_window("code", "a.py")
    clock.advance(30)
    controller.finish()
    controller.end("met")
    controller.remove(c.id)
    assert controller.history() == [] and store.samples(c.id) == []
    with pytest.raises(NotFound):
        controller.remove(c.id)


def test_paging_from_an_unknown_id_is_not_found(controller, clock):
    finish_one(controller, clock)
    with pytest.raises(NotFound):
        controller.history(limit=5, before="nope")
