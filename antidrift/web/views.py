"""View models: the data each template renders, built from a snapshot before rendering.

The renderer only turns these into HTML; nothing here renders, and nothing in the renderer
reads the controller. Whole views are `PageModel`s; the pushed widgets inside them are in
antidrift/web/widgets.py (how to add one is written there).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from antidrift.core.day import DayItem, local_day
from antidrift.core.device_evidence import DeviceEvidence
from antidrift.core.domain import Commitment, Health, RuntimeState
from antidrift.core.insights import Calibration, WindowTime
from antidrift.drift.policy import DriftStatus, Episode, Judgement, Rule, Window
from antidrift.session.drafts import PLAN_FIELDS
from antidrift.session.snapshot import CoachInfo, CoachStatus, DriftInfo, Snapshot
from antidrift.tasks import Board, Offer
from antidrift.tasks import Listing as Listing  # the task list's view data, for the renderer

if TYPE_CHECKING:  # the widgets and their words load with the first page (issue 40)
    from antidrift.web.review_evidence import ReviewEvidences
    from antidrift.web.widgets import Widget
    from antidrift.web.words import Closure, Today

HISTORY_ON_PAGE = 20
CLI_RECHECK = 5.0  # seconds a "CLI found on PATH" answer is trusted while planning


@dataclass(frozen=True)
class Shows:
    """What one page shows: the state, its commitment, the proposal it has applied, and the
    words of a running commitment's next action (`wording`, a digest: changed while it runs,
    the page gets the new words in its heading, and in its editor only while that is closed:
    web/push.py)."""

    state: str | None = None
    commitment_id: str = ""
    proposal_id: str = ""
    wording: str = ""

    @classmethod
    def of(cls, snap: Snapshot) -> Shows:
        coach = snap.coach
        applied = coach.proposal_id if coach and coach.status == CoachStatus.READY else ""
        c = snap.commitment
        words = c.next_action if c is not None and snap.state is RuntimeState.ACTIVE else ""
        wording = hashlib.sha256(words.encode()).hexdigest()[:12] if words else ""
        return cls(view_of(snap), c.id if c else "", applied or "", wording)

    def params(self) -> dict[str, str]:
        """The socket URL's query (_ws.html): what the page shows."""
        return {"view": self.state or "", "c": self.commitment_id, "p": self.proposal_id} | (
            {"n": self.wording} if self.wording else {}
        )


def view_of(snap: Snapshot) -> str:
    """Which view the page shows: the state's, or "break" while locked on a break."""
    return "break" if snap.rest is not None else snap.state.value


@dataclass(frozen=True)
class RulesForm:
    """The standing rules partial's state: a message, and what was typed when it was refused."""

    message: str = ""
    app: str = ""
    title_contains: str = ""
    verdict: str = ""
    invalid: tuple[str, ...] = ()
    focus: str = ""  # "app" (the form, to add another) or "title" (the list's heading)
    site: str = ""
    error: bool = False  # the message is a refusal (shown as one), not a confirmation

    @classmethod
    def typed(cls, message: str, data: Mapping[str, object], invalid: tuple[str, ...]):
        """A refused rule: the sentence, the fields as typed, the ones at fault marked."""

        def text(key: str) -> str:
            value = data.get(key)
            return value if isinstance(value, str) else ""

        typed = (text("app"), text("title_contains"), text("verdict"))
        return cls(message, *typed, invalid, "app", error=True, site=text("site"))


@dataclass(frozen=True)
class RulesView:
    """The standing rules partial: the rules, its state, where a plain form returns."""

    rules: tuple[Rule, ...]
    form: RulesForm = RulesForm()
    back: str = "/rules"

    def context(self) -> dict[str, object]:
        return {"rules": self.rules, "rules_form": self.form, "rules_back": self.back}


# -- whole views ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PageModel:
    """Everything one view renders: the snapshot's facts, its widgets, what the store adds."""

    snap: Snapshot
    shows: Shows
    widgets: tuple[Widget, ...]
    history: tuple[Commitment, ...] = ()
    calibration: Calibration | None = None  # planning: how long the user's plans really take
    guard: DriftInfo | None = None  # planning: the guard can be turned off, teeth on, for one
    today: Today | None = None  # locked: today's summary
    tasks_on: bool = False  # planning lists the user's open tasks (task sources configured)
    # Review and history: what each remembered task's source offers to record, by commitment.
    offers: Mapping[str, Offer] = field(default_factory=dict)
    closure: Closure | None = None  # locked: the outcome just recorded, and what next
    # Locked: the drift guard's (count, on-task share) per history entry it watched, so an
    # entry says here what it says on Insights.
    figures: Mapping[str, tuple[int, float | None]] = field(default_factory=dict)

    def context(self) -> dict[str, object]:
        snap = self.snap
        ctx: dict[str, object] = {
            "snap": snap,
            "state": view_of(snap),
            "rested": snap.rested,
            "commitment": snap.commitment,
            "shows": self.shows,
            "history": list(self.history),
            "calibration": self.calibration,
            "drift_on": self.guard is not None and self.guard.on,
            "guard": self.guard,
            "today": self.today,
            "closure": self.closure,
            "draft": snap.draft,
            "tasks_on": self.tasks_on,
            "offers": self.offers,
            "figures": self.figures,
        }
        ctx.update((w.name, w) for w in self.widgets)
        return ctx


