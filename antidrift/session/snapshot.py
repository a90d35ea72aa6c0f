"""What the web layer is shown: the snapshot the controller takes under its lock, and the
fixed facts of the setup (which coach, whether the drift guard is on). Plain frozen data: no
Flask, no I/O, nothing that runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from antidrift.calendar import Agenda
from antidrift.core.domain import (
    Commitment,
    Health,
    Plan,
    RuntimeState,
    TaskRef,
    WindowSample,
    evidence_health,
)
from antidrift.core.following import Followed, FollowEnd
from antidrift.core.rhythm import Break
from antidrift.drift.policy import OFF, DriftView
from antidrift.session.away import AwayView
from antidrift.session.drafts import Draft


class CoachStatus:
    IDLE = "idle"
    PENDING = "pending"
    READY = "ready"
    ERROR = "error"


@dataclass(frozen=True)
class CoachView:
    """The coach as the page shows it; exists only while planning."""

    status: str = CoachStatus.IDLE
    proposal: Plan | None = None  # validated by the domain, like a typed plan
    proposal_id: str | None = None
    error: str | None = None
    pending_since: datetime | None = None
    kept: tuple[str, ...] = ()  # plan fields the user edited: the proposal shows beside them
    to_start: bool = False  # nothing typed while the coach thought: focus goes on to Start

    def elapsed(self, now: datetime) -> int | None:
        """Whole seconds a pending call has run (rounded: "1 s" shows after ~0.5 s)."""
        return pending_secs(self.status, self.pending_since, now)


def pending_secs(status: str, since: datetime | None, now: datetime) -> int | None:
    """Whole seconds a pending coach call has run (rounded); None unless pending."""
    if status != CoachStatus.PENDING or since is None:
        return None
    return max(0, round((now - since).total_seconds()))


@dataclass(frozen=True)
class DayPlanView:
    """Sharpen the day as /day shows it (session/day_coaching.py; never persisted): pending,
    an error, or the proposal's commitments waiting to be added. `key` names what is shown
    (it changes with every change), so a page that shows it is not sent it again."""

    status: str = CoachStatus.IDLE
    items: tuple[Plan, ...] = ()  # validated by the domain, like a typed plan
    error: str | None = None
    left_out: int = 0  # entries of the coach's answer that were not usable commitments
    pending_since: datetime | None = None
    key: str = ""

    def elapsed(self, now: datetime) -> int | None:
        return pending_secs(self.status, self.pending_since, now)


class ReflectionStatus:
    IDLE = "idle"
    PENDING = "pending"
    READY = "ready"
    ERROR = "error"


@dataclass(frozen=True)
class ReflectionView:
    """The reflection as the review shows it (never persisted, like the coach's state)."""

    commitment_id: str = ""
    status: str = ReflectionStatus.IDLE
    text: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class EvidenceView:
    health: Health
    last: WindowSample | None

    @classmethod
    def of(
        cls,
        watching_since: datetime | None,
        last: WindowSample | None,
        now: datetime,
        running: bool,
    ) -> EvidenceView:
        """While a commitment runs (since when), how fresh its evidence is; otherwise nothing
        is being watched for, and it says only whether a watcher is there."""
        if watching_since is None:
            return cls(Health.HEALTHY if running else Health.UNAVAILABLE, None)
        at = last.at if last else None
        return cls(evidence_health(at, now, sampler_running=running, since=watching_since), last)


@dataclass(frozen=True)
class Snapshot:
    """Everything a page needs, taken under the lock at one instant."""

    version: int
    state: RuntimeState
    commitment: Commitment | None
    evidence: EvidenceView
    coach: CoachView | None
    now: datetime
    drift: DriftView = OFF
    reflection: ReflectionView | None = None  # review only
    draft: Draft | None = None  # planning only: the form as last typed
    paused_secs: int = 0  # active only: seconds paused so far, a pause in progress included
    undo_until: datetime | None = None  # review only: Finish can be undone until then
    closure: str | None = None  # locked only: the commitment whose outcome was just recorded
    away: AwayView | None = None  # active only: away from the keyboard, or just back
    calendar: Agenda = Agenda()  # the event under way and the next (none without a calendar)
    rest: Break | None = None  # locked only: the break under way
    rested: bool = False  # locked only: a break ran its course ("Break over") since the plan
    five_said: bool = False  # the commitment heard "5 minutes left" before an extension
    # Guard here too: another machine's commitment guarded here (locked), or why the last
    # one ended by itself; whether this machine's judge decides what no rule does.
    following: Followed | None = None
    follow_end: FollowEnd | None = None
    follow_judged: bool = False
    day_plan: DayPlanView = DayPlanView()  # Sharpen the day (/day), in any state

    @property
    def task(self) -> TaskRef | None:
        """Planning only: the task the next commitment will serve (the draft keeps it)."""
        return self.draft.task if self.draft is not None else None


# -- the setup, as the page describes it -----------------------------------------------------


class HasBinary(Protocol):
    env_var: str

    def binary(self) -> str | None: ...


@dataclass(frozen=True)
class CoachInfo:
    """What the page says about the coach: which backend, and how to fix it if missing."""

    name: str | None
    problem: str | None = None
    backend: HasBinary | None = field(default=None, compare=False, repr=False)

    def binary_found(self) -> bool:
        """Looks the CLI up on PATH now (Views caches it: never call this per tick)."""
        return self.backend is not None and self.backend.binary() is not None

    @property
    def env_var(self) -> str:
        return getattr(self.backend, "env_var", "") or ""

    @property
    def tuning(self) -> str:
        """The model and effort the coach asks for ("haiku, low effort"); "" for a command."""
        tuning = getattr(self.backend, "tuning", None)
        return str(tuning) if tuning is not None else ""


@dataclass(frozen=True)
class DriftInfo:
    """What the page says about the guard: on or off (and why), which CLI judges."""

    on: bool
    cli: str | None = None
    why_off: str | None = None
    titles_excluded: bool = False  # ANTIDRIFT_EVIDENCE_EXCLUDE is set
    remote: str | None = None  # where titles go when the AI server is on another machine
    teeth: bool = False  # a new commitment puts an ignored off-task window away (the setting)
    teeth_after: int = 30  # seconds on that window after the nudge
