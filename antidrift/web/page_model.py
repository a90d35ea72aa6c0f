"""The whole view one page (or one view swapped in over the socket) renders: the snapshot's
facts, its widgets and what the store adds, built here for web/views.py's Views (its
`widgets`, `day_items` and `page`). Loaded with the first page or socket, not at every start
(issue 40: the footprint)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from antidrift.core.day import local_day
from antidrift.core.domain import Health, RuntimeState
from antidrift.drift.policy import DriftStatus
from antidrift.session.drafts import PLAN_FIELDS
from antidrift.web.views import HISTORY_ON_PAGE, Shows, view_of

if TYPE_CHECKING:
    from antidrift.core.domain import Commitment
    from antidrift.core.insights import Calibration
    from antidrift.session.snapshot import DriftInfo, Snapshot
    from antidrift.tasks import Offer
    from antidrift.web.views import Views
    from antidrift.web.widgets import Widget
    from antidrift.web.words import Closure, Today


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


def widgets_of(views: Views, snap: Snapshot) -> tuple[Widget, ...]:
    """The pushed widgets of the snapshot's view (parents before their children), then
    those outside the view."""
    from antidrift.web.widgets import Announce, Icon, Offline, Title

    outside = (
        Title.of(snap),
        Icon.of(snap),
        Offline(snap.now.replace(microsecond=0)),
        Announce.of(snap),
    )
    return _view_widgets(views, snap) + outside


def _view_widgets(views: Views, snap: Snapshot) -> tuple[Widget, ...]:
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

    found = views._cli_found(snap)
    if snap.state is RuntimeState.PLANNING and snap.coach is not None:
        coach, info = snap.coach, views.coach
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
            *_elsewhere(views),
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
                drift_said(views.drift, views._found, views.coach),
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
        shown = _elsewhere(views, offer=snap.following is None)
        if shown:
            shown += (FollowingLine.of(snap, views.drift.cli), FollowStatus.of(snap))
        return (*shown, NextUp.of(views._reader.day_queue()))
    if snap.state is RuntimeState.REVIEW and snap.reflection is not None:
        r = snap.reflection
        return (
            _review_evidence(views, snap),
            ReflectionWidget(r.status, r.text, r.error),
            Undo(snap.undo_until),
            UndoLeft.of(snap.undo_until, snap.now),
        )
    return ()


def _review_evidence(views: Views, snap: Snapshot) -> Widget:
    """The review's focus evidence: read anew when another machine's arrives (sync)."""
    from antidrift.web.review_evidence import ReviewEvidences

    with views._lock:
        if views._review is None:
            views._review = ReviewEvidences(views._reader)
        review = views._review
    return review.of(snap)


def _elsewhere(views: Views, offer: bool = False) -> tuple[Widget, ...]:
    """The line on the user's other machines, while sync is on (offer: Guard here too)."""
    from antidrift.web.elsewhere import ElsewhereWidget

    others = views.elsewhere()
    return () if others is None else (ElsewhereWidget.of(others, offer),)


def day_items_of(views: Views, snap: Snapshot) -> tuple[Widget, ...]:
    """/day's list of items, for its socket: once another machine's change of the queue
    was taken in, and again at each such change (none before: nothing to follow)."""
    from antidrift.web.day_items import DayQueueList

    taken = views.day_taken()
    if not taken:
        return ()
    return (DayQueueList(taken, tuple(views._reader.day_queue()), local_day(snap.now)),)


def page_of(views: Views, snap: Snapshot, widgets: tuple[Widget, ...] | None = None) -> PageModel:
    """The whole view: its widgets (the review's focus evidence is one), and the history
    or summary it lists."""
    from antidrift.web.words import TODAY_LOOKS_AT, Closure, Today

    if widgets is None:  # a page served whole reads its review's evidence afresh: the teeth
        with views._lock:  # save what they did off the lock, a Finish may come first
            views._review = None
        widgets = widgets_of(views, snap)
    history: tuple[Commitment, ...] = ()
    calibration = today = closure = None
    figures: dict[str, tuple[int, float | None]] = {}
    if snap.state is RuntimeState.PLANNING:
        calibration = views._reader.calibration()
    if snap.state is RuntimeState.LOCKED:
        recent = views._reader.history(limit=TODAY_LOOKS_AT)
        history, today = tuple(recent[:HISTORY_ON_PAGE]), Today.of(recent, snap.now)
        closure = Closure.of(recent, snap.closure)
        figures = views._reader.drift_summaries([c.id for c in history]) if history else {}
    served = history if snap.state is RuntimeState.LOCKED else (snap.commitment,)
    return PageModel(
        snap,
        Shows.of(snap),
        widgets,
        history,
        calibration,
        views.drift,
        today,
        closure=closure,
        tasks_on=snap.state is RuntimeState.PLANNING and views.tasks.configured(),
        offers=views.tasks.offers((c.id, c.task) for c in served if c is not None),
        figures=figures,
    )
