"""The session controller: the state machine. Every transition, under one lock, is persisted,
then applied, then announced: `require` the state, validate the input, `store.save` first (a
failed save changes nothing), mutate, tell the parts that share the lock (coaching, guard,
reflections), `_changed()`; after the lock run the guard's `After` and `_notify()`."""

from __future__ import annotations

import logging
import re
import threading
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta

from antidrift.ai import Coach, Judge
from antidrift.ai.reflect import Reflector
from antidrift.calendar import Agenda, Calendar
from antidrift.core.clock import Clock, SteadyClock
from antidrift.core.domain import (
    MAX_TEXT,
    Commitment,
    IllegalTransitionError,
    RuntimeState,
    WindowSample,
    describe,
    parse_extend_minutes,
    redact_window,
    require,
    times_up,
    valid_text,
    validate_plan,
    validate_review,
)
from antidrift.core.errors import WriteFailed
from antidrift.core.ports import Store
from antidrift.core.timing import paused_total
from antidrift.drift.guard import DriftGuard, Enforcer
from antidrift.drift.policy import OFF, DriftSettings, parse_choice
from antidrift.drift.rules import StandingRules
from antidrift.drift.window_key import is_own_page
from antidrift.notify import Notifier
from antidrift.session.coaching import Coaching
from antidrift.session.corrections import Corrections
from antidrift.session.drafts import Draft, Drafts
from antidrift.session.interruptions import Interruptions
from antidrift.session.reflecting import Reflections
from antidrift.session.snapshot import EvidenceView, Snapshot

log = logging.getLogger("antidrift.session")

Listener = Callable[[], None]


