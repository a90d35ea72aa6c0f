"""What every route module shares: the services, the request's fields, how to answer."""

from __future__ import annotations

from collections.abc import Mapping

from flask import current_app, jsonify, request

from antidrift.core.domain import RuntimeState, ValidationError
from antidrift.core.timing import LEFT_HEADER
from antidrift.drift.rules import StandingRules
from antidrift.session.controller import Controller
from antidrift.session.corrections import Corrections
from antidrift.session.readmodel import ReadModel
from antidrift.session.snapshot import Snapshot
from antidrift.tasks import Board
from antidrift.web.projection import left_secs, state_json

# The header of every HTML fragment or page a view returns by hand.
HTML = {"Content-Type": "text/html; charset=utf-8"}


def controller() -> Controller:
    """The running app's controller: the state machine and its commands."""
    return current_app.extensions["antidrift.runtime"].controller


def reads() -> ReadModel:
    """The running app's read model: the history and its figures."""
    return current_app.extensions["antidrift.runtime"].reads


def board() -> Board:
    """The user's task sources (listing, write-back)."""
    return current_app.extensions["antidrift.runtime"].tasks


def corrections() -> Corrections:
    """Changes to ended commitments (a corrected outcome, a removed entry)."""
    return controller().corrections


def standing_rules() -> StandingRules:
    """The standing rules the drift guard follows (added and removed here)."""
    return controller().rules


def from_htmx() -> bool:
    """True when the page's htmx sent the request (it swaps fragments, not JSON)."""
    return request.headers.get("HX-Request") == "true"


def wants_html() -> bool:
    """True when the client prefers an HTML page to JSON (a browser following a link)."""
    return request.accept_mimetypes.best_match(["application/json", "text/html"]) == "text/html"


def payload() -> Mapping[str, object]:
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


def done(snap: Snapshot | None = None):
    """htmx swaps the empty answer into the form's message slot (clearing an old error);
    the new state reaches every page through the websocket. Others get the state: `snap`,
    the one the move itself took (under its lock), else as it is now."""
    if from_htmx():
        return "", 200, HTML
    snap = snap or controller().snapshot()
    return with_left(jsonify(state_of(snap)), snap)


def state_of(snap: Snapshot) -> dict[str, object]:
    """/state's JSON for a snapshot, with its commitment's drift episodes (active, review)."""
    c, episodes = snap.commitment, []
    if c is not None and snap.state in (RuntimeState.ACTIVE, RuntimeState.REVIEW):
        episodes = reads().drift_episodes(c.id)
    return state_json(snap, episodes)


def with_left(response, snap):
    """The response with the time left in its header while active (see projection.py)."""
    left = left_secs(snap)
    if left is not None:
        response.headers[LEFT_HEADER] = str(left)
    return response
