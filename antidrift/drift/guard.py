"""The drift guard's running part: the pure policy fed by the controller, judge calls on an
executor, episodes and verdicts persisted, nudges sent through the notifier port.

The controller calls every method below (but the judge's worker) inside the session's unit of
work; each returns an `After` that runs once the lock is released, so a judge call or a
notification never blocks a transition or a push. The judge's worker and the teeth land their
results through the same unit of work.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import datetime

from antidrift.ai import Cancelled, CoachError, Judge
from antidrift.core.clock import Clock
from antidrift.core.domain import Commitment, ValidationError, WindowSample
from antidrift.core.drift_records import Answer, Episode, Exchange, Judgement, Rule, Source, Verdict
from antidrift.core.ports import Repository, Transaction
from antidrift.drift.after import After, counted_from, nudge_text, put_away_text
from antidrift.drift.budget import CallBudget
from antidrift.drift.policy import (
    GUARD_OFF,
    OFF,
    OFF_FOR_COMMITMENT,
    DriftPolicy,
    DriftSettings,
    DriftStatus,
    DriftView,
    Effects,
    JudgeCall,
    NothingToAcknowledge,
    drift_figures,
)
from antidrift.drift.teeth import (
    MINIMIZE,
    TEETH_OFF,
    CouldNotPutAway,
    Enforcer,
    PutAway,
    Teeth,
    WindowHandle,
    parse_enforce,
)
from antidrift.drift.verdicts import kept_answer
from antidrift.process import CancelScope

log = logging.getLogger("antidrift.drift")

PAUSED = DriftView(DriftStatus.PAUSED, reason="paused")
AWAY = DriftView(DriftStatus.AWAY, reason="away from the keyboard")
IN_EVENT = DriftView(DriftStatus.EVENT, reason="a calendar event is under way")


def validate_answer(answer: object) -> Answer:
    if answer not in (Answer.BACK.value, Answer.ON_TASK.value):
        raise ValidationError("Answer back or on_task.", "answer")
    return Answer(answer)


class DriftGuard:
    """One per controller; a DriftPolicy per active commitment."""

    def __init__(
        self,
        *,
        judge: Judge | None,
        settings: DriftSettings | None,
        store: Repository,
        clock: Clock,
        work: Transaction,
        announce: Callable[[str, str], None],
        exclude: re.Pattern[str] | None = None,
        enforcer: Enforcer | None = None,
        busy: Callable[[datetime], bool] | None = None,
        rules_alone: bool = False,
    ) -> None:
        # rules_alone (Guard here too): on without a judge, standing rules deciding alone.
        self._rules_alone = rules_alone
        self.on = settings is not None and (judge is not None or rules_alone)
        self._busy = busy  # a calendar event is under way then (the calendar's)
        self._in_event = False
        self._enforcer = enforcer  # the teeth's desktop adapters (None: none here)
        self._judge = judge
        self._settings = settings or DriftSettings()
        self._store = store
        self._clock = clock
        self._work = work
        self._announce = announce
        self._exclude = exclude
        self._budget = CallBudget(self._settings.max_calls)
        self._policy: DriftPolicy | None = None
        self._off_here = False  # the user turned the guard off for this commitment
        self._paused = False  # the commitment is paused: nothing is judged or nudged
        self._waiting = PAUSED  # what the view says meanwhile: paused, or the user is away
        self._commitment: Commitment | None = None
        self._scope: CancelScope | None = None
        self._closed = False
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="antidrift-judge")
        self._retuned: tuple[Judge | None, DriftSettings | None, re.Pattern | None] | None = None

    @property
    def judging(self) -> bool:
        """Whether a judge decides what no rule does (in force: a change at the next begin)."""
        return self._judge is not None

    @property
    def exclude(self) -> re.Pattern[str] | None:
        """The private-title pattern in force (a changed one at once)."""
        return self._exclude

    def retune(
        self, judge: Judge | None, settings: DriftSettings | None, exclude: re.Pattern[str] | None
    ) -> None:
        """Changed settings, taken up when the next commitment begins (not under a running
        one) — but the private-title pattern at once: the Settings page promises a matching
        title is never stored or sent, and it is often saved because one just showed."""
        self._retuned = (judge, settings, exclude)
        self._exclude = exclude
        if self._policy is not None:
            self._policy.exclude = exclude

    # -- a change's memento (the unit of work keeps the guard) -------------------------------

    # What a change may move in memory: a rollback puts each back. The policy and the budget
    # keep their identity (a judge call in flight holds the policy it will land in): their
    # state is copied, and given back into the same objects.
    _KEPT = (
        "on", "_in_event", "_judge", "_settings", "_budget", "_policy", "_off_here",
        "_paused", "_waiting", "_commitment", "_scope", "_retuned", "_exclude",
    )  # fmt: skip

    def memento(self) -> dict[str, object]:
        """The guard's state in memory, as a change found it."""
        kept: dict[str, object] = {name: getattr(self, name) for name in self._KEPT}
        kept["budget state"] = self._budget.copy()
        if self._policy is not None:
            kept["policy state"] = self._policy.copy()
        return kept

    def restore(self, memento: object) -> None:
        """After a rollback: as the change found it, the same policy and budget objects with
        their state put back. A judge call the change stopped is not brought back: the window
        is asked about again at the next sample or tick."""
        kept = dict(memento)  # type: ignore[call-overload]
        budget, policy = kept.pop("budget state"), kept.pop("policy state", None)
        for name, value in kept.items():
            setattr(self, name, value)
        self._budget.restore(budget)
        if policy is not None:
            self._policy.__dict__.update(policy.__dict__)
            self._policy.budget = self._budget
        if self._scope is not None and self._scope.cancelled:
            self._scope = None
            if self._policy is not None:
                self._policy.pending = None

    # -- called under the controller's lock ---------------------------------------------------

    def parse_enforce(self, value: object) -> str:
        """A new commitment's teeth (POST /commitment's `enforce`; absent: the setting).
        Without a guard there is no nudge to ignore: off."""
        judge, settings = self._retuned[:2] if self._retuned is not None else (self._judge, None)
        settings = settings or self._settings
        on = parse_enforce(value, settings.enforce)
        return MINIMIZE if on and judge is not None else TEETH_OFF

    def begin(
        self,
        commitment: Commitment,
        last: WindowSample | None = None,
        *,
        watch: bool = True,
        since: datetime | None = None,
    ) -> After:
        """A commitment became active (started, resumed after a restart, or extended);
        watch=False: the user turned the guard off for it (remembered with its verdicts);
        since: back from a review (undo finish), the window seen last counts from then."""
        self._stop_judge()
        if self._retuned is not None:
            judge, settings, self._exclude = self._retuned
            self._retuned = None
            self.on = settings is not None and (judge is not None or self._rules_alone)
            self._judge = judge
            self._settings = settings or DriftSettings()
            self._budget = CallBudget(self._settings.max_calls)
        self._commitment = commitment
        self._policy = None
        self._off_here = False
        self._in_event = False
        self._paused = commitment.paused  # e.g. a restart while paused: it waits for resume
        self._waiting = PAUSED
        if not self.on:
            return After()
        if not watch:
            off = Judgement(Verdict.OFF_TASK, "off", Source.YOU)
            self._store.save_judgement(commitment.id, GUARD_OFF, off)
        return self._watch(commitment, counted_from(last, since))

    def pause(self, now: datetime, *, away: bool = False) -> None:
        """The commitment is paused (away: the user left the keyboard): a running judge call
        is stopped, an open episode ends now, and nothing is judged or nudged until `resume`."""
        self._stop_judge()
        self._paused, self._waiting = True, AWAY if away else PAUSED
        if self._policy is not None:
            self._apply(self._policy.stop(now))

    def resume(self, last: WindowSample | None, now: datetime) -> After:
        """The pause ended. It was neither work nor drift: the guard starts again as after a
        restart, its verdicts kept, the window seen last counted from now."""
        self._paused = False
        if not self.on or self._commitment is None:
            return After()
        return self._watch(self._commitment, counted_from(last, now))

    def replan(self, commitment: Commitment, last: WindowSample | None, now: datetime) -> After:
        """The running commitment's next action changed (its verdicts but the user's own
        answers already forgotten in the store): an open episode ends, and each window is
        asked about again; the guard turned off for it stays off."""
        self._commitment = commitment
        if not self.on or self._off_here:
            return After()
        self._stop_judge()
        if self._policy is not None and not self._paused and not self._in_event:
            self._apply(self._policy.stop(now))
        waiting = self._paused or self._in_event  # judged again when it resumes / ends
        return self._watch(commitment, None if waiting else counted_from(last, now))

    def _watch(self, commitment: Commitment, last: WindowSample | None) -> After:
        """A fresh policy over what this commitment has recorded (verdicts, episodes)."""
        self._policy = None
        judgements = self._store.judgements(commitment.id, current=True)
        if GUARD_OFF in judgements:
            self._off_here = True
            return After()
        episodes = self._store.episodes(commitment.id)
        self._policy = DriftPolicy(
            self._settings,
            self._budget,
            exclude=self._exclude,
            judgements=judgements,
            episodes=episodes,
            rules=tuple(self._store.rules()),
            teeth=self._teeth(commitment, episodes),
            judging=self._judge is not None,
        )
        if last is None:
            return After()
        return self.observe(last)  # not exact: no teeth until sampled

    def _teeth(self, commitment: Commitment, episodes: list[Episode]) -> Teeth | None:
        if commitment.enforce != MINIMIZE or self._enforcer is None:
            return None
        tried = tuple(e.number for e in episodes if e.enforced_at or e.enforce_note)
        return Teeth(self._settings.enforce_after, done=tried)

    def observe(self, sample: WindowSample, exact: WindowHandle | None = None) -> After:
        if self._event(sample.at) or self._policy is None or self._paused:
            return After()
        policy = self._policy
        seen = policy.observe(
            sample.app, sample.title, sample.at, exact, sample.own, site=sample.site
        )
        return self._apply(seen)

    def tick(self, now: datetime) -> After:
        if self._event(now) or self._policy is None or self._paused:
            return After()
        return self._apply(self._policy.tick(now))

    def acknowledge(self, answer: object, now: datetime) -> After:
        if self._policy is None or self._paused or self._policy.open_episode is None:
            raise NothingToAcknowledge()
        return self._apply(self._policy.acknowledge(validate_answer(answer), now))

    def rules_changed(self, rules: tuple[Rule, ...]) -> After:
        """The standing rules changed (added or removed): the running commitment follows
        (a paused one when it resumes: its policy is made afresh then)."""
        if self._policy is None or self._paused or self._in_event:
            return After()
        return self._apply(self._policy.set_rules(rules, self._clock.now()))

    def stop(self, now: datetime) -> None:
        """Leaving active: kill a running judge, end an open episode, write the figures."""
        self._stop_judge()
        policy, commitment = self._policy, self._commitment
        self._policy = None
        if policy is None or commitment is None:
            return
        self._apply(policy.stop(now))
        found = self._figures(commitment, policy, now)
        self._store.save_drift_summary(
            commitment.id, len(policy.episodes), found.on_task_share, found.unclear_secs
        )

    def _event(self, now: datetime) -> bool:
        """During a calendar event nothing is judged, nudged or put away: a running judge
        call is stopped and an open episode ends as it starts; at its end the guard starts
        again as after a pause, its verdicts kept."""
        busy = self._busy is not None and self._commitment is not None and self._busy(now)
        if busy and not self._in_event:
            self._stop_judge()
            if self._policy is not None and not self._paused:
                self._apply(self._policy.stop(now))
        elif self._in_event and not busy and self.on and not self._paused:
            self._watch(self._commitment, None)  # the next sample is judged afresh
        self._in_event = busy
        return busy

    def view(self, now: datetime) -> DriftView:
        if self._paused:
            return self._waiting
        if self._in_event:
            return IN_EVENT
        if self._policy is not None:
            return self._policy.view(now)
        return OFF_FOR_COMMITMENT if self._off_here else OFF

    def _figures(self, commitment: Commitment, policy: DriftPolicy, until: datetime):
        # Every window (summed in SQL by the store): judged ones may be outside any top list.
        shares = self._store.window_time(commitment.id, until, 1_000_000).windows
        return drift_figures(shares, policy.decision)

    def _apply(self, effects: Effects) -> After:
        commitment = self._commitment
        for episode in effects.episodes:
            self._store.save_episode(commitment.id, episode)
        for window, judgement in effects.judgements:
            self._store.save_judgement(commitment.id, window, judgement)
        if effects.episodes or effects.judgements or effects.judge or effects.nudge:
            self._work.changed()
        after = After(announce=self._announce)
        if effects.nudge is not None:
            after.nudge = nudge_text(commitment, effects.nudge)
        if effects.put_away is not None:
            put, policy = effects.put_away, self._policy
            after.put_away = lambda: self._put_away(put, policy, commitment)
        if effects.judge is not None:
            self._record_asked(commitment, effects.judge)
            scope = CancelScope()
            self._scope = scope
            call, policy = effects.judge, self._policy
            after.start = lambda: self._submit(call, scope, policy, commitment)
        return after

    def _record_asked(self, commitment: Commitment, call: JudgeCall) -> None:
        """A title counted off task by churn is now asked about: the review says what was
        sent for it, even if no answer comes back (focus moved on, the commitment ended)."""
        decided = self._policy.judgements.get(call.window) if self._policy else None
        if decided is not None and decided.source is Source.CHURN:
            sent = Exchange(self._judge.label, call.app, call.title, None, call.site)
            self._store.save_judgement(commitment.id, call.window, replace(decided, exchange=sent))

    def _stop_judge(self) -> None:
        """Under the unit of work: the running judge call no longer counts; its CLI is killed
        (its whole process group) once the change is committed, and lives on if it is not."""
        if self._scope is not None:
            self._work.then(self._scope.cancel)
            self._scope = None

    # -- the teeth, off the lock -------------------------------------------------------------

    def _put_away(self, put: PutAway, policy: DriftPolicy, commitment: Commitment) -> None:
        """Run the desktop's adapter on the exact window; whatever happens, the episode says
        so. A failure is a line in the log and a word in the banner, never an error."""
        at, how = None, ""
        try:
            how = self._enforcer(put.window)
            at = self._clock.now()
            log.info("put the off-task window (%s) away: %s", put.app, how)
        except CouldNotPutAway as exc:
            how = str(exc)
        except Exception:
            log.exception("putting a window away failed unexpectedly")
            how = "it failed unexpectedly; see the log"
        if at is None:
            log.warning("could not put the off-task window (%s) away: %s", put.app, how)
        try:
            with self._work as work:
                for episode in policy.put_away_done(put.episode, at, how).episodes:
                    self._store.save_episode(commitment.id, episode)
                if at is not None:
                    work.then(lambda: self._announce(*put_away_text(commitment, put.app, how)))
                work.changed()
        except Exception as exc:  # e.g. a full disk: the window is away all the same
            if not getattr(exc, "logged", False):
                log.exception("could not record putting the window away")

    # -- the judge, off the lock -------------------------------------------------------------

    def _submit(self, call: JudgeCall, scope: CancelScope, policy, commitment) -> None:
        if self._closed:
            scope.cancel()
            return
        try:
            self._executor.submit(self._run, call, scope, policy, commitment)
        except RuntimeError:  # shutting down with the server
            scope.cancel()

    def _run(self, call: JudgeCall, scope: CancelScope, policy, commitment: Commitment) -> None:
        if scope.cancelled:
            return  # left active while queued: the CLI never starts
        verdict, error = None, None
        try:
            found = self._judge.judge(
                commitment.next_action,
                commitment.success_condition,
                call.app,
                call.title,
                site=call.site,  # the page's host; the URL's path and query never leave
                scope=scope,
            )
            answer = kept_answer(found.answer)
            sent = Exchange(self._judge.label, call.app, call.title, answer, call.site)
            verdict = Judgement(Verdict(found.verdict), found.reason, Source.JUDGE, sent)
        except Cancelled:
            return
        except CoachError as exc:
            error = str(exc)
        except Exception:
            log.exception("judge call failed unexpectedly")
            error = "the judge failed unexpectedly; see the log"
        try:
            with self._work as work:
                if policy is not self._policy or scope is not self._scope:
                    return  # the commitment left active (or restarted): drop it
                self._scope = None
                after = self._apply(policy.settle(call.ticket, verdict, error, self._clock.now()))
                work.then(after.run)
        except Exception as exc:  # e.g. the disk is full: the verdict is lost, the guard goes on
            if not getattr(exc, "logged", False):  # the store has said so once already
                log.exception("could not record the judge's verdict")
            with self._work:  # nothing written: the window is asked about again
                if scope is self._scope and policy is self._policy:
                    self._scope, policy.pending = None, None

    def shutdown(self) -> None:
        """Kill a running judge and refuse new ones (server stop)."""
        with self._work:
            self._closed = True
            self._stop_judge()
        self._executor.shutdown(wait=False, cancel_futures=True)
