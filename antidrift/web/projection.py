"""The JSON shapes of /state and /history (times ISO 8601 with offset)."""

from __future__ import annotations

from antidrift.domain import Commitment
from antidrift.session import CoachStatus, Snapshot


def _iso(value) -> str | None:
    return value.isoformat() if value is not None else None


def state_json(snap: Snapshot) -> dict[str, object]:
    c = snap.commitment
    last = snap.evidence.last
    body: dict[str, object] = {
        "runtime_state": snap.state.value,
        "commitment": None
        if c is None
        else {
            "id": c.id,
            "next_action": c.next_action,
            "success_condition": c.success_condition,
            "timebox_secs": c.timebox_secs,
            "started_at": _iso(c.started_at),
            "deadline": _iso(c.deadline),
            "extended_secs": c.extended_secs,
        },
        "evidence": {
            "health": snap.evidence.health.value,
            "last": None
            if last is None
            else {"app": last.app, "title": last.title, "at": _iso(last.at)},
        },
    }
    if snap.coach is not None:
        coach: dict[str, object] = {"status": snap.coach.status}
        if snap.coach.status == CoachStatus.READY and snap.coach.proposal:
            p = snap.coach.proposal
            coach["proposal"] = {
                "next_action": p.next_action,
                "success_condition": p.success_condition,
                "timebox_secs": p.timebox_secs,
            }
        if snap.coach.status == CoachStatus.ERROR:
            coach["error"] = snap.coach.error
        body["coach"] = coach
    return body


def history_json(items: list[Commitment]) -> list[dict[str, object]]:
    return [
        {
            "id": c.id,
            "next_action": c.next_action,
            "success_condition": c.success_condition,
            "timebox_secs": c.timebox_secs,
            "started_at": _iso(c.started_at),
            "ended_at": _iso(c.ended_at),
            "outcome": c.outcome.value if c.outcome else None,
            "note": c.note,
            "extended_secs": c.extended_secs,
        }
        for c in items
    ]
