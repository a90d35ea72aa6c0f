"""Pushed widgets: the frozen data each partial renders, built by views.Views from a snapshot.

Pushed widgets are small frozen dataclasses, and the hub uses each object itself as its
change key: a widget is re-sent exactly when its object changes.

How to add a pushed widget (one frozen dataclass, one partial):

1. Write `templates/_<name>.html`: ONE root element with a fixed id, rendering only from
   the variable `<name>` (plus, if it includes other pushed widgets, their variables).
2. Add `@dataclass(frozen=True) class ...(Widget)` below with `name = "<name>"` (and
   `parent = "<other name>"` if it sits inside another pushed widget), holding every value
   the partial shows and nothing else.
3. Build it in `Views.widgets()` (antidrift/web/views.py) for the states in which it is on
   the page.

A field you add is pushed without anyone remembering a key. A partial that reads anything
outside its object would not be pushed when that changes: pushes render each widget from its
object alone, so such a partial shows up as blank in its test (tests/web/test_views.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from antidrift.calendar import Event, soon_text
from antidrift.core.day import DayItem
from antidrift.core.domain import (
    EXCLUDED_TITLE,
    Commitment,
    Health,
    Plan,
    RuntimeState,
    TaskRef,
)
from antidrift.core.minutes import whole_minutes
from antidrift.core.rhythm import Break
from antidrift.core.timing import clock_text, five_minutes_left
from antidrift.drift import window_key as key
from antidrift.drift.policy import DriftStatus, Episode
from antidrift.drift.verdicts import MAX_RULE_TEXT
from antidrift.session.drafts import Draft, proposed_value
from antidrift.session.snapshot import CoachStatus, CoachView, DriftInfo, Snapshot


@dataclass(frozen=True)
class Widget:
    """A pushed widget: `_<name>.html` rendered from this object, re-sent when it changes."""

    name: ClassVar[str]
    parent: ClassVar[str | None] = None  # a widget whose partial includes this one
    # Outside the view (the title, the offline notice): a whole view does not contain it,
    # so it is pushed beside every whole view as well.
    outside_view: ClassVar[bool] = False
    # Pushed because a button in it was pressed (and so replaced): the partial gets
    # `focus` true and marks its new button autofocus, so focus never drops to the body.
    focus_on_change: ClassVar[bool] = False


@dataclass(frozen=True)
class CoachSource:
    """Which coach answers Sharpen, and whether its CLI is there."""

    name: str | None
    problem: str | None
    env_var: str
    found: bool
    tuning: str = ""  # the model and effort asked for, e.g. "haiku, low effort"


@dataclass(frozen=True)
class CoachWidget(Widget):
    name = "coach"
    status: str
    error: str | None
    proposal: Plan | None  # the plan inputs show it (planning view, prefill)
    source: CoachSource
    kept: tuple[str, ...] = ()  # fields the user edited: the prefill leaves them alone
    to_start: bool = False  # the prefill focuses Start (nothing was typed while it thought)


@dataclass(frozen=True)
class Suggestion(Widget):
    """A proposal for a field the user had edited, beside it with a Use button
    (id="suggest-<field>"); empty text hides it."""

    name = "suggestion"
    field: str
    text: str

    @classmethod
    def of(cls, name: str, coach: CoachView, draft: Draft | None) -> Suggestion:
        widget = SUGGESTIONS[name]
        p = coach.proposal
        if p is None or coach.status != CoachStatus.READY or name not in coach.kept:
            return widget(name, "")
        text = proposed_value(p, name)
        return widget(name, "" if draft is not None and draft.value(name) == text else text)


class SuggestNextAction(Suggestion):
    name = "suggest_next_action"


class SuggestSuccessCondition(Suggestion):
    name = "suggest_success_condition"


class SuggestTimeboxMinutes(Suggestion):
    name = "suggest_timebox_minutes"


SUGGESTIONS: dict[str, type[Suggestion]] = {
    "next_action": SuggestNextAction,
    "success_condition": SuggestSuccessCondition,
    "timebox_minutes": SuggestTimeboxMinutes,
}


@dataclass(frozen=True)
class CoachElapsed(Widget):
    name = "coach_elapsed"
    parent = "coach"
    seconds: int


@dataclass(frozen=True)
class TimeLeft(Widget):
    name = "time_left"
    seconds: int
    timebox_secs: int
    extended_secs: int = 0
    deadline: datetime | None = None
    span_secs: int = 0  # start to deadline: what the progress bar measures
    paused: bool = False  # the clock stands still (the deadline moves when it resumes)

    @classmethod
    def of(cls, c: Commitment, now: datetime) -> TimeLeft:
        span = int((c.deadline - c.started_at).total_seconds())
        left = c.seconds_left(now)
        return cls(left, c.timebox_secs, c.extended_secs, c.deadline, span, c.paused)


@dataclass(frozen=True)
class BreakLeft(Widget):
    """The break's clock (id="break-left", role="timer"), counted down like the timebox's."""

    name = "break_left"
    seconds: int
    total_secs: int
    ends_at: datetime
    long: bool = False

    @classmethod
    def of(cls, rest: Break, now: datetime) -> BreakLeft:
        return cls(rest.seconds_left(now), rest.total_secs, rest.ends_at, rest.long)


@dataclass(frozen=True)
class Controls(Widget):
    """The active view's buttons: Finish, Pause or Resume, more time (not while paused);
    while paused, the line that says so. Re-sent only when paused changes, which replaces
    the button pressed: Resume (or Pause) takes the focus."""

    name = "controls"
    focus_on_change = True
    paused: bool
    left: int = 0  # while paused: the time left, standing still


@dataclass(frozen=True)
class AwayReturn(Widget):
    """Back from time away (id="away-return"): "You were away 12 min" with Count it as a
    pause and Keep counting, until one is pressed; empty otherwise."""

    name = "away_return"
    minutes: int = 0  # 0: nothing to answer

    @classmethod
    def of(cls, snap: Snapshot) -> AwayReturn:
        secs = snap.away.returned_secs if snap.away is not None else 0
        return cls(max(1, whole_minutes(secs)) if secs else 0)


@dataclass(frozen=True)
class Undo(Widget):
    """The review's Undo button, while a manual Finish can still be taken back; its
    removal is pushed when that time has passed."""

    name = "undo"
    until: datetime | None


@dataclass(frozen=True)
class UndoLeft(Widget):
    """The seconds Undo Finish has left, inside its button (id="undo-left"): pushed alone
    each second, so the button itself (and a focus on it) stays."""

    name = "undo_left"
    parent = "undo"
    seconds: int = 0

    @classmethod
    def of(cls, until: datetime | None, now: datetime) -> UndoLeft:
        return cls(max(0, math.ceil((until - now).total_seconds())) if until else 0)


@dataclass(frozen=True)
class Announce(Widget):
    """A polite live region (role status) outside the view: "5 minutes left." for a minute,
    "You were away 12 min." back at the keyboard, "Time's up." once the timebox ran out; its
    text is swapped in, so it is said once."""

    name = "announce"
    outside_view = True
    text: str = ""

    @classmethod
    def of(cls, snap: Snapshot) -> Announce:
        c = snap.commitment
        if c is None:
            return cls()
        if snap.state is RuntimeState.ACTIVE:
            soon = snap.calendar.soon(snap.now)
            said = ["5 minutes left."] if _five_minutes_left(snap) else []
            said += [f"{soon_text(soon)}."] if soon is not None else []
            back = AwayReturn.of(snap).minutes  # the question appears: said once, as it comes
            said += [f"You were away {back} min."] if back else []
            return cls(" ".join(said))
        if snap.state is RuntimeState.REVIEW and c.ran_out:
            return cls("Time's up.")
        return cls()


@dataclass(frozen=True)
class EvidenceWidget(Widget):
    name = "evidence"
    health: Health
    app: str | None
    title: str | None
    # The guard's status: the dot beside the window shows it, never "healthy"; "" while the
    # watcher is quiet or missing (no verdict on a window it no longer sees).
    judged: str = ""
    paused: bool = False  # nothing is recorded while paused: quiet by design, not "gone quiet"


@dataclass(frozen=True)
class Phase(Widget):
    """The active card's eyebrow above the clock (id="phase"): Active, Paused, or Away."""

    name = "phase"
    paused: bool = False
    away: bool = False  # no input for the away_after minutes: the clock runs on


