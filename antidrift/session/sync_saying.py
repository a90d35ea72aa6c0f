"""What sync says (session/syncing.py's Syncing holds it): /sync.json's status, and /state's
`elsewhere` — each other machine's runtime from its `now` file, while this machine saw it in
the last few minutes by its own clock."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from antidrift.core.isotime import iso

if TYPE_CHECKING:
    from antidrift.sync import Elsewhere

FRESH = 180.0  # seconds: another machine's `now` is shown while seen this recently


@dataclass
class SyncStatus:
    """What /sync.json says: this machine, the others, what was skipped and why."""

    device: dict[str, str]
    folder: str | None
    devices: list[dict[str, object]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    problem: str | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "device": self.device,
            "folder": self.folder,
            "devices": self.devices,
            "skipped": self.skipped,
            "problem": self.problem,
        }


class Sightings:
    """The other machines' `now` files as this one last saw them (held by Syncing, filled
    by its reader's looks), and what they say: /state's `elsewhere`, and one machine's
    running commitment for Guard here too."""

    def __init__(self, wall: Callable[[], float]) -> None:
        self._wall = wall
        self._seen: dict[str, Elsewhere] = {}

    def saw(self, seen: Elsewhere) -> None:
        self._seen[seen.device] = seen

    def elsewhere(self) -> list[dict[str, object]]:
        """/state's `elsewhere`: each other machine's runtime, while its `now` was seen in the
        last FRESH seconds (this machine's clock alone: clocks a day apart still agree)."""
        now, shown = self._wall(), []
        for device, seen in sorted(self._seen.items()):
            body = seen.body if isinstance(seen.body, dict) else {}
            if now - seen.seen_at > FRESH or not isinstance(body.get("state"), str):
                continue
            left = body.get("secs_left")
            ends = None
            if body.get("state") == "active" and isinstance(left, int | float) and left >= 0:
                ends = seen_at(seen.seen_at + min(float(left), 86400.0 * 2))
            shown.append(
                {
                    "device": (seen.name or device)[:64],
                    "device_id": device,
                    "state": body["state"][:20],
                    "commitment_id": _text(body.get("commitment_id"), 64),
                    "next_action": _text(body.get("next_action"), 500),
                    "ends_at": ends,
                    "paused": body.get("paused") is True,
                }
            )
        return shown

    def now_of(self, device_id: str) -> dict[str, object] | None:
        """One other machine's entry of `elsewhere`, with its `now`'s done-when (None: not
        seen in the last FRESH seconds): what Guard here too follows."""
        entry = next((e for e in self.elsewhere() if e["device_id"] == device_id), None)
        if entry is None:
            return None
        body = self._seen[device_id].body
        done = body.get("success_condition") if isinstance(body, dict) else None
        return {**entry, "success_condition": _text(done, 500)}


def seen_at(wall: float | None) -> str | None:
    return iso(datetime.fromtimestamp(wall, UTC)) if wall is not None else None


def _text(value: object, limit: int) -> str | None:
    return value[:limit] if isinstance(value, str) else None
