"""View models: the frozen data each template renders, built from a snapshot before rendering.

The renderer only turns these into HTML; nothing here renders, and nothing in the renderer
reads the controller. Pushed widgets are small frozen dataclasses, and the hub uses each
object itself as its change key: a widget is re-sent exactly when its object changes.

How to add a pushed widget (one frozen dataclass, one partial):

1. Write `templates/_<name>.html`: ONE root element with a fixed id, rendering only from
   the variable `<name>` (plus, if it includes other pushed widgets, their variables).
2. Add `@dataclass(frozen=True) class ...(Widget)` below with `name = "<name>"` (and
   `parent = "<other name>"` if it sits inside another pushed widget), holding every value
   the partial shows and nothing else.
3. Build it in `Views.widgets()` for the states in which it is on the page.

A field you add is pushed without anyone remembering a key. A partial that reads anything
outside its object would not be pushed when that changes: pushes render each widget from its
object alone, so such a partial shows up as blank in its test (tests/web/test_views.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar, Protocol
from urllib.parse import urlencode

from antidrift.domain import Commitment, Health, Plan, RuntimeState, clock_text
from antidrift.drafts import PLAN_FIELDS, Draft, proposed_value
from antidrift.drift import GUARD_OFF, DriftStatus, Episode, Judgement, Rule, Window
from antidrift.insights import Calibration, WindowTime
from antidrift.snapshot import CoachInfo, CoachStatus, CoachView, DriftInfo, Snapshot
from antidrift.web.words import TODAY_LOOKS_AT, Today, drift_said, in_words

HISTORY_ON_PAGE = 20
CLI_RECHECK = 5.0  # seconds a "CLI found on PATH" answer is trusted while planning


@dataclass(frozen=True)
class Shows:
    """What one page shows: the state, its commitment, the proposal it has applied."""

    state: str | None = None
    commitment_id: str = ""
    proposal_id: str = ""

    @classmethod
    def of(cls, snap: Snapshot) -> Shows:
        coach = snap.coach
        applied = coach.proposal_id if coach and coach.status == CoachStatus.READY else ""
        return cls(snap.state.value, snap.commitment.id if snap.commitment else "", applied or "")

    def query(self) -> str:
        return urlencode({"view": self.state or "", "c": self.commitment_id, "p": self.proposal_id})


# -- pushed widgets ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Widget:
    """A pushed widget: `_<name>.html` rendered from this object, re-sent when it changes."""

    name: ClassVar[str]
    parent: ClassVar[str | None] = None  # a widget whose partial includes this one
    # Outside the view (the title, the offline notice): a whole view does not contain it,
    # so it is pushed beside every whole view as well.
    outside_view: ClassVar[bool] = False


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

    @classmethod
    def of(cls, c: Commitment, now: datetime) -> TimeLeft:
        span = int((c.deadline - c.started_at).total_seconds())
        return cls(c.seconds_left(now), c.timebox_secs, c.extended_secs, c.deadline, span)


@dataclass(frozen=True)
class EvidenceWidget(Widget):
    name = "evidence"
    health: Health
    app: str | None
    title: str | None


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
            clock = clock_text(c.seconds_left(snap.now))
            return cls(f"{clock} · {_short(c.next_action, TITLE_ACTION_MAX)} · AntiDrift")
        if snap.state is RuntimeState.REVIEW and c is not None:
            head = "Time's up" if c.ran_out else "Review"
            return cls(f"{head} · {_short(c.next_action, TITLE_ACTION_MAX)} · AntiDrift")
        if snap.state is RuntimeState.PLANNING:
            return cls("Planning · AntiDrift")
        return cls("No commitment · AntiDrift")


@dataclass(frozen=True)
class Offline(Widget):
    """The offline notice. A new second is a new object, so it is re-sent at every tick,
    restarting the CSS delay that reveals it once pushes stop."""

    name = "offline"
    outside_view = True
    second: datetime


TITLE_ACTION_MAX = 60  # characters of the next action in the tab title


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


@dataclass(frozen=True)
class DriftGuardWidget(Widget):
    """The drift guard: its status line, what it discloses, and the banner (id="drift")."""

    name = "drift_guard"
    status: DriftStatus
    reason: str | None
    banner: Episode | None
    next_action: str  # the banner names it
    info: DriftInfo


@dataclass(frozen=True)
class ReflectionWidget(Widget):
    """The review's Reflect button and the coach's two sentences (id="reflection")."""

    name = "reflection"
    status: str
    text: str | None
    error: str | None


@dataclass(frozen=True)
class DriftReview:
    """The drift guard's evidence for one commitment in review."""

    count: int
    on_task_share: float | None
    episodes: tuple[Episode, ...]
    unclear_secs: float = 0.0  # time the judge could not tell about, counted apart
    # What decided each window, with what was sent where and what came back, in order.
    verdicts: tuple[tuple[Window, Judgement], ...] = ()


