"""Evidence by device (Guard here too), pure: what another of the user's machines watched for a
commitment — its time per window, its verdicts, its drift episodes, its figures — and how a
commitment's figures take it in.

How the figures combine: the drift count is every machine's episodes added up (a nudge on
the laptop is a drift as much as one on the desk); the on-task share is time-weighted over
every machine's judged window time together — each machine's share weighed by its seconds
judged on or off task (unclear time counts for neither, as on one machine) — so ten minutes
judged on the laptop move the share as much as ten on the desk; unclear seconds add up. A
machine with nothing judged weighs nothing. Each machine's own figures are worked out from
its rows (its windows under its verdicts, its episodes counted) when they are written, never
taken from what the record says of itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from antidrift.core.drift_records import Episode, Judgement, Window

HERE = ""  # the device id of this machine's own evidence for another's commitment
MAX_DEVICES = 16  # machines whose evidence is kept for one commitment (beside its own)

KIND = "evidence"  # a sync record's kind (core/ports.EVIDENCE)
_KEY = re.compile(r"evidence:([A-Za-z0-9-]{1,64}):([A-Za-z0-9]{1,64})")

# (app, title, place, seconds): one window's time on one machine, by where it went.
WindowRow = tuple[str, str, str, float]


@dataclass(frozen=True)
class DeviceFigures:
    """One machine's figures for a commitment it watched."""

    drift_count: int = 0
    on_task_share: float | None = None  # None: nothing judged on or off task there
    unclear_secs: float = 0.0
    judged_secs: float = 0.0  # on and off task: the weight of its share


@dataclass(frozen=True)
class DeviceEvidence:
    """What one machine (not the commitment's own) watched for a commitment."""

    device_id: str  # HERE: this machine, guarding it here
    device: str | None  # its name (None: this machine)
    windows: tuple[WindowRow, ...] = ()  # the longest first
    verdicts: Mapping[Window, Judgement] = field(default_factory=dict)
    episodes: tuple[Episode, ...] = ()
    figures: DeviceFigures = DeviceFigures()
    samples: int = 0  # windows seen (this machine's; another's record does not say)

    @property
    def seconds(self) -> float:
        return sum(row[3] for row in self.windows)


def combined(
    own: tuple[int, float | None] | None,
    own_judged: float,
    others: Iterable[DeviceFigures],
) -> tuple[int, float | None] | None:
    """A commitment's (drift count, on-task share) with the other machines' in: `own` its
    own figures (None: its guard did not watch it), `own_judged` the seconds they judged on
    or off task. None when no machine watched it."""
    found = list(others)
    if not found:
        return own
    count = (own[0] if own else 0) + sum(f.drift_count for f in found)
    parts = [(f.on_task_share, f.judged_secs) for f in found]
    if own is not None:
        parts.append((own[1], own_judged))
    weighed = [(share, secs) for share, secs in parts if share is not None and secs > 0]
    whole = sum(secs for _, secs in weighed)
    share = sum(s * secs for s, secs in weighed) / whole if whole > 0 else None
    if share is None and own is not None:
        share = own[1]  # nothing weighed elsewhere: the commitment's own share stands
    return count, share


def evidence_id(commitment_id: str, device_id: str) -> str:
    """The sync record of what `device_id` watched for a commitment."""
    return f"{KIND}:{commitment_id}:{device_id}"


def evidence_key(record_id: str) -> tuple[str, str] | None:
    """(commitment id, the watching machine's id) of an evidence record's id (None: not
    one: a commitment's id is a UUID, a machine's random letters and digits)."""
    found = _KEY.fullmatch(record_id)
    return (found[1], found[2]) if found else None
