"""AntiDrift: commit to one next action, keep the evidence, review it."""

from __future__ import annotations

# `antidrift:create_app()` (gunicorn) and `flask --app antidrift run` get the app a server
# runs: wired by antidrift.app.create_app, with its runtime started.
from antidrift.app import serving_app as create_app

__all__ = ["create_app"]