class Reader(Protocol):
    """What the planning, locked and review views read beyond the snapshot (the read model)."""

    def history(self, limit: int | None = None) -> list[Commitment]: ...

    def window_time(self, commitment: Commitment, now: datetime) -> WindowTime: ...

    def drift_summaries(self, ids: list[str]) -> dict[str, tuple[int, float | None]]: ...

    def drift_episodes(self, commitment_id: str) -> list[Episode]: ...

    def drift_judgements(self, commitment_id: str) -> dict[Window, Judgement]: ...

    def unclear_secs(self, commitment_id: str) -> float: ...

    def device_evidence(self, commitment_id: str) -> list[DeviceEvidence]: ...

    def evidence_stamps(self, commitment_id: str) -> tuple[tuple[str, str], ...]: ...

    def calibration(self) -> Calibration | None: ...

    def day_queue(self) -> list[DayItem]: ...


class Views:
    """Builds view models from snapshots; the only place the web layer asks for more data."""

    def __init__(
        self,
        coach: CoachInfo,
        reader: Reader,
        *,
        recheck: float = CLI_RECHECK,
        monotonic: Callable[[], float] = time.monotonic,
        drift: DriftInfo | None = None,
        tasks: Board | None = None,
    ) -> None:
        self.coach = coach
        self.tasks = tasks or Board(tuple)
        self.drift = drift or DriftInfo(False, why_off="it is not configured")
        self._reader = reader
        self._recheck, self._monotonic = recheck, monotonic
        self._lock = threading.Lock()
        self._found: bool | None = None
        self._looked_at = 0.0
        self._was: RuntimeState | None = None
        self._looked_for: CoachInfo | None = None  # Settings may change the coach
        self._review: ReviewEvidences | None = None  # read again only when its key moves
        # The user's other machines (sync): /state's `elsewhere`, as the runtime reads it
        # (None: sync is off, and the views have no line for it).
        self.elsewhere: Callable[[], list[dict[str, object]] | None] = lambda: None
        # How many of the others' changes of the day's queue were taken in (sync): /day's
        # list is pushed when it moves (web/day_items.py).
        self.day_taken: Callable[[], int] = lambda: 0

    def _cli_found(self, snap: Snapshot) -> bool:
        """Whether the coach's CLI (the drift guard's judge too) is on PATH: looked up on
        entering planning or active, then at most every few seconds (someone may install or
        remove it while the page is open), never per tick. So the coach's line and the
        guard's say what the CLI does now, not what the last planning found."""
        with self._lock:
            now = self._monotonic()
            looks = snap.state in (RuntimeState.PLANNING, RuntimeState.ACTIVE)
            entered, self._was = snap.state is not self._was, snap.state
            new = self.coach is not self._looked_for
            if looks and (new or entered or now - self._looked_at >= self._recheck):
                self._found = self.coach.binary_found()
                self._looked_at, self._looked_for = now, self.coach
            return bool(self._found)

    def widgets(self, snap: Snapshot) -> tuple[Widget, ...]:
        """The pushed widgets of the snapshot's view (parents before their children), then
        those outside the view."""
        from antidrift.web.widgets import Announce, Icon, Offline, Title

        outside = (
            Title.of(snap),
            Icon.of(snap),
            Offline(snap.now.replace(microsecond=0)),
            Announce.of(snap),
        )
        return self._view_widgets(snap) + outside

    def _view_widgets(self, snap: Snapshot) -> tuple[Widget, ...]:
        from antidrift.web.elsewhere import FollowingLine, FollowStatus
        from antidrift.web.meetings import EventClash, Meeting, NextEvent
        from antidrift.web.widgets import (
            AwayReturn,
            BreakLeft,
            CoachElapsed,
            CoachSource,
            CoachWidget,
            Controls,
            DriftBannerWidget,
            DriftGuardWidget,
            EvidenceWidget,
            NextUp,
            Phase,
            ReflectionWidget,
            Suggestion,
            TaskPick,
            TimeLeft,
            Undo,
            UndoLeft,
        )
        from antidrift.web.words import drift_said, in_words

        found = self._cli_found(snap)
        if snap.state is RuntimeState.PLANNING and snap.coach is not None:
            coach, info = snap.coach, self.coach
            return (
                CoachWidget(
                    coach.status,
                    in_words(coach.error),
                    coach.proposal,
                    CoachSource(info.name, in_words(info.problem), "", found, info.tuning),
                    coach.kept,
                    coach.to_start,
                ),
                CoachElapsed(coach.elapsed(snap.now) or 0),
                TaskPick(snap.task),
                *(Suggestion.of(name, coach, snap.draft) for name in PLAN_FIELDS),
                NextEvent.of(snap),
                *self._elsewhere(),
            )
        if snap.state is RuntimeState.ACTIVE and snap.commitment is not None:
            c, last = snap.commitment, snap.evidence.last
            # A verdict on the window seen last is not said once the watcher is no longer
            # seeing windows: the dot beside it and the guard's line say nothing stale.
            watching = snap.evidence.health is Health.HEALTHY or c.paused
            judged = snap.drift.status.value
            return (
                Phase(c.paused, snap.away is not None and snap.away.away),
                TimeLeft.of(snap.commitment, snap.now),
                DriftBannerWidget(snap.drift.banner),
                EvidenceWidget(
                    snap.evidence.health,
                    last.app if last else None,
                    last.title if last else None,
                    judged if watching or judged == DriftStatus.AWAY else "",
                    c.paused,
                ),
                DriftGuardWidget(
                    snap.drift.status,
                    snap.drift.reason,
                    drift_said(self.drift, self._found, self.coach),
                    snap.drift.banner is not None,
                    snap.drift.put_away,
                    snap.calendar.now,
                    quiet=snap.evidence.health is Health.STALE and not c.paused,
                ),
                Controls(c.paused, c.seconds_left(snap.now) if c.paused else 0),
                AwayReturn.of(snap),
                EventClash.of(snap),
                Meeting.of(snap),
            )
        if snap.rest is not None:
            return (BreakLeft.of(snap.rest, snap.now),)
        if snap.state is RuntimeState.LOCKED:  # with sync, Guard here too beside what runs
            shown = self._elsewhere(offer=snap.following is None)
            if shown:
                shown += (FollowingLine.of(snap, self.drift.cli), FollowStatus.of(snap))
            return (*shown, NextUp.of(self._reader.day_queue()))
        if snap.state is RuntimeState.REVIEW and snap.reflection is not None:
            r = snap.reflection
            return (
                self._review_evidence(snap),
                ReflectionWidget(r.status, r.text, r.error),
                Undo(snap.undo_until),
                UndoLeft.of(snap.undo_until, snap.now),
            )
        return ()

    def _review_evidence(self, snap: Snapshot) -> Widget:
        """The review's focus evidence: read anew when another machine's arrives (sync)."""
        from antidrift.web.review_evidence import ReviewEvidences

        with self._lock:
            if self._review is None:
                self._review = ReviewEvidences(self._reader)
            review = self._review
        return review.of(snap)

    def _elsewhere(self, offer: bool = False) -> tuple[Widget, ...]:
        """The line on the user's other machines, while sync is on (offer: Guard here too)."""
        from antidrift.web.elsewhere import ElsewhereWidget

        others = self.elsewhere()
        return () if others is None else (ElsewhereWidget.of(others, offer),)

    def day_items(self, snap: Snapshot) -> tuple[Widget, ...]:
        """/day's list of items, for its socket: once another machine's change of the queue
        was taken in, and again at each such change (none before: nothing to follow)."""
        from antidrift.web.day_items import DayQueueList

        taken = self.day_taken()
        if not taken:
            return ()
        return (DayQueueList(taken, tuple(self._reader.day_queue()), local_day(snap.now)),)

    def page(self, snap: Snapshot, widgets: tuple[Widget, ...] | None = None) -> PageModel:
        """The whole view: its widgets (the review's focus evidence is one), and the history
        or summary it lists."""
        from antidrift.web.words import TODAY_LOOKS_AT, Closure, Today

        if widgets is None:
            widgets = self.widgets(snap)
        history: tuple[Commitment, ...] = ()
        calibration = today = closure = None
        figures: dict[str, tuple[int, float | None]] = {}
        if snap.state is RuntimeState.PLANNING:
            calibration = self._reader.calibration()
        if snap.state is RuntimeState.LOCKED:
            recent = self._reader.history(limit=TODAY_LOOKS_AT)
            history, today = tuple(recent[:HISTORY_ON_PAGE]), Today.of(recent, snap.now)
            closure = Closure.of(recent, snap.closure)
            figures = self._reader.drift_summaries([c.id for c in history]) if history else {}
        served = history if snap.state is RuntimeState.LOCKED else (snap.commitment,)
        return PageModel(
            snap,
            Shows.of(snap),
            widgets,
            history,
            calibration,
            self.drift,
            today,
            closure=closure,
            tasks_on=snap.state is RuntimeState.PLANNING and self.tasks.configured(),
            offers=self.tasks.offers((c.id, c.task) for c in served if c is not None),
            figures=figures,
        )
