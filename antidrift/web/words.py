"""What the main views say in words: errors without variable names, today's summary, the
closure after an outcome is saved."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from antidrift.core.domain import COUNTED, Commitment, Outcome
from antidrift.core.insights import streaks
from antidrift.session.snapshot import CoachInfo, DriftInfo
from antidrift.settings import SETTINGS
from antidrift.web.settings_form import LABELS

# "…, or set <the claude variable>", "fix <the command variable> (…)": the views name no
# variable. One the Settings page holds is named by its label there; one it does not hold
# (a program's path, the command backend's command) is dropped: the page could not help.
_VARIABLE = re.compile(
    r"(?:,? or )?\b(?:set |fix |unset )?`?("
    # The longest first, and whole: ANTIDRIFT_NOTIFY never takes ANTIDRIFT_NOTIFY_COMMAND's head.
    + "|".join(re.escape(v) for v in sorted((s.variable for s in SETTINGS), key=len, reverse=True))
    + r")\b(?:=\S+)?`?(?: \([^)]*\))?"
)
_BY_VARIABLE = {s.variable: s for s in SETTINGS}


def in_words(text: str | None, labels: Mapping[str, str] | None = None) -> str | None:
    """An error or reason as the main views say it: no variable names, no backticks, a
    capital first. `labels`: the Settings page's label of each key it holds."""
    if not text:
        return text
    labels = LABELS if labels is None else labels
    found = [_BY_VARIABLE[m.group(1)] for m in _VARIABLE.finditer(text)]
    if found:
        text = _VARIABLE.sub("", text).rstrip(" ,—-")
        held = [labels[s.key] for s in found if s.page and s.key in labels]
        if held:
            text += f"{', or' if ' — ' in text else ' —'} change “{held[0]}” in Settings"
    text = text.replace("`", "")
    return text[:1].upper() + text[1:]


TODAY_LOOKS_AT = 200  # the newest entries read for today's summary (more is not a day)


@dataclass(frozen=True)
class Today:
    """The locked view's line on today: commitments ended, how many met, minutes focused."""

    count: int = 0
    met: int = 0
    secs: int = 0  # focused: the page says it as a duration (core/minutes.py)

    @property
    def missed(self) -> int:
        return self.count - self.met

    @classmethod
    def of(cls, history: list[Commitment], now: datetime) -> Today:
        day = now.astimezone().date()
        done = [
            c
            for c in history
            if c.ended_at and c.ended_at.astimezone().date() == day and c.outcome in COUNTED
        ]
        secs = sum(c.actual_secs for c in done)
        met = sum(1 for c in done if c.outcome is Outcome.MET)
        return cls(len(done), met, secs)


def drift_said(drift: DriftInfo, found: bool | None, coach: CoachInfo) -> DriftInfo:
    """The guard as the page says it: not "on" beside a judge that is not installed (the
    judge is the coach's CLI, looked up while planning)."""
    if drift.on and found is False and coach.backend is not None:
        return DriftInfo(False, drift.cli, f"{drift.cli} is not installed")
    return drift


@dataclass(frozen=True)
class Closure:
    """The locked view's acknowledgement (id="closure") of the outcome just saved: Met or
    Missed, the met streak, and Again's commitment."""

    commitment_id: str
    next_action: str
    met: bool
    streak: int = 0  # met in a row, this one included (when met)

    @classmethod
    def of(cls, recent: list[Commitment], commitment_id: str | None) -> Closure | None:
        """From the history, newest first (None when that entry was removed meanwhile)."""
        entry = next((c for c in recent if c.id == commitment_id), None)
        if entry is None:
            return None
        met = entry.outcome is Outcome.MET
        newer_first = [c.outcome for c in recent[recent.index(entry) :]]
        return cls(entry.id, entry.next_action, met, streaks(newer_first).current if met else 0)