class Controller(Interruptions):
    """Owns the runtime state. Listeners run after the lock is released. Pause, resume, finish
    and its undo are in interruptions.py."""

    def __init__(
        self,
        store: Store,
        clock: Clock,
        *,
        coach: Coach | None = None,
        coach_unavailable: str = "coach unavailable",
        exclude_titles: re.Pattern[str] | None = None,
        coach_workers: int = 2,
        notifier: Notifier | None = None,
        judge: Judge | None = None,
        drift: DriftSettings | None = None,
        reflector: Reflector | None = None,
        enforcer: Enforcer | None = None,
        calendar: Calendar | None = None,
    ) -> None:
        self._store = store
        self._calendar = calendar  # planned around: the guard stands down during an event
        # Within a run time comes from the monotonic clock: a wall-clock jump can neither
        # end a timebox early nor stretch it, nor make a duration negative.
        self._clock = SteadyClock(clock)
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []
        self._watcher_running = False  # told by the window sampler (set_watcher)
        self._version = 0
        self._notifier = notifier
        persisted = store.load()
        self._state = persisted.state
        self._commitment = persisted.commitment
        if self._state is RuntimeState.ACTIVE and self._commitment is not None:
            # The time left is derived once from the stored wall-clock deadline, and never
            # more than the timebox (the wall clock may have gone back while we were down).
            c = self._commitment
            self._clock.resync(not_before=c.deadline - timedelta(seconds=c.total_secs))
        self._last_sample = persisted.samples[-1] if persisted.samples else None
        self._closure: str | None = None  # the commitment whose outcome was just recorded
        # What the user types while planning, kept as they type; guarded by this lock.
        self.drafts = Drafts(
            store,
            self._lock,
            self._changed,
            self._notify,
            planning=lambda: self._state is RuntimeState.PLANNING,
            proposal=lambda: self.coaching.view().proposal,
        )
        self.drafts.resume(self._state is RuntimeState.PLANNING)
        # The planning view's Sharpen button (the web calls it), guarded by this lock.
        self.coaching = Coaching(
            coach,
            store,
            self._lock,
            coach_unavailable,
            state=lambda: self._state,
            now=self._now,
            changed=self._changed,
            notify=self._notify,
            workers=coach_workers,
            drafts=self.drafts,
            free_minutes=lambda: calendar.free_minutes(self.now()) if calendar else None,
        )
        # The review's Reflect button (the web calls it): on the coach's executor, this lock.
        self.reflections = Reflections(
            reflector,
            store,
            self.coaching.executor,
            self._lock,
            coach_unavailable,
            state=lambda: self._state,
            current=lambda: self._commitment,
            now=self._now,
            changed=self._changed,
            notify=self._notify,
        )
        # Corrections to the history after the fact, guarded by this lock.
        self.corrections = Corrections(store, self._lock, self._changed, self._notify)
        # The drift guard: judge calls on its own executor, under this controller's lock.
        self._guard = DriftGuard(
            judge=judge,
            settings=drift,
            store=store,
            clock=self._clock,
            lock=self._lock,
            changed=self._changed,
            notify=self._notify,
            announce=self._announce,
            exclude=exclude_titles,
            enforcer=enforcer,
            busy=calendar.busy if calendar is not None else None,
        )
        # Standing rules: written under this lock; the running commitment's guard follows.
        self.rules = StandingRules(store, self._lock, self._guard, self._changed, self._notify)
        self._started = False  # the constructor starts nothing: start() does

    def retune(self, coach, unavailable: str, reflect, judge, drift, exclude, notifier) -> None:
        """Changed settings: at once, but the guard from the next commitment (guard.retune)."""
        with self._lock:
            self.coaching.coach, self.coaching.unavailable = coach, unavailable
            self.reflections.reflector, self._notifier = reflect, notifier
            self._guard.retune(judge, drift, exclude)

    def start(self) -> None:
        """Take up what the stored state left (once; `Runtime.start` calls it): the guard
        watches a resumed commitment again with its verdicts, one whose deadline passed while
        the server was down goes to review and says so, a resumed planning warms the coach."""
        with self._lock:
            if self._started:
                return
            self._started = True
            after = None
            if self._state is RuntimeState.ACTIVE:  # resumed after a restart: verdicts are kept
                after = self._guard.begin(self._commitment, self._last_sample)
        try:
            expired = self.expire_if_due()
        except WriteFailed:  # the disk is full: logged once; the ticker retries every second
            expired = False
        if not expired and after is not None:
            after.run()
        with self._lock:
            if self._state is RuntimeState.PLANNING:  # resumed in planning: the coach gets ready
                self.coaching.keep_warm(True)

    # -- listeners ---------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def _notify(self) -> None:
        for listener in list(self._listeners):
            try:
                listener()
            except Exception:  # a broken listener must not undo a committed transition
                log.exception("listener failed")

    def _changed(self) -> None:
        """Called under the lock after a mutation."""
        self._version += 1

    # -- time --------------------------------------------------------------------------------

    def now(self) -> datetime:
        """The controller's time: steady while a timebox runs, the wall clock otherwise."""
        with self._lock:
            return self._now()

    def _now(self) -> datetime:
        if self._state is not RuntimeState.ACTIVE:
            # Nothing is being timed: follow a corrected wall clock, but never to before the
            # commitment under review ended (an extension restarts from there at the earliest).
            c = self._commitment
            self._clock.resync(not_before=(c.ended_at or c.started_at) if c else None)
        return self._clock.now()

    def agenda(self, now: datetime) -> Agenda:
        """What the calendar says at `now` (nothing without one)."""
        return self._calendar.agenda(now) if self._calendar is not None else Agenda()

    # -- projection --------------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        with self._lock:
            now = self._now()
            active = self._state is RuntimeState.ACTIVE
            return Snapshot(
                version=self._version,
                state=self._state,
                commitment=self._commitment,
                evidence=EvidenceView.of(
                    self._commitment.started_at if self._state is RuntimeState.ACTIVE else None,
                    self._last_sample,
                    now,
                    self._watcher_running,
                ),
                coach=self.coaching.view() if self._state is RuntimeState.PLANNING else None,
                draft=self.drafts.draft if self._state is RuntimeState.PLANNING else None,
                now=now,
                drift=self._guard.view(now) if self._state is RuntimeState.ACTIVE else OFF,
                reflection=self.reflections.view(self._commitment.id)
                if self._state is RuntimeState.REVIEW and self._commitment is not None
                else None,
                paused_secs=paused_total(self._commitment, now) if active else 0,
                undo_until=self.undo_until(),
                closure=self._closure if self._state is RuntimeState.LOCKED else None,
                calendar=self.agenda(now),
            )

    # -- transitions -------------------------------------------------------------------------

    def enter_planning(self, draft: Draft | None = None) -> None:
        """draft: what the planning form opens with (Again: an earlier commitment's plan)."""
        with self._lock:
            require(self._state, RuntimeState.LOCKED, action="plan")
            # Persist first, as every transition does: a failed save changes nothing.
            self.drafts.begin(draft)
            self._store.save(RuntimeState.PLANNING, None)
            self._state, self._closure = RuntimeState.PLANNING, None
            self.coaching.reset()
            self.coaching.keep_warm(True)
            self._changed()
        self._notify()

    def cancel_planning(self) -> None:
        with self._lock:
            require(self._state, RuntimeState.PLANNING, action="cancel planning")
            self._store.save(RuntimeState.LOCKED, None)
            self._state = RuntimeState.LOCKED
            self.drafts.clear()
            self.coaching.reset()
            self.coaching.keep_warm(False)
            self._changed()
        self._notify()

    def start_manual_commitment(
        self,
        next_action: object,
        success_condition: object,
        timebox_minutes: object,
        drift: object = None,
        enforce: object = None,
    ) -> Commitment:
        """drift: "off" turns the drift guard off for this commitment alone; enforce:
        "minimize"|"off" its teeth (absent: the setting)."""
        started = self.start_commitment(
            next_action, success_condition, timebox_minutes, drift, enforce
        )
        return started.commitment

    def start_commitment(
        self,
        next_action: object,
        success_condition: object,
        timebox_minutes: object,
        drift: object = None,
        enforce: object = None,
    ) -> Snapshot:
        """As start_manual_commitment; the snapshot is taken as it started, under the same
        lock: the answer to POST /commitment, which another request's Finish or End a moment
        later must not turn into `commitment: null`."""
        with self._lock:
            # The state first: a client in the wrong state must hear 409, not "fix your body".
            require(self._state, RuntimeState.PLANNING, action="start a commitment")
            plan = validate_plan(next_action, success_condition, timebox_minutes)
            watch, teeth = parse_choice(drift), self._guard.parse_enforce(enforce)
            now = self._now()
            # The task the user picked while planning (the draft kept it) goes with it.
            task = self.drafts.draft.task
            commitment = Commitment.begin(str(uuid.uuid4()), plan, now, task, enforce=teeth)
            self._store.save(RuntimeState.ACTIVE, commitment)
            self._state, self._commitment, self._last_sample = RuntimeState.ACTIVE, commitment, None
            self.drafts.clear()
            self.coaching.reset()
            self.coaching.keep_warm(False)
            after = self._guard.begin(commitment, watch=watch)
            self._changed()
            started = self.snapshot()
        after.run()
        self._notify()
        return started

    def extend(self, minutes: object) -> Commitment:
        """Add minutes while active, or reopen a commitment whose timebox ran out."""
        with self._lock:
            current = self._commitment
            if not (
                self._state is RuntimeState.ACTIVE
                or (self._state is RuntimeState.REVIEW and current.ran_out)
            ):
                raise IllegalTransitionError(
                    "You can add time only while a commitment runs, or when its time ran out"
                    f" (not after Finish): {describe(self._state)}."
                )
            extended = current.extend(parse_extend_minutes(minutes), self._now())
            self._store.save(RuntimeState.ACTIVE, extended)
            resumed = self._state is RuntimeState.REVIEW
            self._state, self._commitment = RuntimeState.ACTIVE, extended
            after = None
            if resumed:  # the time's-up review was neither work nor drift
                after = self._guard.begin(extended, self._last_sample, since=self._now())
            self._changed()
        if after is not None:
            after.run()
        self._notify()
        return extended

    def expire_if_due(self) -> bool:
        """Move an active commitment whose deadline has passed to review."""
        with self._lock:
            c = self._commitment
            if self._state is not RuntimeState.ACTIVE or c.paused or self._now() < c.deadline:
                return False
            self._to_review(self._commitment.deadline)
            ended = self._commitment
        self._announce(*times_up(ended))
        self._notify()
        return True

    def _announce(self, title: str, body: str) -> None:
        """A desktop notification, after the lock (the notifier runs off this thread)."""
        if self._notifier is not None:
            try:
                self._notifier.notify(title, body)
            except Exception:  # a notifier must never undo or stall a transition
                log.exception("notifier failed")

    def _to_review(self, at: datetime) -> None:
        stopped = self._commitment.stopped(at)
        self._store.save(RuntimeState.REVIEW, stopped)
        self._state, self._commitment = RuntimeState.REVIEW, stopped
        try:
            self._guard.stop(stopped.ended_at)
        except Exception:  # the transition has happened; drift figures are evidence, not state
            log.exception("could not record the drift guard's figures")
        self._changed()

    def end(self, outcome: object, note: object = "") -> Commitment:
        with self._lock:
            require(self._state, RuntimeState.REVIEW, action="record an outcome")
            result, text = validate_review(outcome, note)
            ended = self._commitment.ended(self._commitment.ended_at, result, text)
            self._store.save(RuntimeState.LOCKED, ended)
            self.reflections.cancel()
            self._state, self._commitment, self._last_sample = RuntimeState.LOCKED, None, None
            self._closure = ended.id  # the locked view acknowledges it until the next plan
            self._changed()
        self._notify()
        return ended

    def record_window(self, app: str, title: str, at: datetime | None = None, exact=None) -> bool:
        """Record a focus sample (`exact`: which window, for the teeth); outside active, or paused,
        it is accepted and dropped."""
        # Redacted on the whole title, then cut; searched outside the lock (bounded, not free).
        app, title, exclude = valid_text(app), valid_text(title), self._guard.exclude
        shown = redact_window(app, title, exclude)
        with self._lock:
            if self._state is not RuntimeState.ACTIVE or self._commitment.paused:
                return False
            own = is_own_page(title, self._commitment.next_action)  # the guard sees only that
            if self._guard.exclude is not exclude:  # a new commitment took a new pattern up
                shown = redact_window(app, title, self._guard.exclude)
            sample = WindowSample(shown[0][:MAX_TEXT], shown[1][:MAX_TEXT], at or self._now(), own)
            self._store.add_sample(self._commitment.id, sample)
            after = None
            if self._last_sample is None or sample.at >= self._last_sample.at:
                self._last_sample = sample
                after = self._guard.observe(sample, exact)
            self._changed()
        if after is not None:
            after.run()
        self._notify()
        return True

    def set_watcher(self, running: bool) -> None:
        """A window watcher started, stopped, failed or recovered: evidence health says so."""
        with self._lock:
            if running == self._watcher_running:
                return
            self._watcher_running = running
            self._changed()
        self._notify()

    def wants_evidence(self) -> bool:
        """Whether a window sample would be kept now (only while a commitment runs)."""
        with self._lock:
            return self._state is RuntimeState.ACTIVE and not self._commitment.paused

    # -- the drift guard ---------------------------------------------------------------------

    def acknowledge_drift(self, answer: object) -> None:
        """The user's answer to the drift banner: `back` or `on_task`."""
        with self._lock:
            require(self._state, RuntimeState.ACTIVE, action="answer the drift guard")
            after = self._guard.acknowledge(answer, self._now())
            self._changed()
        after.run()
        self._notify()

    def drift_tick(self) -> None:
        """Once a second: a drift that outlasted its grace becomes an episode and a nudge."""
        with self._lock:
            if self._state is not RuntimeState.ACTIVE:
                return
            version = self._version
            after = self._guard.tick(self._now())
            changed = self._version != version
        after.run()
        if changed:
            self._notify()

    def shutdown(self) -> None:
        """Kill running coach CLIs and refuse new ones (server stop)."""
        with self._lock:
            self.reflections.cancel()
            self.coaching.shutdown()
        self._guard.shutdown()
