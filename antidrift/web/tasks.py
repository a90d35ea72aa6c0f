"""Task routes: the planning view's list of the user's open tasks, picking one, and writing a
commitment's outcome back to its task on the user's click."""

from __future__ import annotations

from dataclasses import replace

from flask import jsonify

from antidrift import tasks as task_sources
from antidrift.core.domain import (
    Commitment,
    IllegalTransitionError,
    NotFound,
    RuntimeState,
    ValidationError,
    validate_review,
)
from antidrift.core.minutes import duration_text
from antidrift.session.drafts import TEXT_LIMITS, Draft
from antidrift.web.answer import Blueprint, Reply, moved
from antidrift.web.projection import task_json
from antidrift.web.requests import board, controller, payload, reads, renderer

bp = Blueprint("tasks", __name__)


class TaskConflict(IllegalTransitionError):
    """The task cannot take the write-back now (gone, its file changed, its source failed)."""


@bp.get("/tasks")
def list_tasks():
    listing = board().listing()
    return Reply(
        json=lambda: jsonify([task_json(task) for task in listing.tasks]),
        fragment=lambda: renderer().tasks(listing),
    )


def pick(key: object) -> Reply:
    """POST /planning with task=<source>:<id>: planning opens (or stays) for that task; an
    empty task while planning forgets the pick."""
    if key == "":  # the draft keeps what was typed, the pick alone is forgotten
        controller().drafts.pick(None)
        return moved()
    if task_sources.split_key(key) is None:
        raise ValidationError("Pick a task as <source>:<id>, e.g. taskwarrior:<uuid>.", "task")
    if controller().snapshot().state not in (RuntimeState.LOCKED, RuntimeState.PLANNING):
        # The state first, before any source is asked (the controller checks again).
        raise IllegalTransitionError(
            "You can pick a task only while planning, or with no commitment running."
        )
    task = board().find(key)
    if task is None:
        raise NotFound("That task is not in your task sources (any more): list them again.")
    # The draft's intent takes the title (kept through reloads and restarts like typed text);
    # the plan fields the user typed stay. From locked, planning opens with that draft.
    if controller().snapshot().state is RuntimeState.PLANNING:
        draft = controller().drafts.pick(task)
    else:
        controller().enter_planning(Draft.for_task(task))
        draft = Draft.for_task(task)
    # The intent box takes the title; the websocket brings the rest.
    return moved(fragment=lambda: renderer().intent(draft, TEXT_LIMITS["intent"]))


@bp.post("/tasks/writeback")
def write_back():
    data = payload()
    action = data.get("action")
    if action not in (task_sources.NOTE, task_sources.DONE):
        raise ValidationError("Choose what to record: action=note or action=done.", "action")
    commitment, outcome, note = _outcome(data.get("commitment"), data)
    if commitment.task is None:
        raise TaskConflict("That commitment served no task from your task list.")
    took = duration_text(commitment.actual_secs)  # the time worked: pauses left out
    text = task_sources.outcome_text(
        outcome, commitment.next_action, took, note, f"{commitment.started_at:%Y-%m-%d}"
    )
    # Finish stands before the task tool hears of it: an Undo from another tab cannot set it
    # running while the task is being ticked (and refuses this if it came first). A source
    # that fails says so (SourceError: 409).
    # Once per commitment: claimed before the tool hears of it (a second press is 409).
    with (
        controller().finish_standing(commitment.id),
        controller().writing_back(commitment.id, action),
    ):
        said = board().write_back(commitment.task, action, text)

    def recorded() -> str:  # the sentence, and the buttons give way to "Recorded" (out of band)
        done = replace(commitment, written_back=action)
        offer = board().offers([(done.id, done.task)]).get(done.id)
        return renderer().writeback_result(said, done, offer)

    return Reply(json=lambda: jsonify(result=said, written_back=action), fragment=recorded)


def _outcome(cid: object, data) -> tuple[Commitment, str, str]:
    """The commitment and what it came to: in review, from the review form's fields (not
    saved yet); in the history, as saved."""
    if not isinstance(cid, str) or not cid or len(cid) > 64:
        raise ValidationError("Say which commitment: commitment=<id>.", "commitment")
    current = controller().snapshot()
    if current.state is RuntimeState.ACTIVE and current.commitment.id == cid:
        raise TaskConflict(  # Finish was undone: it has no outcome to record (not a 404)
            "That commitment is running again (Finish was undone): nothing was recorded in"
            " your task list. Finish it, then record it."
        )
    if current.state is RuntimeState.REVIEW and current.commitment.id == cid:
        outcome, note = validate_review(data.get("outcome"), data.get("note"))
        return current.commitment, outcome.value, note
    entry = reads().entry(cid)  # NotFound: 404
    return entry, entry.outcome.value, entry.note
