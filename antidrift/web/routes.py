"""Thin views: parse the request, call the controller, answer; pushes render the page."""

from __future__ import annotations

import json

from flask import current_app, jsonify, request

from antidrift.core.domain import (
    MAX_TEXT,
    Plan,
    ValidationError,
    parse_minutes,
    validate_window,
)
from antidrift.core.sites import validate_url
from antidrift.core.transitions import Move
from antidrift.session.drafts import TEXT_LIMITS, ChangedElsewhere, Draft, shown_version
from antidrift.web import manifest as app_manifest
from antidrift.web import tasks
from antidrift.web.answer import Blueprint, Reply, moved, refusal
from antidrift.web.projection import state_json
from antidrift.web.render import duration_text
from antidrift.web.requests import controller, payload, reads, renderer, state_of, with_left

bp = Blueprint("web", __name__)
MAX_ID = 100  # characters of a commitment id in a request (ours are 36)


@bp.get("/")
def page():
    views = current_app.extensions["antidrift.views"]
    return renderer().page(views.page(controller().snapshot()))


@bp.get("/state")
def state():
    """The state; with If-None-Match a 304 when unchanged, held up to `?wait=N` seconds."""
    body, tag = current_app.extensions["antidrift.watch"].answer(
        lambda: state_of(controller().snapshot()),
        request.headers.get("If-None-Match"),
        request.args.get("wait", 0.0, type=float),
        current_app.extensions["antidrift.runtime"].shutting_down,
    )
    response = jsonify(body) if body is not None else current_app.response_class(status=304)
    response.headers["ETag"] = tag
    return with_left(response, controller().snapshot())


@bp.get("/manifest.webmanifest")
def manifest():
    body = json.dumps(app_manifest.manifest(), indent=1)
    return current_app.response_class(body, mimetype="application/manifest+json")


@bp.post("/planning")
def enter_planning():
    data = payload()
    if "task" in data:  # planning for a task from the user's own list
        return tasks.pick(data.get("task"))
    again, item = data.get("again"), data.get("day_item")
    draft = None
    if again not in (None, ""):  # Again: planning opens with that commitment's plan
        controller().check(Move.PLAN)
        draft = _again(again)
    elif item not in (None, ""):  # Plan it: planning opens with the day's item
        controller().check(Move.PLAN)
        if not isinstance(item, str) or not 0 < len(item) <= MAX_ID:
            raise ValidationError("Plan it takes the id of an item in the day's queue.", "day_item")
        draft = Draft.of_item(controller().day.item(item))  # NotFound (404): not queued
    controller().enter_planning(draft)
    return moved()


def _again(commitment_id: object) -> Draft:
    """The draft Again opens planning with: that commitment's action, done-when, minutes
    (and the task it served)."""
    if not isinstance(commitment_id, str) or not 0 < len(commitment_id) <= MAX_ID:
        raise ValidationError("Again takes the id of a commitment in your history.", "again")
    c = reads().entry(commitment_id)  # NotFound (404) when the history has no such entry
    return Draft.of_plan(Plan(c.next_action, c.success_condition, c.timebox_secs), c.task)


@bp.post("/planning/draft")
def save_draft():
    data = payload()
    shown = shown_version(data.get("draft_version"))  # the page's; a 400 before any change
    draft, before = controller().drafts.save_after(data)
    version = _version(draft, shown, before)

    def count():  # a text field's save answers with its count, as the server holds it
        counted = [name for name in TEXT_LIMITS if name in data]
        if len(counted) != 1:
            return version()
        return renderer().count(draft.value(counted[0]), TEXT_LIMITS[counted[0]]) + version()

    return _drafted(count)


@bp.post("/planning/minutes")
def pick_minutes():
    """The 15/25/50 buttons beside Minutes: the draft's minutes, and (htmx) the input anew."""
    controller().check(Move.PICK_MINUTES)
    data = payload()
    minutes = parse_minutes(data.get("timebox_minutes"))
    shown = shown_version(data.get("draft_version"))
    draft, before = controller().drafts.save_after({"timebox_minutes": str(minutes)})
    version = _version(draft, shown, before)
    return _drafted(lambda: renderer().used(draft, "timebox_minutes") + version())


@bp.post("/coach/use")
def use_proposal():
    name = payload().get("field")
    draft = controller().coaching.use(name)
    # The field takes the proposal (out of band, focused); its suggestion goes by push.
    return _drafted(lambda: renderer().used(draft, str(name)) + _version(draft)())


def _drafted(fragment) -> Reply:
    """A change to the planning draft: htmx swaps `fragment`; others get the state."""
    return Reply(json=lambda: jsonify(state_json(controller().snapshot())), fragment=fragment)


def _version(draft: Draft, shown: int | None = None, before: int | None = None):
    """The answer to the page's own change of the draft brings the version it shows with it
    (_draft_version.html): the Start it sends next says it holds that draft. Only to a page
    that showed the version the change followed (`shown`, `before`; a page that says none
    gets it, as before 0.6): one that had not yet taken another tab's change keeps its own
    until the push of that change moves it on, never claiming what it has not shown."""

    def render() -> str:
        if shown is not None and shown != before:
            return ""
        return renderer().template("_draft_version.html", draft=draft, oob=True)

    return render


