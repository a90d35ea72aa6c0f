"""The locked and planning views' line on the user's other machines (sync): "Active on
laptop: Write the intro, ends 14:05", from /state's `elsewhere` (session/syncing.py), with
Guard here too beside each on the locked view; and, while this machine guards one of them
(session/following.py), the calm line that says whose commitment, what judges it, where the
guard stands, and Stop — or, once it ended by itself, that it did."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from antidrift.core.isotime import from_iso
from antidrift.drift.policy import DriftStatus
from antidrift.session.snapshot import Snapshot
from antidrift.web.widgets import Widget


@dataclass(frozen=True)
class Running:
    """A commitment running on another machine, as the line says it."""

    device: str
    next_action: str
    ends_at: datetime | None
    paused: bool
    device_id: str = ""


@dataclass(frozen=True)
class ElsewhereWidget(Widget):
    """id="elsewhere": what runs on the user's other machines now (nothing: hidden); `offer`:
    each with Guard here too (the locked view, guarding none)."""

    name = "elsewhere"
    running: tuple[Running, ...] = ()
    offer: bool = False

    @classmethod
    def of(cls, entries: Iterable[Mapping[str, object]], offer: bool = False) -> ElsewhereWidget:
        running = []
        for e in entries:
            if e.get("state") != "active" or not isinstance(e.get("next_action"), str):
                continue
            ends = e.get("ends_at")
            at = from_iso(ends) if isinstance(ends, str) else None
            running.append(
                Running(
                    str(e.get("device") or "another machine"),
                    str(e["next_action"]),
                    # To the minute the line says: seen again a few seconds later, the same
                    # line is not pushed again (and a focused Guard here too stays).
                    at.replace(second=0, microsecond=0) if at is not None else None,
                    e.get("paused") is True,
                    str(e.get("device_id") or ""),
                )
            )
        return cls(tuple(running), offer)


@dataclass(frozen=True)
class FollowingLine(Widget):
    """id="following": the commitment of another machine guarded here (its device empty:
    none) and what judges it (`judge`, the CLI; "": standing rules alone); or `ended`, why
    the last one ended by itself. Pushed when following begins or ends: Stop takes the focus."""

    name = "following"
    focus_on_change = True
    device: str = ""
    next_action: str = ""
    judge: str = ""
    ended: str = ""

    @classmethod
    def of(cls, snap: Snapshot, cli: str | None) -> FollowingLine:
        f = snap.following
        if f is None:
            return cls(ended=snap.follow_end.sentence() if snap.follow_end is not None else "")
        return cls(f.device, f.next_action, (cli or "the AI") if snap.follow_judged else "")


@dataclass(frozen=True)
class FollowStatus(Widget):
    """id="follow-status", inside the following line: where its drift guard stands now,
    pushed alone (the line, and a focus on Stop, stay)."""

    name = "follow_status"
    parent = "following"
    status: DriftStatus = DriftStatus.OFF
    reason: str = ""

    @classmethod
    def of(cls, snap: Snapshot) -> FollowStatus:
        if snap.following is None:
            return cls()
        return cls(snap.drift.status, snap.drift.reason or "")
