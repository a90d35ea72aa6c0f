"""Thin views: parse the request, call the controller, answer; pushes render the page."""

from __future__ import annotations

import json

from flask import Blueprint, current_app, jsonify, request

from antidrift.core.domain import (
    MAX_TEXT,
    Plan,
    ValidationError,
    parse_minutes,
    validate_window,
)
from antidrift.core.sites import validate_url
from antidrift.core.transitions import Move
from antidrift.session.drafts import TEXT_LIMITS, Draft
from antidrift.web import manifest as app_manifest
from antidrift.web import tasks
from antidrift.web.projection import state_json
from antidrift.web.render import duration_text
from antidrift.web.requests import (
    HTML,
    controller,
    done,
    from_htmx,
    payload,
    reads,
    state_of,
    with_left,
)

bp = Blueprint("web", __name__)
MAX_ID = 100  # characters of a commitment id in a request (ours are 36)


@bp.get("/")
def page():
    views = current_app.extensions["antidrift.views"]
    return current_app.extensions["antidrift.renderer"].page(views.page(controller().snapshot()))


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
    again = data.get("again")
    draft = None
    if again not in (None, ""):  # Again: planning opens with that commitment's plan
        controller().check(Move.PLAN)
        draft = _again(again)
    controller().enter_planning(draft)
    return done()


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
    draft = controller().drafts.save(data)
    if from_htmx():  # a text field's save answers with its count, as the server holds it
        counted = [name for name in TEXT_LIMITS if name in data]
        if len(counted) != 1:
            return "", 204
        renderer = current_app.extensions["antidrift.renderer"]
        return renderer.count(draft.value(counted[0]), TEXT_LIMITS[counted[0]]), 200, HTML
    return jsonify(state_json(controller().snapshot()))


@bp.post("/planning/minutes")
def pick_minutes():
    """The 15/25/50 buttons beside Minutes: the draft's minutes, and (htmx) the input anew."""
    controller().check(Move.PICK_MINUTES)
    minutes = parse_minutes(payload().get("timebox_minutes"))
    draft = controller().drafts.save({"timebox_minutes": str(minutes)})
    if not from_htmx():
        return jsonify(state_json(controller().snapshot()))
    renderer = current_app.extensions["antidrift.renderer"]
    return renderer.used(draft, "timebox_minutes"), 200, HTML


@bp.post("/coach/use")
def use_proposal():
    name = payload().get("field")
    draft = controller().coaching.use(name)
    if not from_htmx():
        return jsonify(state_json(controller().snapshot()))
    # The field takes the proposal (out of band, focused); its suggestion goes by push.
    renderer = current_app.extensions["antidrift.renderer"]
    return renderer.used(draft, str(name)), 200, HTML


@bp.post("/planning/cancel")
def cancel_planning():
    controller().cancel_planning()
    return done()


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
        )
    except ValidationError as exc:
        if not from_htmx():
            raise
        # The page gets its fields marked (aria-invalid) beside the message; others get JSON.
        renderer = current_app.extensions["antidrift.renderer"]
        html = renderer.plan_errors(exc.message, exc.fields, data)
        return html, exc.status, HTML
    return done(started)


@bp.post("/coach")
def request_coach():
    controller().coaching.request(payload().get("intent"))
    return done()


@bp.post("/coach/cancel")
def cancel_coach():
    controller().coaching.cancel()
    if from_htmx():  # the Stop button goes with the pending line: focus moves to Sharpen
        return current_app.extensions["antidrift.renderer"].sharpen(), 200, HTML
    return done()


@bp.post("/finish")
def finish():
    controller().finish()
    return done()


@bp.post("/finish/undo")
def undo_finish():
    controller().undo_finish()
    return done()


@bp.post("/discard")
def discard():
    """The running commitment goes to the history as discarded: neither met nor missed."""
    controller().discard()
    return done()


@bp.get("/commitment/next_action")
def next_action():
    """The running commitment's next action; for the page, its editor's field, afresh."""
    text = controller().next_action()
    if from_htmx():
        renderer = current_app.extensions["antidrift.renderer"]
        return renderer.next_action_field(text), 200, HTML
    return jsonify(next_action=text)


@bp.post("/commitment/next_action")
def change_next_action():
    """The running commitment's next action, changed (paused or not): the judge asks again."""
    typed = payload().get("next_action")
    try:
        changed = controller().change_next_action(typed)
    except ValidationError as exc:
        if not from_htmx():
            raise
        renderer = current_app.extensions["antidrift.renderer"]
        shown = typed if isinstance(typed, str) else ""
        return renderer.next_action_refused(exc.message, shown), exc.status, HTML
    if from_htmx():  # the editor closes; focus on the heading, which says it now
        renderer = current_app.extensions["antidrift.renderer"]
        return renderer.next_action_saved(changed), 200, HTML
    return done()


@bp.post("/commitment/next_action/count")
def count_next_action():
    """The editor's character count as it is typed (nothing is saved)."""
    typed = request.form.get("next_action", "")
    return current_app.extensions["antidrift.renderer"].count(typed, MAX_TEXT), 200, HTML


@bp.post("/pause")
def pause():
    controller().pause()
    return done()


@bp.post("/resume")
def resume():
    controller().resume()
    return done()


@bp.post("/away/credit")
def away_credit():
    moved = controller().credit_away()
    return _away_answered(f"Counted as a pause: the deadline moved by {duration_text(moved)}.")


@bp.post("/away/dismiss")
def away_dismiss():
    controller().dismiss_away()
    return _away_answered("The time away stays on the clock.")


def _away_answered(said: str):
    """The question goes with its answer: what was done in the message slot, and the focus
    on the card's heading (the button pressed is gone)."""
    commitment = controller().snapshot().commitment
    if from_htmx() and commitment is not None:
        renderer = current_app.extensions["antidrift.renderer"]
        return renderer.active_heading(commitment, said), 200, HTML
    return done()


@bp.post("/extend")
def extend():
    controller().extend(payload().get("minutes"))
    return done()


@bp.post("/end")
def end():
    data = payload()
    controller().end(data.get("outcome"), data.get("note"))
    return done()


@bp.post("/break")
def take_break():
    """A break after /end: `minutes` (1–120), else the setting's (the long one every few)."""
    controller().breaks.take(payload().get("minutes"))
    return done()


@bp.post("/break/end")
def end_break():
    controller().breaks.end()
    return done()


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
    commitment = controller().snapshot().commitment
    if from_htmx() and commitment is not None:
        # The banner goes away with the answer: focus moves to the card's heading.
        renderer = current_app.extensions["antidrift.renderer"]
        return renderer.active_heading(commitment), 200, HTML
    return done()