@bp.post("/planning/cancel")
def cancel_planning():
    controller().cancel_planning()
    return moved()


@bp.post("/commitment")
def start_commitment():
    data = payload()
    try:
        started = controller().start_commitment(
            data.get("next_action"),
            data.get("success_condition"),
            data.get("timebox_minutes"),
            data.get("drift"),
            data.get("enforce"),
            data.get("draft_version"),  # the page's; none from the command line
        )
    except ChangedElsewhere as exc:
        # Another tab saved another plan meanwhile: the page says which, and keeps its own.
        return refusal(exc, fragment=_conflict)
    except ValidationError as exc:
        # The page gets its fields marked (aria-invalid) beside the message; others get JSON.
        return refusal(exc, fragment=lambda e: renderer().plan_errors(e.message, e.fields, data))
    return moved(started)


def _conflict(exc: ChangedElsewhere) -> str:
    """The refused Start in the form's message slot, with the other tab's plan."""
    return renderer().template("_plan_conflict.html", message=exc.message, draft=exc.draft)


@bp.post("/coach")
def request_coach():
    controller().coaching.request(payload().get("intent"))
    return moved()


@bp.post("/coach/cancel")
def cancel_coach():
    controller().coaching.cancel()
    # The Stop button goes with the pending line: focus moves to Sharpen.
    return moved(fragment=lambda: renderer().sharpen())


@bp.post("/finish")
def finish():
    controller().finish()
    return moved()


@bp.post("/finish/undo")
def undo_finish():
    controller().undo_finish()
    return moved()


@bp.post("/discard")
def discard():
    """The running commitment goes to the history as discarded: neither met nor missed."""
    controller().discard()
    return moved()


@bp.get("/commitment/next_action")
def next_action():
    """The running commitment's next action; for the page, its editor's field, afresh."""
    text = controller().next_action()
    return Reply(
        json=lambda: jsonify(next_action=text),
        fragment=lambda: renderer().next_action_field(text),
    )


@bp.post("/commitment/next_action")
def change_next_action():
    """The running commitment's next action, changed (paused or not): the judge asks again."""
    typed = payload().get("next_action")
    shown = typed if isinstance(typed, str) else ""
    try:
        changed = controller().change_next_action(typed)
    except ValidationError as exc:
        return refusal(exc, fragment=lambda e: renderer().next_action_refused(e.message, shown))
    # The editor closes; focus on the heading, which says it now.
    return moved(fragment=lambda: renderer().next_action_saved(changed))


@bp.post("/commitment/next_action/count")
def count_next_action():
    """The editor's character count as it is typed (nothing is saved)."""
    typed = request.form.get("next_action", "")
    return renderer().count(typed, MAX_TEXT)


@bp.post("/pause")
def pause():
    controller().pause()
    return moved()


@bp.post("/resume")
def resume():
    controller().resume()
    return moved()


@bp.post("/away/credit")
def away_credit():
    moved = controller().credit_away()
    return _away_answered(f"Counted as a pause: the deadline moved by {duration_text(moved)}.")


@bp.post("/away/dismiss")
def away_dismiss():
    controller().dismiss_away()
    return _away_answered("The time away stays on the clock.")


def _away_answered(said: str) -> Reply:
    """The question goes with its answer: what was done in the message slot, and the focus
    on the card's heading (the button pressed is gone)."""
    return moved(fragment=_heading(said))


def _heading(said: str = ""):
    """The answer that moves focus to the active card's heading (after `said`, when there is
    one), or the empty answer when no commitment runs."""

    def fragment() -> str:
        commitment = controller().snapshot().commitment
        return "" if commitment is None else renderer().active_heading(commitment, said)

    return fragment


@bp.post("/extend")
def extend():
    controller().extend(payload().get("minutes"))
    return moved()


@bp.post("/end")
def end():
    data = payload()
    controller().end(data.get("outcome"), data.get("note"))
    return moved()


@bp.post("/break")
def take_break():
    """A break after /end: `minutes` (1–120), else the setting's (the long one every few)."""
    controller().breaks.take(payload().get("minutes"))
    return moved()


@bp.post("/break/end")
def end_break():
    controller().breaks.end()
    return moved()


@bp.post("/evidence/window")
def record_window():
    data = payload()
    app, title = validate_window(data.get("app"), data.get("title"))
    url = validate_url(data.get("url"))  # the browser's active tab, when the poster knows it
    recorded = controller().record_window(app, title, url=url)
    return jsonify(recorded=recorded), 202


@bp.post("/drift/ack")
def acknowledge_drift():
    controller().acknowledge_drift(payload().get("answer"))
    # The banner goes away with the answer: focus moves to the card's heading.
    return moved(fragment=_heading())