@dataclass(frozen=True)
class RulesForm:
    """The standing rules partial's state: a message, and what was typed when it was refused."""

    message: str = ""
    app: str = ""
    title_contains: str = ""
    verdict: str = ""
    invalid: tuple[str, ...] = ()
    focus: str = ""  # "app" (the form, to add another) or "title" (the list's heading)
    error: bool = False  # the message is a refusal (shown as one), not a confirmation

    @classmethod
    def typed(cls, message: str, data: Mapping[str, object], invalid: tuple[str, ...]):
        """A refused rule: the sentence, the fields as typed, the ones at fault marked."""

        def text(key: str) -> str:
            value = data.get(key)
            return value if isinstance(value, str) else ""

        typed = (text("app"), text("title_contains"), text("verdict"))
        return cls(message, *typed, invalid, "app", error=True)


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
    focus: WindowTime | None = None
    drift: DriftReview | None = None
    calibration: Calibration | None = None  # planning: how long the user's plans really take
    guard: DriftInfo | None = None  # planning: the guard can be turned off, teeth on, for one
    today: Today | None = None  # locked: today's summary

    def context(self) -> dict[str, object]:
        snap = self.snap
        ctx: dict[str, object] = {
            "snap": snap,
            "state": snap.state.value,
            "commitment": snap.commitment,
            "shows": self.shows,
            "history": list(self.history),
            "drift_review": self.drift,
            "calibration": self.calibration,
            "drift_on": self.guard is not None and self.guard.on,
            "guard": self.guard,
            "today": self.today,
            "draft": snap.draft,
        }
        if self.focus is not None:
            ctx["shares"], ctx["apps"], ctx["sample_count"] = (
                self.focus.windows,
                self.focus.apps,
                self.focus.sample_count,
            )
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

    def calibration(self) -> Calibration | None: ...


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
    ) -> None:
        self.coach = coach
        self.drift = drift or DriftInfo(False, why_off="it is not configured")
        self._reader = reader
        self._recheck, self._monotonic = recheck, monotonic
        self._lock = threading.Lock()
        self._found: bool | None = None
        self._looked_at = 0.0
        self._was_planning = False

    def _cli_found(self, snap: Snapshot) -> bool:
        """Whether the coach's CLI is on PATH: looked up on entering planning, then at most
        every few seconds (someone may install it while the page is open), never per tick."""
        with self._lock:
            now = self._monotonic()
            planning = snap.state is RuntimeState.PLANNING
            entered, self._was_planning = planning and not self._was_planning, planning
            if planning and (
                self._found is None or entered or now - self._looked_at >= self._recheck
            ):
                self._found = self.coach.binary_found()
                self._looked_at = now
            return bool(self._found)

    def widgets(self, snap: Snapshot) -> tuple[Widget, ...]:
        """The pushed widgets of the snapshot's view (parents before their children), then
        those outside the view."""
        outside = (Title.of(snap), Offline(snap.now.replace(microsecond=0)))
        return self._view_widgets(snap) + outside

    def _view_widgets(self, snap: Snapshot) -> tuple[Widget, ...]:
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
                ),
                CoachElapsed(coach.elapsed(snap.now) or 0),
                *(Suggestion.of(name, coach, snap.draft) for name in PLAN_FIELDS),
            )
        if snap.state is RuntimeState.ACTIVE and snap.commitment is not None:
            last = snap.evidence.last
            return (
                TimeLeft.of(snap.commitment, snap.now),
                EvidenceWidget(
                    snap.evidence.health, last.app if last else None, last.title if last else None
                ),
                DriftGuardWidget(
                    snap.drift.status,
                    snap.drift.reason,
                    snap.drift.banner,
                    snap.commitment.next_action,
                    drift_said(self.drift, self._found, self.coach),
                ),
            )
        if snap.state is RuntimeState.REVIEW and snap.reflection is not None:
            r = snap.reflection
            return (ReflectionWidget(r.status, r.text, r.error),)
        return ()

    def page(self, snap: Snapshot, widgets: tuple[Widget, ...] | None = None) -> PageModel:
        """The whole view: its widgets, and the history or focus summary it lists."""
        if widgets is None:
            widgets = self.widgets(snap)
        history: tuple[Commitment, ...] = ()
        focus = drift = calibration = today = None
        if snap.state is RuntimeState.PLANNING:
            calibration = self._reader.calibration()
        if snap.state is RuntimeState.LOCKED:
            recent = self._reader.history(limit=TODAY_LOOKS_AT)
            history, today = tuple(recent[:HISTORY_ON_PAGE]), Today.of(recent, snap.now)
        if snap.state is RuntimeState.REVIEW and snap.commitment is not None:
            # Summed by the store: a long commitment has tens of thousands of samples.
            focus = self._reader.window_time(snap.commitment, snap.now)
            drift = self._drift_review(snap.commitment.id)
        return PageModel(
            snap, Shows.of(snap), widgets, history, focus, drift, calibration, self.drift, today
        )

    def _drift_review(self, commitment_id: str) -> DriftReview | None:
        """None when the guard did not watch this commitment (off, or an older one)."""
        summary = self._reader.drift_summaries([commitment_id]).get(commitment_id)
        if summary is None:
            return None
        episodes = tuple(self._reader.drift_episodes(commitment_id))
        verdicts = tuple(
            (window, judgement)
            for window, judgement in self._reader.drift_judgements(commitment_id).items()
            if window != GUARD_OFF
        )
        unclear = self._reader.unclear_secs(commitment_id)
        return DriftReview(summary[0], summary[1], episodes, unclear, verdicts)


def family(widget: Widget, widgets: Mapping[str, Widget]) -> dict[str, Widget]:
    """A widget and every pushed widget inside it: all its partial may read."""
    found = {widget.name: widget}
    for other in widgets.values():
        if other.parent in found:
            found[other.name] = other
    return found
