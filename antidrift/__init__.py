"""AntiDrift: commit to one next action, keep the evidence, review it."""

from __future__ import annotations

from antidrift.app import create_app

__all__ = ["create_app"]
