"""A controller over given parts, as the composition root wires one (server/bootstrap.py),
named by keyword as tests like them."""

from __future__ import annotations

from dataclasses import replace

from antidrift.server import bootstrap
from antidrift.session.controller import Controller
from antidrift.session.state import Tuning


def build_controller(
    store,
    clock,
    *,
    coach=None,
    coach_unavailable: str = "coach unavailable",
    exclude_titles=None,
    notifier=None,
    judge=None,
    drift=None,
    reflector=None,
    enforcer=None,
    coach_workers: int = 2,
    calendar=None,
    breaks=None,
) -> Controller:
    parts = Tuning(coach, coach_unavailable, reflector, judge, drift, exclude_titles, notifier)
    if breaks is not None:
        parts = replace(parts, breaks=breaks)
    return bootstrap.build_controller(
        store, clock, parts, enforcer=enforcer, coach_workers=coach_workers, calendar=calendar
    )
