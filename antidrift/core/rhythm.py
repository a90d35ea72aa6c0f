"""The rhythm between commitments (pure): a break and how long it is, and what of the last
moves must outlive a restart — the closure the locked view acknowledges, the break, the Undo
Finish window and the "5 minutes left" already said. Kept as one JSON object beside the
runtime state (store `save_rhythm`), read back leniently: a value that makes no sense is
dropped, never a failed start."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, replace
from datetime import datetime

from antidrift.core.domain import Commitment, ValidationError, whole_number
from antidrift.core.isotime import from_iso, iso

log = logging.getLogger("antidrift.session")

MAX_BREAK_MINUTES = 120


@dataclass(frozen=True)
class BreakSettings:
    """Settings `break_minutes`, `long_break_minutes`, `long_break_every`, `auto_break`."""

    minutes: int = 5
    long_minutes: int = 15
    long_every: int = 4  # every 4th met commitment (today) earns the long one
    auto: bool = False  # a break starts by itself when an outcome is recorded


@dataclass(frozen=True)
class Break:
    started_at: datetime
    ends_at: datetime
    long: bool = False

    def seconds_left(self, now: datetime) -> int:
        return max(0, min(self.total_secs, round((self.ends_at - now).total_seconds())))

    @property
    def total_secs(self) -> int:
        return max(0, round((self.ends_at - self.started_at).total_seconds()))


def is_long(met_today: int, last_met: bool, every: int) -> bool:
    """The break after the `every`-th met commitment of the day (and each multiple) is long."""
    return last_met and every > 0 and met_today > 0 and met_today % every == 0


def break_minutes(value: object, default: int) -> int:
    """POST /break's `minutes` (absent: the setting's), a whole number within 1..120."""
    if value is None or value == "":
        return default
    if isinstance(value, int) and not isinstance(value, bool):
        minutes = value if 1 <= value <= MAX_BREAK_MINUTES else None
    elif isinstance(value, str):
        minutes = whole_number(value.strip(), 1, MAX_BREAK_MINUTES, 3)
    else:
        minutes = None
    if minutes is None:
        raise ValidationError(
            f"A break is a whole number of minutes from 1 to {MAX_BREAK_MINUTES}.", "minutes"
        )
    return minutes


@dataclass(frozen=True)
class Finished:
    """A manual Finish that can be undone: which commitment, when, and what Finish changed of
    it (a pause in progress ends, moving the deadline), so the running one can be rebuilt."""

    commitment_id: str
    at: datetime
    deadline: datetime
    paused_at: datetime | None
    paused_secs: int

    @classmethod
    def of(cls, before: Commitment, at: datetime) -> Finished:
        return cls(before.id, at, before.deadline, before.paused_at, before.paused_secs)

    def before(self, stopped: Commitment) -> Commitment:
        """The commitment as it ran before Finish, from the one in review."""
        return replace(
            stopped,
            ended_at=None,
            deadline=self.deadline,
            paused_at=self.paused_at,
            paused_secs=self.paused_secs,
        )


@dataclass(frozen=True)
class Rhythm:
    closure: str | None = None  # the commitment whose outcome was just recorded
    rest: Break | None = None  # the break under way
    finished: Finished | None = None  # the last manual Finish (Undo Finish)
    five_said: str | None = None  # the commitment that has heard "5 minutes left" already
    # Back from time away, not yet answered: (the commitment, the absence's seconds).
    asked: tuple[str, int] | None = None
    rested: bool = False  # a break ran its course: "Break over" until the next plan

    def but(self, **changes: object) -> Rhythm:
        return replace(self, **changes)

    def dump(self) -> str:
        body: dict[str, object] = {"closure": self.closure, "five_said": self.five_said}
        if self.asked is not None:
            body["asked"] = {"id": self.asked[0], "secs": self.asked[1]}
        if self.rested:
            body["rested"] = True
        if self.rest is not None:
            r = self.rest
            body["break"] = {
                "started_at": iso(r.started_at),
                "ends_at": iso(r.ends_at),
                "long": r.long,
            }
        if self.finished is not None:
            f = self.finished
            body["finished"] = {
                "id": f.commitment_id,
                "at": iso(f.at),
                "deadline": iso(f.deadline),
                "paused_at": iso(f.paused_at),
                "paused_secs": f.paused_secs,
            }
        return json.dumps(body, separators=(",", ":"))

    @classmethod
    def parse(cls, text: str | None) -> Rhythm:
        """What `dump` wrote; anything else (an older file, a hand edit) is an empty rhythm."""
        if not text:
            return cls()
        try:
            body = json.loads(text)
            rest = body.get("break")
            done = body.get("finished")
            asked = body.get("asked")
            return cls(
                _text(body.get("closure")),
                None
                if rest is None
                else Break(_time(rest["started_at"]), _time(rest["ends_at"]), rest["long"] is True),
                None
                if done is None
                else Finished(
                    _text(done["id"]) or "",
                    _time(done["at"]),
                    _time(done["deadline"]),
                    from_iso(done["paused_at"]),
                    int(done["paused_secs"]),
                ),
                _text(body.get("five_said")),
                None if asked is None else (_text(asked["id"]) or "", _secs(asked["secs"])),
                body.get("rested") is True,
            )
        except (ValueError, TypeError, KeyError, AttributeError):
            log.warning("the stored rhythm could not be read: the break and Undo are dropped")
            return cls()


def _text(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(value)
    return value


def _secs(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TypeError(value)
    return value


def _time(value: object) -> datetime:
    found = from_iso(value)  # type: ignore[arg-type]
    if found is None or found.tzinfo is None:
        raise ValueError(value)
    return found


def five_said_after(c: Commitment, now: datetime, from_secs: int, five: int) -> bool:
    """Whether an extension at `now` comes after "5 minutes left" was said for `c`: its span
    (with what was added) was long enough and no more than five minutes were left."""
    return c.total_secs >= from_secs and c.seconds_left(now) <= five
