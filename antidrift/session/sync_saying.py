"""What sync says (a part of session/syncing.py's Syncing): /sync.json's status, and /state's
`elsewhere` — each other machine's runtime from its `now` file, while this machine saw it in
the last few minutes by its own clock."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from antidrift.core.isotime import iso

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


class Saying:
    """Mixed into Syncing: it provides the store, the peers, the skipped files, the `now`
    files seen and the wall clock."""

    def elsewhere(self) -> list[dict[str, object]]:
        """/state's `elsewhere`: each other machine's runtime, while its `now` was seen in the
        last FRESH seconds (this machine's clock alone: clocks a day apart still agree)."""
        now, shown = self._wall(), []
        for device, seen in sorted(self._elsewhere.items()):
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
        body = self._elsewhere[device_id].body
        done = body.get("success_condition") if isinstance(body, dict) else None
        return {**entry, "success_condition": _text(done, 500)}

    def status(self) -> SyncStatus:
        counts = self._store.commitments_by_device()
        devices = []
        for peer in list(self._peers.values()):
            devices.append({**peer, "commitments": counts.get(str(peer["id"]), 0)})
        return SyncStatus(
            {"id": self.me, "name": self.name},
            str(self.folder) if self.folder else None,
            devices,
            [s.to_json() for s in self._skipped],
            self.problem,
        )


def seen_at(wall: float | None) -> str | None:
    return iso(datetime.fromtimestamp(wall, UTC)) if wall is not None else None


def _text(value: object, limit: int) -> str | None:
    return value[:limit] if isinstance(value, str) else None
