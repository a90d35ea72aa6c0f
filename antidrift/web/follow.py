"""Guard here too: POST /follow (`device_id`, another machine's id as /state's `elsewhere`
names it) and POST /follow/stop (session/following.py). The page's answer is a sentence in
the locked view's message slot (the lines themselves come by push); a plain form is sent back
to the page; others get /state. A refusal is a sentence, nothing changed: 409 when this
machine is not locked or already guarding (stop: guarding none), 400 for no device_id, 404
for a machine not seen in the last 3 minutes, 409 when nothing runs there."""

from __future__ import annotations

from dataclasses import replace

from flask import redirect, url_for

from antidrift.web.answer import Blueprint, Reply, moved
from antidrift.web.requests import controller, payload, renderer

bp = Blueprint("follow", __name__)


@bp.post("/follow")
def follow():
    followed = controller().following.follow(payload().get("device_id"))
    return _said(f"Guarding {followed.device}'s commitment here.")


@bp.post("/follow/stop")
def stop_following():
    ended = controller().following.stop()
    return _said(f"No longer guarding {ended.device}'s commitment here.")


def _said(sentence: str) -> Reply:
    """The move went through: htmx gets `sentence` (escaped: a device's name is another
    machine's), a plain form the page again, others the state."""
    reply = moved(fragment=lambda: renderer().confirm(sentence))
    return replace(reply, page=lambda: redirect(url_for("web.page"), 303))