@dataclass(frozen=True)
class Title(Widget):
    """The document title: always the view's; while active the time left comes first."""

    name = "title"
    outside_view = True
    text: str

    @classmethod
    def of(cls, snap: Snapshot) -> Title:
        c = snap.commitment
        if snap.state is RuntimeState.ACTIVE and c is not None:
            # One formula with the drift guard's (window_key): it knows this page by it.
            heads = [key.PAUSED] if c.paused else []
            if snap.away is not None and snap.away.away:
                heads = [key.AWAY]
            elif _five_minutes_left(snap):
                heads = [key.SOON]
            elif not c.paused and (soon := snap.calendar.soon(snap.now)):
                heads = [key.event_soon(soon.title)]
            if _drifting(snap):
                heads = [key.DRIFTING]
            clock = clock_text(c.seconds_left(snap.now))
            return cls(key.page_title(*heads, clock, key.short_action(c.next_action)))
        if snap.state is RuntimeState.REVIEW and c is not None:
            head = key.TIMES_UP if c.ran_out else key.REVIEW
            return cls(key.page_title(head, key.short_action(c.next_action)))
        if snap.state is RuntimeState.PLANNING:
            return cls(key.page_title(key.PLANNING))
        if snap.rest is not None:
            return cls(key.page_title(BREAK, clock_text(snap.rest.seconds_left(snap.now))))
        if snap.rested:
            return cls(key.page_title(BREAK_OVER))
        return cls(key.page_title(key.LOCKED))


