"""The drift policy, pure: which window to judge, when drift becomes an episode, when to nudge.

No threads, no I/O, no clock: the controller passes every time in, runs the judge calls this
asks for, and persists what it hands back. Designed against what users of focus tools
complain about: false positives (a tutorial can be the work: "this is on task" teaches it;
a judge that cannot tell says unclear, which never nudges), nagging (a grace and a
cooldown), cost (one call per distinct window per commitment, one at a time, a cap per hour,
standing rules that need no call), title churn (a new title on a site, or in an app, already
found off task counts as off task at once) and privacy (excluded titles: the app alone).

Who decides a window, strongest first: the user's answer on the banner for this commitment,
a standing rule, the judge's verdict, then churn (provisional, until the judge answers).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum

from antidrift.core.domain import IllegalTransitionError, Share, ValidationError
from antidrift.core.drift_records import Answer, Episode, Judgement, Rule, Source, Verdict, Window
from antidrift.drift.budget import CallBudget
from antidrift.drift.teeth import PutAway, Teeth, WindowHandle
from antidrift.drift.verdicts import Figures, figures, matching_rule
from antidrift.drift.window_key import churn_key, churn_reason, judge_page, window_of

TAUGHT_REASON = "you said this is on task"
# Guard here too with no AI on this machine: a window no standing rule decides stays unknown.
RULES_ALONE = "no AI here: no standing rule decides this window"


class DriftStatus(StrEnum):
    OFF = "off"
    UNKNOWN = "unknown"
    ON_TASK = "on_task"
    UNCLEAR = "unclear"  # the judge could not tell: never a nudge
    DRIFTING = "drifting"
    PAUSED = "paused"  # the commitment is paused: nothing is judged or nudged
    AWAY = "away"  # no input for the away_after minutes: nothing is judged or nudged
    EVENT = "event"  # a calendar event is under way: nothing is judged or nudged


class NothingToAcknowledge(IllegalTransitionError):
    """An ack with no drift banner showing: nothing changed."""

    def __init__(self) -> None:
        super().__init__("There is no drift to acknowledge.")


@dataclass(frozen=True)
class DriftSettings:
    """ANTIDRIFT_DRIFT_GRACE, _COOLDOWN and _MAX_CALLS; ANTIDRIFT_ENFORCE and _AFTER."""

    grace: timedelta = timedelta(seconds=60)
    cooldown: timedelta = timedelta(seconds=300)
    max_calls: int = 30  # judge calls per hour, across commitments
    enforce: str = "off"  # a new commitment's teeth unless it says (enforcement.CHOICES)
    enforce_after: timedelta = timedelta(seconds=30)


@dataclass(frozen=True)
class JudgeCall:
    """A judge call to run: app, title (None: the app alone), site as judge_page sends them."""

    ticket: int
    window: Window
    title: str | None
    site: str | None = None
    app: str = ""


@dataclass(frozen=True)
class DriftView:
    """The drift guard as /state and the page show it; banner is the episode to answer."""

    status: DriftStatus
    since: datetime | None = None
    reason: str | None = None
    banner: Episode | None = None
    put_away: Episode | None = None  # the last episode the teeth acted on (how to get it back)


OFF = DriftView(DriftStatus.OFF)
OFF_FOR_COMMITMENT = DriftView(DriftStatus.OFF, reason="off for this commitment")
# Stored among a commitment's verdicts when the user turned the guard off for it while
# planning, so the choice survives a restart. No window has an empty app (ingest and the
# sampler both require one), so this row never matches a sample.
GUARD_OFF = Window("", "")


def parse_choice(value: object) -> bool:
    """The planning form's "drift" field: whether the guard watches this commitment."""
    if value is None or value is True or value in ("", "on"):
        return True
    if value is False or value == "off":
        return False
    raise ValidationError("drift must be on or off.", "drift")


@dataclass(frozen=True)
class Effects:
    """What the controller must do after one step: run, notify, persist."""

    judge: JudgeCall | None = None
    nudge: Episode | None = None
    episodes: tuple[Episode, ...] = ()  # opened or changed: persist each
    judgements: tuple[tuple[Window, Judgement], ...] = ()  # new: persist each
    put_away: PutAway | None = None  # the teeth: put this window away (teeth.py)

    def __add__(self, other: Effects) -> Effects:
        return Effects(
            other.judge or self.judge,
            other.nudge or self.nudge,
            self.episodes + other.episodes,
            self.judgements + other.judgements,
            other.put_away or self.put_away,
        )


