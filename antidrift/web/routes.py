"""Thin views: parse the request, call the controller, answer; pushes render the page."""

from __future__ import annotations

from collections.abc import Mapping

from flask import Blueprint, current_app, jsonify, request

from antidrift.domain import ValidationError, validate_window
from antidrift.session import Controller
from antidrift.web.projection import state_json

bp = Blueprint("web", __name__)


def _controller() -> Controller:
    return current_app.extensions["antidrift.runtime"].controller


def _payload() -> Mapping[str, object]:
    """Form fields from the page, a JSON object from other clients."""
    if request.mimetype == "application/json":
        try:
            data = request.get_json(silent=True)
        except RecursionError:  # nested deeper than any object we take
            data = None
        if not isinstance(data, dict):
            raise ValidationError("Send a JSON object.")
        for value in data.values():
            # JSON can spell lone surrogates ("\ud800"), which no UTF-8 store or page can hold.
            if isinstance(value, str) and not value.isascii():
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError:
                    raise ValidationError("Text must be valid Unicode.") from None
        return data
    return request.form


def _done():
    """htmx swaps the empty answer into the form's message slot (clearing an old error);
    the new state reaches every page through the websocket."""
    if request.headers.get("HX-Request") == "true":
        return "", 200, {"Content-Type": "text/html; charset=utf-8"}
    return jsonify(state_json(_controller().snapshot()))


@bp.get("/")
def page():
    views = current_app.extensions["antidrift.views"]
    return current_app.extensions["antidrift.renderer"].page(views.page(_controller().snapshot()))


@bp.get("/state")
def state():
    return jsonify(state_json(_controller().snapshot()))


@bp.post("/planning")
def enter_planning():
    _controller().enter_planning()
    return _done()


@bp.post("/planning/cancel")
def cancel_planning():
    _controller().cancel_planning()
    return _done()


@bp.post("/commitment")
def start_commitment():
    data = _payload()
    try:
        _controller().start_manual_commitment(
            data.get("next_action"),
            data.get("success_condition"),
            data.get("timebox_minutes"),
            data.get("drift"),
        )
    except ValidationError as exc:
        if request.headers.get("HX-Request") != "true":
            raise
        # The page gets its fields marked (aria-invalid) beside the message; others get JSON.
        renderer = current_app.extensions["antidrift.renderer"]
        html = renderer.plan_errors(exc.message, exc.fields, data)
        return html, 400, {"Content-Type": "text/html; charset=utf-8"}
    return _done()


@bp.post("/coach")
def request_coach():
    _controller().request_coach(_payload().get("intent"))
    return _done()


@bp.post("/coach/cancel")
def cancel_coach():
    _controller().cancel_coach()
    return _done()


@bp.post("/finish")
def finish():
    _controller().finish()
    return _done()


@bp.post("/extend")
def extend():
    _controller().extend(_payload().get("minutes"))
    return _done()


@bp.post("/end")
def end():
    data = _payload()
    _controller().end(data.get("outcome"), data.get("note"))
    return _done()


@bp.post("/evidence/window")
def record_window():
    data = _payload()
    app, title = validate_window(data.get("app"), data.get("title"))
    recorded = _controller().record_window(app, title)
    return jsonify(recorded=recorded), 202


@bp.post("/drift/ack")
def acknowledge_drift():
    _controller().acknowledge_drift(_payload().get("answer"))
    return _done()