BREAK, BREAK_OVER = "Break", "Break over"  # the title's head during a break, and after it


def _five_minutes_left(snap: Snapshot) -> bool:
    """The minute from five minutes left, once per commitment: not again after an
    extension that came once it was said."""
    c = snap.commitment
    return c is not None and not snap.five_said and five_minutes_left(c, snap.now)


def _drifting(snap: Snapshot) -> bool:
    """The guard judges the window off task (as `antidrift status` says "drifting")."""
    return snap.drift.status is DriftStatus.DRIFTING


@dataclass(frozen=True)
class Icon(Widget):
    """The tab's icon (`<link rel="icon" id="icon">` in the head, pushed like the title): the
    state, and while a commitment runs the minutes left of its span (antidrift/web/icon.py
    draws it). Minutes, not seconds: it changes once a minute, not at every tick."""

    name = "icon"
    outside_view = True
    state: str
    left: int = 0  # whole minutes, rounded down as everywhere (core/minutes.py)
    span: int = 0

    @classmethod
    def of(cls, snap: Snapshot) -> Icon:
        c = snap.commitment
        if snap.state is RuntimeState.ACTIVE and c is not None:
            state = "drifting" if _drifting(snap) else "active"
            if c.paused:
                state = "paused"
            span = (c.deadline - c.started_at).total_seconds()
            return cls(state, whole_minutes(c.seconds_left(snap.now)), whole_minutes(span))
        if snap.state is RuntimeState.REVIEW and c is not None:
            return cls("timesup" if c.ran_out else "review")
        if snap.rest is not None:
            rest = snap.rest
            return cls("break", whole_minutes(rest.seconds_left(snap.now)), rest.total_secs // 60)
        return cls(snap.state.value)

    def query(self) -> dict[str, str]:
        """GET /icon.svg's query for this picture (_icon.html builds the URL)."""
        query = {"state": self.state}
        if self.state in ("active", "drifting", "paused", "break"):
            query.update(left=str(self.left), span=str(self.span))
        return query


@dataclass(frozen=True)
class Offline(Widget):
    """The offline notice. A new second is a new object, so it is re-sent at every tick,
    restarting the CSS delay that reveals it once pushes stop."""

    name = "offline"
    outside_view = True
    second: datetime


@dataclass(frozen=True)
class DriftGuardWidget(Widget):
    """The drift guard's status line and what it discloses (id="drift-guard")."""

    name = "drift_guard"
    status: DriftStatus
    reason: str | None
    info: DriftInfo
    asking: bool = False  # the banner is up and gives the reason: the line does not repeat it
    put_away: Episode | None = None  # the teeth's last act, said until the commitment ends
    event: Event | None = None  # the calendar event under way, named while it stands down
    quiet: bool = False  # the window watcher has gone quiet: the last verdict is not said


@dataclass(frozen=True)
class DriftBannerWidget(Widget):
    """The drift banner at the top of the active card (id="drift-banner", holding id="drift"
    while an episode waits for an answer): the window once, the reason once, three answers."""

    name = "drift_banner"
    episode: Episode | None

    @property
    def rule_title(self) -> str:
        """What its one-click rule says on task: this title of the app (never the whole app,
        a browser with it); "" when there is no title a rule could match, then the app."""
        e = self.episode
        if e is None or e.title == EXCLUDED_TITLE:
            return ""
        text = e.title.strip()[:MAX_RULE_TEXT].strip()
        return text if text.isprintable() else ""


@dataclass(frozen=True)
class TaskPick(Widget):
    """Planning: the task from the user's list the next commitment will serve (id="task-pick")."""

    name = "task_pick"
    task: TaskRef | None


@dataclass(frozen=True)
class ReflectionWidget(Widget):
    """The review's Reflect button and the coach's two sentences (id="reflection")."""

    name = "reflection"
    status: str
    text: str | None
    error: str | None


def family(widget: Widget, widgets: Mapping[str, Widget]) -> dict[str, Widget]:
    """A widget and every pushed widget inside it: all its partial may read."""
    found = {widget.name: widget}
    for other in widgets.values():
        if other.parent in found:
            found[other.name] = other
    return found


@dataclass(frozen=True)
class NextUp(Widget):
    """id="next-up": the locked view's first item of the day's queue ("Next up: …", Plan it)
    and how many are queued; pushed when the queue changes."""

    name = "next_up"
    item_id: str | None = None
    next_action: str = ""
    queued: int = 0

    @classmethod
    def of(cls, queue: list[DayItem]) -> NextUp:
        if not queue:
            return cls()
        return cls(queue[0].id, queue[0].next_action, len(queue))