@dataclass
class DriftPolicy:
    """One commitment's drift guard. Every method takes `now`; none blocks or does I/O."""

    settings: DriftSettings
    budget: CallBudget
    exclude: re.Pattern[str] | None = None
    judgements: dict[Window, Judgement] = field(default_factory=dict)
    episodes: list[Episode] = field(default_factory=list)
    rules: tuple[Rule, ...] = ()
    current: Window | None = None
    current_since: datetime | None = None
    off_since: datetime | None = None  # focus has been off task since (None: it is not)
    pending: JudgeCall | None = None
    failure: str | None = None  # why the current window has no verdict
    teeth: Teeth | None = None  # this commitment puts an ignored off-task window away
    judging: bool = True  # False: no judge here, standing rules (by app, title, site) decide
    _tickets: int = 0
    # The newest verdict of the judge or the user per site or app: what a new title inherits.
    _app_last: dict[str, Verdict] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for window, judgement in self.judgements.items():
            self._learn(window, judgement)

    def copy(self) -> DriftPolicy:
        """A copy that changes apart from this one (a change's memento); the budget it
        spends from is the guard's to copy (it outlives commitments)."""
        copied = copy.copy(self)
        copied.judgements, copied.episodes = dict(self.judgements), list(self.episodes)
        copied._app_last = dict(self._app_last)
        copied.teeth = self.teeth.copy() if self.teeth is not None else None
        return copied

    # -- inputs ------------------------------------------------------------------------------

    def observe(
        self, app: str, title: str, now: datetime, exact: WindowHandle | None = None, own=False,
        site: str | None = None) -> Effects:  # fmt: skip
        """A focus sample (title as stored, already redacted); `exact`: which window it is;
        `own`: it is AntiDrift's own page (known before the title was redacted); `site`."""
        if self.teeth is not None:  # looking at AntiDrift's page stops the teeth's clock
            self.teeth.seen(None if own else exact, now)
        if own:
            return self.tick(now)  # answering the banner: the window before it still counts
        window = window_of(app, title, site)
        if window != self.current:
            self.current, self.current_since, self.failure = window, now, None
            return (
                self._decide_current() + self._follow(now) + self._next_judge(now) + self._bite(now)
            )
        return self._next_judge(now) + self._bite(now)  # e.g. the hourly cap freed up

    def settle(self, ticket: int, verdict: Judgement | None, error: str | None, now) -> Effects:
        """A judge call finished: its verdict (cached), or the error that makes it unknown."""
        call = self.pending
        if call is None or call.ticket != ticket:
            return Effects()  # cancelled or superseded: nothing to do
        self.pending = None
        effects = Effects()
        if verdict is not None:
            decided = self.decision(call.window)
            # The user or a rule may have decided while the judge thought: they win.
            if decided is None or decided.source is Source.CHURN:
                effects = self._record(call.window, verdict)
        elif call.window == self.current:
            self.failure = error or "the judge failed"
        return effects + self._follow(now) + self._next_judge(now) + self.tick(now)

    def tick(self, now: datetime) -> Effects:
        """Time passed: open an episode once drift outlasts the grace and the cooldown."""
        decided = self.decision(self.current) if self.current else None
        if decided is None or not decided.off_task or self.off_since is None:
            return Effects()  # unclear and unknown never open an episode
        if self.open_episode or now - self.off_since < self.settings.grace:
            return Effects()
        last = self.episodes[-1].nudged_at if self.episodes else None
        if last is not None and now - last < self.settings.cooldown:
            return Effects()
        episode = Episode(
            number=len(self.episodes) + 1,
            started_at=self.off_since,
            nudged_at=now,
            app=self.current.app,
            title=self.current.title,
            reason=decided.reason,
            site=self.current.site,
        )
        self.episodes.append(episode)
        if self.teeth is not None:
            self.teeth.nudged(episode.number, now)
        return Effects(nudge=episode, episodes=(episode,))

    def acknowledge(self, answer: object, now: datetime) -> Effects:
        """The user's answer to the banner; NothingToAcknowledge without one."""
        episode = self.open_episode
        if episode is None:
            raise NothingToAcknowledge()
        choice = Answer(answer)  # the caller validated it
        effects = Effects(episodes=(self._close(replace(episode, answer=choice), now),))
        if choice is Answer.ON_TASK:
            window = Window(episode.app, episode.title, episode.site)
            effects += self._record(window, Judgement(Verdict.ON_TASK, TAUGHT_REASON, Source.YOU))
        self._restart_streak(now)
        return effects

    def set_rules(self, rules: tuple[Rule, ...], now: datetime) -> Effects:
        """The standing rules changed: they decide from now on (an open episode whose window
        a rule now calls on task ends, as if the user had answered "on task")."""
        self.rules = tuple(rules)
        effects = Effects()
        episode = self.open_episode
        if episode is not None:
            decided = self.decision(Window(episode.app, episode.title, episode.site))
            if decided is not None and decided.on_task:
                ended = self._close(replace(episode, answer=Answer.ON_TASK), now)
                effects = Effects(episodes=(ended,))
        if self.current is None:
            return effects
        effects += self._decide_current()
        if effects.episodes:
            self._restart_streak(now)
        return effects + self._follow(now) + self._next_judge(now) + self.tick(now)

    def put_away_done(self, number: int, at: datetime | None, note: str) -> Effects:
        """The teeth's adapter ran for episode `number`: `at` it put the window away (None:
        it could not) and `note` says how (or why not); the episode records both."""
        for i, episode in enumerate(self.episodes):
            if episode.number == number:
                done = replace(episode, enforced_at=at, enforce_note=note)
                self.episodes[i] = done
                return Effects(episodes=(done,))
        return Effects()

    def stop(self, now: datetime) -> Effects:
        """Leaving active: the running judge is abandoned and an open episode ends now."""
        self.pending = None
        episode = self.open_episode
        if episode is None:
            return Effects()
        return Effects(episodes=(self._close(episode, now),))

    # -- reading -----------------------------------------------------------------------------

    @property
    def open_episode(self) -> Episode | None:
        last = self.episodes[-1] if self.episodes else None
        return last if last is not None and last.ended_at is None else None

    def decision(self, window: Window) -> Judgement | None:
        """What decides this window now: the user's answer, a rule, the judge, churn."""
        found = self.judgements.get(window)
        if found is not None and found.source is Source.YOU:
            return found
        rule = matching_rule(self.rules, window.app, window.title, window.site)
        if rule is not None:
            return rule.judgement()
        if found is not None and found.source is not Source.RULE:
            return found  # a rule's verdict stands only while the rule does
        return None

    def view(self, now: datetime) -> DriftView:
        acted = next((e for e in reversed(self.episodes) if e.enforce_note), None)
        return replace(self._view(now), put_away=acted)

    def _view(self, now: datetime) -> DriftView:
        banner = self.open_episode
        if self.current is None:
            return DriftView(DriftStatus.UNKNOWN, None, "no window seen yet", banner)
        decided = self.decision(self.current)
        if decided is not None and decided.verdict is Verdict.ON_TASK:
            return DriftView(DriftStatus.ON_TASK, self.current_since, decided.reason, banner)
        if decided is not None and decided.verdict is Verdict.OFF_TASK:
            return DriftView(DriftStatus.DRIFTING, self.off_since, decided.reason, banner)
        if decided is not None:
            return DriftView(DriftStatus.UNCLEAR, self.current_since, decided.reason, banner)
        if not self.judging:
            return DriftView(DriftStatus.UNKNOWN, self.current_since, RULES_ALONE, banner)
        if self.pending is not None and self.pending.window == self.current:
            return DriftView(DriftStatus.UNKNOWN, self.current_since, "judging this window", banner)
        if self.failure is not None:
            return DriftView(DriftStatus.UNKNOWN, self.current_since, self.failure, banner)
        if not self.budget.available(now):
            reason = (
                f"the hourly limit of {self.budget.max_calls} judge calls is used up;"
                " new windows are not judged for now"
            )
            return DriftView(DriftStatus.UNKNOWN, self.current_since, reason, banner)
        return DriftView(DriftStatus.UNKNOWN, self.current_since, "waiting for the judge", banner)

    # -- internals ---------------------------------------------------------------------------

    def _learn(self, window: Window, judgement: Judgement) -> None:
        # Only what the judge or the user said of a window speaks for its app's other titles:
        # a rule already decides every window it matches, and churn is itself inherited.
        if judgement.source in (Source.JUDGE, Source.YOU):
            self._app_last[churn_key(window)] = judgement.verdict

    def _record(self, window: Window, judgement: Judgement) -> Effects:
        self.judgements[window] = judgement
        self._learn(window, judgement)
        return Effects(judgements=((window, judgement),))

    def _decide_current(self) -> Effects:
        """A rule's verdict on the focused window, recorded for the review; or, for a new
        title in an app last found off task, off task at once (churn) until the judge says."""
        window = self.current
        decided = self.decision(window)
        if decided is not None and decided.source is Source.RULE:
            if self.judgements.get(window) != decided:
                return self._record(window, decided)
            return Effects()
        if decided is None and self._app_last.get(churn_key(window)) is Verdict.OFF_TASK:
            judged = Judgement(Verdict.OFF_TASK, churn_reason(window), Source.CHURN)
            return self._record(window, judged)
        return Effects()

    def _follow(self, now: datetime) -> Effects:
        """Update the off-task streak for the current window's verdict."""
        decided = self.decision(self.current)
        if decided is None and self.judging:
            if self.failure is not None:
                self.off_since = None  # unknown never nudges
            return Effects()  # not judged yet: the streak (if any) goes on
        if decided is not None and decided.verdict is Verdict.UNCLEAR:
            return Effects()  # unclear neither starts nor stops the clock
        if decided is not None and decided.off_task:
            if self.off_since is None:
                self.off_since = self.current_since  # drift began at the switch
            return Effects()
        # On task; or, with no judge, a window no rule calls off task: the drift is over.
        self.off_since = None
        episode = self.open_episode
        if episode is None:
            return Effects()
        # Focus back on the task ends the episode by itself, at the switch.
        return Effects(
            episodes=(self._close(episode, max(self.current_since, episode.started_at)),)
        )

    def _restart_streak(self, now: datetime) -> None:
        # Still off task after an answer: a new episode may follow, counted from now.
        decided = self.decision(self.current) if self.current else None
        self.off_since = now if decided is not None and decided.off_task else None

    def _next_judge(self, now: datetime) -> Effects:
        window = self.current
        if window is None or self.pending is not None or not self.judging:
            return Effects()
        decided = self.decision(window)
        if decided is not None and decided.source is not Source.CHURN:
            return Effects()  # churn is provisional: its own verdict is still asked for
        if self.failure is not None or not self.budget.available(now):
            return Effects()
        self.budget.spend(now)
        self._tickets += 1
        self.pending = JudgeCall(self._tickets, window, *judge_page(window, self.exclude))
        return Effects(judge=self.pending)

    def _bite(self, now: datetime) -> Effects:
        """Time passed (a tick) and, with teeth, the focused window put away when it is due."""
        effects = self.tick(now)
        if self.teeth is None or self.current is None:
            return effects
        decided = self.decision(self.current)
        # Churn is provisional: a new title (maybe another tab) is not yet this window's verdict.
        off = decided is not None and decided.off_task and decided.source is not Source.CHURN
        episode = self.open_episode
        put = self.teeth.due(episode and episode.number, self.current.app, now, off_task=off)
        return effects + Effects(put_away=put)

    def _close(self, episode: Episode, at: datetime) -> Episode:
        ended = replace(episode, ended_at=at)
        self.episodes[-1] = ended
        return ended


def drift_figures(shares: Iterable[Share], decide: Callable[[Window], Judgement | None]) -> Figures:
    """The review's figures (on-task share, unclear time) from the time per (app, title).

    Time is keyed as the verdicts are (window_of): a ticking title is one window, so its time
    counts under the verdict it was judged by."""
    seconds: dict[Window, float] = {}
    for share in shares:
        window = window_of(share.app, share.title)
        seconds[window] = seconds.get(window, 0.0) + share.seconds
    return figures(seconds, decide)


def on_task_share(shares: Iterable[Share], judgements: dict[Window, Judgement]) -> float | None:
    """Share of the time judged on or off task spent on on-task windows: 0–1, or None."""
    return drift_figures(shares, judgements.get).on_task_share
