"""What every route module shares: the services and the request's fields. How a route
answers (a fragment, a page or JSON) is antidrift/web/answer.py's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from flask import current_app, request

from antidrift.core.domain import RuntimeState, ValidationError
from antidrift.core.timing import LEFT_HEADER
from antidrift.drift.rules import StandingRules
from antidrift.session.controller import Controller
from antidrift.session.corrections import Corrections
from antidrift.session.readmodel import ReadModel
from antidrift.session.snapshot import Snapshot
from antidrift.tasks import Board
from antidrift.web.projection import following_json, left_secs, state_json

if TYPE_CHECKING:  # render.py's views import settings_page.py, which imports this
    from antidrift.web.render import Renderer


def controller() -> Controller:
    """The running app's controller: the state machine and its commands."""
    return current_app.extensions["antidrift.runtime"].controller


def reads() -> ReadModel:
    """The running app's read model: the history and its figures."""
    return current_app.extensions["antidrift.runtime"].reads


def board() -> Board:
    """The user's task sources (listing, write-back)."""
    return current_app.extensions["antidrift.runtime"].tasks


def renderer() -> Renderer:
    """The one renderer: every template renders through it."""
    return current_app.extensions["antidrift.renderer"]


def corrections() -> Corrections:
    """Changes to ended commitments (a corrected outcome, a removed entry)."""
    return controller().corrections


def standing_rules() -> StandingRules:
    """The standing rules the drift guard follows (added and removed here)."""
    return controller().rules


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


def state_of(snap: Snapshot) -> dict[str, object]:
    """/state's JSON for a snapshot, with its commitment's drift episodes (active, review)."""
    c, episodes = snap.commitment, []
    if c is not None and snap.state in (RuntimeState.ACTIVE, RuntimeState.REVIEW):
        episodes = reads().drift_episodes(c.id)
    body = state_json(snap, episodes)
    sync = current_app.extensions["antidrift.runtime"].sync
    body["elsewhere"] = sync.elsewhere() if sync is not None else []  # other machines' work
    body["following"] = following_json(snap)  # one of theirs guarded here (Guard here too)
    body["next_up"] = _next_up(snap)
    return body


def _next_up(snap: Snapshot) -> dict[str, object] | None:
    """Locked (no break under way): the day's first item, as the locked view's Next up shows
    it, and how many are queued (the status line's "next up"); null otherwise."""
    if snap.state is not RuntimeState.LOCKED or snap.rest is not None:
        return None
    queue = reads().day_queue()
    if not queue:
        return None
    return {"id": queue[0].id, "next_action": queue[0].next_action, "queued": len(queue)}


def with_left(response, snap):
    """The response with the time left in its header while active (see projection.py)."""
    left = left_secs(snap)
    if left is not None:
        response.headers[LEFT_HEADER] = str(left)
    return response
