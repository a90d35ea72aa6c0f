"""The JSON shapes of /state and /history (times ISO 8601 with offset)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from antidrift.core.device_evidence import DeviceEvidence
from antidrift.core.domain import Commitment, RuntimeState, TaskRef
from antidrift.core.isotime import iso
from antidrift.drift.policy import Episode
from antidrift.session.drafts import DRAFT_FIELDS
from antidrift.session.snapshot import CoachStatus, Snapshot


def task_json(task: TaskRef | None) -> dict[str, object] | None:
    """The task a commitment serves, as /state and /history show it."""
    if task is None:
        return None
    return {"source": task.source, "id": task.id, "title": task.title, "url": task.url}


def episode_json(episode: Episode) -> dict[str, object]:
    """A drift episode as /state and /history show it (no window title: that is the page's);
    `enforced_at` is when the teeth put its window away (null: they did not)."""
    return {
        "number": episode.number,
        "started_at": iso(episode.started_at),
        "nudged_at": iso(episode.nudged_at),
        "ended_at": iso(episode.ended_at),
        "answer": episode.answer.value if episode.answer else None,
        "enforced_at": iso(episode.enforced_at),
    }


def state_json(snap: Snapshot, episodes: Sequence[Episode] = ()) -> dict[str, object]:
    """/state; `episodes`: the drift guard's episodes of the commitment (active or review)."""
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
            "started_at": iso(c.started_at),
            "deadline": iso(c.deadline),
            "extended_secs": c.extended_secs,
            # In review: stopped by its deadline ("time's up") rather than finished by hand.
            "ran_out": c.ran_out,
            "task": task_json(c.task),
            "enforce": c.enforce,  # minimize: an ignored nudge puts the window away
            "episodes": [episode_json(e) for e in episodes],
            "day_item_id": c.day_item_id,  # started from the day's queue (Plan it)
        },
        "evidence": {
            "health": snap.evidence.health.value,
            # The site, never the URL: a page's path and query stay in the store.
            "last": None
            if last is None
            else {"app": last.app, "title": last.title, "site": last.site, "at": iso(last.at)},
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
    if snap.draft is not None:
        d = snap.draft
        body["draft"] = {f: d.value(f) for f in DRAFT_FIELDS} | {
            "edited": sorted(d.edited),
            "task": task_json(d.task),  # the picked task the next commitment will serve
            "draft_version": d.version,  # one more with each saved change (Start sends it)
        }
    if snap.state is RuntimeState.ACTIVE and c is not None:
        body["paused"] = c.paused
        body["paused_secs"] = snap.paused_secs  # a pause in progress included
        away = snap.away
        body["away"] = bool(away and away.away)  # no input for the away_after minutes
        body["away_secs"] = away.secs if away else 0  # an absence in progress included
        # Back from an absence not yet answered (Count it as a pause / Keep counting).
        body["away_returned_secs"] = away.returned_secs if away else 0
    elif snap.state is RuntimeState.REVIEW and c is not None:
        # What the review says beside the outcome ("12 min paused · 13 min of it away").
        body["paused_secs"] = c.paused_secs
        body["away_secs"] = c.away_secs
    body["calendar"] = calendar_json(snap)
    rest = snap.rest
    body["break"] = None if rest is None else {"ends_at": iso(rest.ends_at), "long": rest.long}
    # Guard here too (locked): the drift guard is the followed commitment's.
    if snap.state is RuntimeState.ACTIVE or snap.following is not None:
        drift = snap.drift
        body["drift"] = {
            "status": drift.status.value,
            "since": iso(drift.since),
            "reason": drift.reason,
        }
    return body


def following_json(snap: Snapshot) -> dict[str, object] | None:
    """/state's `following`: another machine's commitment guarded here (null: none)."""
    f = snap.following
    if f is None:
        return None
    return {"device": f.device, "device_id": f.device_id, "commitment_id": f.commitment_id}


def calendar_json(snap: Snapshot) -> dict[str, object]:
    """The event under way and the next one (nulls without a calendar)."""
    agenda, now = snap.calendar, snap.now
    current, upcoming = agenda.now, agenda.next
    return {
        "now": None
        if current is None
        else {
            "title": current.title,
            "starts_at": iso(current.starts_at),
            "ends_at": iso(current.ends_at),
        },
        "next": None
        if upcoming is None
        else {
            "title": upcoming.title,
            "starts_at": iso(upcoming.starts_at),
            "in_minutes": agenda.in_minutes(now),
        },
    }


def left_secs(snap: Snapshot) -> int | None:
    """Whole seconds left while active; None otherwise."""
    c = snap.commitment
    if snap.state is not RuntimeState.ACTIVE or c is None:
        return None
    return c.seconds_left(snap.now)


def history_json(
    items: list[Commitment],
    drift: Mapping[str, tuple[int, float | None]] | None = None,
    episodes: Mapping[str, Sequence[Episode]] | None = None,
    sites: Mapping[str, str] | None = None,
    here: tuple[str, str] = ("", ""),
    by_device: Mapping[str, Sequence[DeviceEvidence]] | None = None,
) -> list[dict[str, object]]:
    """Ended commitments; drift maps an id to its (drift_count, on_task_share) — every
    machine's — episodes to its drift episodes, sites to the site most of its browser time
    was on, by_device to what other machines watched for it (Guard here too: `evidence`,
    each machine's figures); `here` is this machine's (device id, name), which made those
    that name no other."""
    drift, episodes, sites = drift or {}, episodes or {}, sites or {}
    by_device = by_device or {}
    return [
        {
            "id": c.id,
            "next_action": c.next_action,
            "success_condition": c.success_condition,
            "timebox_secs": c.timebox_secs,
            "started_at": iso(c.started_at),
            "ended_at": iso(c.ended_at),
            "outcome": c.outcome.value if c.outcome else None,
            "note": c.note,
            "extended_secs": c.extended_secs,
            "actual_secs": c.actual_secs,  # less the pauses
            "drift_count": drift.get(c.id, (0, None))[0],
            "on_task_share": _share(drift.get(c.id, (0, None))[1]),
            "task": task_json(c.task),
            "paused_secs": c.paused_secs,
            "away_secs": c.away_secs,  # no input for the away_after minutes
            "written_back": c.written_back,  # "note" | "done" once recorded in its task
            "site": sites.get(c.id),
            "episodes": [episode_json(e) for e in episodes.get(c.id, ())],
            "device_id": c.device_id or here[0],
            "device": c.device if c.device_id else here[1],
            "evidence": [evidence_json(e, here) for e in by_device.get(c.id, ())],
        }
        for c in items
    ]


def evidence_json(evidence: DeviceEvidence, here: tuple[str, str]) -> dict[str, object]:
    """What another machine watched for a commitment, as a /history row lists it (this
    machine's own, when it guarded another's, named as this machine)."""
    f = evidence.figures
    return {
        "device_id": evidence.device_id or here[0],
        "device": evidence.device if evidence.device_id else here[1],
        "drift_count": f.drift_count,
        "on_task_share": _share(f.on_task_share),
    }


def _share(value: float | None) -> float | None:
    return None if value is None else round(min(max(value, 0.0), 1.0), 4)
