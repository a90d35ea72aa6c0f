"""`GET /sync.json`: this machine in the sync folder, the machines it has seen (with how many
of their commitments it holds) and each file skipped, with why (quoting nothing of it)."""

from __future__ import annotations

from flask import current_app, jsonify

from antidrift.web.answer import Blueprint

bp = Blueprint("sync_status", __name__)


@bp.get("/sync.json")
def sync_json():
    sync = current_app.extensions["antidrift.runtime"].sync
    if sync is None:  # a runtime of fakes: no data directory of its own
        return jsonify({"device": None, "folder": None, "devices": [], "skipped": []})
    return jsonify(sync.status().to_json())
