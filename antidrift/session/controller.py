"""The session controller: the moves of the loop. Every move is one unit of work
(unit_of_work.py): `session.check(Move.X)` asks the transition table (core/session.py), the
input is validated, the store written and the aggregate moved, the parts that share it told
(coaching, guard, reflections), `work.changed()`; what must wait for the commit (a judge call,
a coach process, a notification) goes to `work.then`. A failure anywhere rolls all of it
back. The composition root (server/bootstrap.py) builds the parts; the controller starts
nothing until `start()`."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import replace
from datetime import datetime

from antidrift.calendar import Agenda, Calendar
from antidrift.core.day import local_day
from antidrift.core.domain import (
    AWAY_MARK,
    MAX_TEXT,
    Commitment,
    RuntimeState,
    WindowSample,
    times_up,
    valid_text,
    validate_plan,
)
from antidrift.core.errors import WriteFailed
from antidrift.core.ports import Repository
from antidrift.core.sites import redact_page
from antidrift.core.timing import paused_total
from antidrift.core.transitions import Move
from antidrift.drift.guard import DriftGuard
from antidrift.drift.policy import parse_choice
from antidrift.drift.rules import StandingRules
from antidrift.drift.window_key import is_own_page
from antidrift.session.away import Away
from antidrift.session.breaks import Breaks
from antidrift.session.coaching import Coaching
from antidrift.session.corrections import Corrections
from antidrift.session.day import DayQueue
from antidrift.session.day_coaching import DayPlans
from antidrift.session.drafts import Draft, Drafts
from antidrift.session.following import Following
from antidrift.session.interruptions import Interruptions
from antidrift.session.reflecting import Reflections
from antidrift.session.snapshot import EvidenceView, Snapshot
from antidrift.session.state import Session, Tuning
from antidrift.session.unit_of_work import UnitOfWork

log = logging.getLogger("antidrift.session")

Listener = Callable[[], None]


def _spans(calendar: Calendar | None):
    """The calendar's events as (start, end) spans, as kept (None without a calendar)."""
    if calendar is None:
        return None
    return lambda: [(e.starts_at, e.ends_at) for e in calendar.events()]


class Controller:
    """Owns the transitions of the runtime state. Pause, resume, finish and its undo are the
    Interruptions part's, time away Away's; Sharpen is Coaching's, Reflect Reflections', the
    draft Drafts'."""

    def __init__(
        self,
        work: UnitOfWork,
        session: Session,
        store: Repository,
        *,
        guard: DriftGuard,
        drafts: Drafts,
        coaching: Coaching,
        reflections: Reflections,
        corrections: Corrections,
        rules: StandingRules,
        interruptions: Interruptions,
        away: Away,
        following: Following,
        calendar: Calendar | None = None,
    ) -> None:
        self._work, self._s, self._store = work, session, store
        self._guard = guard
        self.drafts, self.coaching, self.reflections = drafts, coaching, reflections
        self.corrections, self.rules = corrections, rules
        self.interruptions = interruptions
        self.away = away  # time away from the keyboard (shared with the interruptions)
        # Guard here too: another machine's commitment guarded here (session/following.py).
        self.following = following
        self.breaks = Breaks(work, session, store, following.release)  # between commitments
        # The day's queue (session/day.py), planned around the calendar's events.
        self.day = DayQueue(work, session, store, _spans(calendar))
        self.day_plans = DayPlans(work, session, self.day, coaching)  # Sharpen the day
        work.keep(self.day_plans)  # its proposal in memory, kept by the change
        self._calendar = calendar  # planned around: the guard stands down during an event
        self._started = False  # the constructor starts nothing: start() does

    @property
    def work(self) -> UnitOfWork:
        """The one unit of work every change goes through (sync's imports too)."""
        return self._work

    def retune(self, tuning: Tuning) -> None:
        """Changed settings, into every part that uses one: at once, but the guard from the
        next commitment (guard.retune)."""
        with self._work:
            self.coaching.coach, self.coaching.unavailable = tuning.coach, tuning.unavailable
            self.reflections.reflector = tuning.reflector
            self.reflections.unavailable = tuning.unavailable
            self._s.notifier, self._s.breaks = tuning.notifier, tuning.breaks
            self._guard.retune(tuning.judge, tuning.drift, tuning.exclude)
            self.following.retune(tuning)
            self.away.after_minutes = tuning.away_after

    def start(self) -> None:
        """Take up what the stored state left (once; `Runtime.start` calls it): the guard
        watches a resumed commitment again with its verdicts, one whose deadline passed while
        the server was down goes to review and says so, a resumed planning warms the coach."""
        with self._work:
            if self._started:
                return
            self._started = True
            after = None
            if self._s.state is RuntimeState.ACTIVE:  # resumed after a restart: verdicts kept
                after = self._guard.begin(self._s.commitment, self._s.last_sample)
        try:
            expired = self.expire_if_due()
        except WriteFailed:  # the disk is full: logged once; the ticker retries every second
            expired = False
        if not expired and after is not None:
            after.run()
        with self._work:
            if self._s.state is RuntimeState.PLANNING:  # resumed in planning: the coach warms
                self.coaching.keep_warm(True)

    def check(self, move: Move) -> None:
        """A route's word before it reads what a move needs: 409 unless the table lists
        `move` now."""
        with self._work:
            self._s.check(move)

    def next_action(self) -> str:
        """The running commitment's next action, as its editor opens with it (409 unless
        it can be changed now)."""
        with self._work:
            self._s.check(Move.EDIT)
            return self._s.commitment.next_action

    # -- listeners ---------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> None:
        self._work.subscribe(listener)

    # -- time --------------------------------------------------------------------------------

    def now(self) -> datetime:
        """The controller's time: steady while a timebox runs, the wall clock otherwise."""
        with self._work:
            return self._s.now()

    def agenda(self, now: datetime) -> Agenda:
        """What the calendar says at `now` (nothing without one)."""
        return self._calendar.agenda(now) if self._calendar is not None else Agenda()

    # -- projection --------------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        with self._work:
            s = self._s
            now = s.now()
            active, locked = s.state is RuntimeState.ACTIVE, s.state is RuntimeState.LOCKED
            away = self.away.view(now) if active else None
            # Away, no window is looked at: the evidence is as fresh as when input stopped.
            seen_by = away.since if away is not None and away.since is not None else now
            # Watched since, the window seen last: the running commitment's, else the followed.
            watched = (s.commitment.started_at, s.last_sample) if active else None
            since, last = watched or self.following.watched()
            return Snapshot(
                version=self._work.version,
                state=s.state,
                commitment=s.commitment,
                evidence=EvidenceView.of(since, last, seen_by, s.watcher_running),
                coach=self.coaching.view() if s.state is RuntimeState.PLANNING else None,
                draft=self.drafts.draft if s.state is RuntimeState.PLANNING else None,
                now=now,
                drift=self._guard.view(now) if active else self.following.view(now),
                reflection=self.reflections.view(s.commitment.id)
                if s.state is RuntimeState.REVIEW and s.commitment is not None
                else None,
                paused_secs=paused_total(s.commitment, now) if active else 0,
                away=away,
                undo_until=self.interruptions.undo_until(),
                closure=s.rhythm.closure if locked else None,
                calendar=self.agenda(now),
                rest=s.rhythm.rest if locked else None,
                rested=s.rhythm.rested and locked,
                five_said=s.commitment is not None and s.rhythm.five_said == s.commitment.id,
                following=s.focus.following,
                follow_end=s.focus.follow_end if locked else None,
                follow_judged=self.following.guard.judging,
                day_plan=self.day_plans.view(),
            )

    # -- transitions -------------------------------------------------------------------------

    def enter_planning(self, draft: Draft | None = None) -> None:
        """draft: what the planning form opens with (Again: an earlier commitment's plan)."""
        with self._work as work:
            s = self._s
            s.focus.plan(draft or Draft())
            s.persist(self._store)
            self.following.release(s.now())  # a plan of this machine's own ends following
            self.coaching.reset()
            work.then(lambda: self.coaching.keep_warm(True))
            work.changed()

    def cancel_planning(self) -> None:
        with self._work as work:
            s = self._s
            s.focus.cancel_planning()
            s.persist(self._store)
            self.coaching.reset()
            work.then(lambda: self.coaching.keep_warm(False))
            work.changed()

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
        draft_version: object = None,
    ) -> Snapshot:
        """As start_manual_commitment; the snapshot is taken as it started, under the same
        lock: the answer to POST /commitment, which another request's Finish or End a moment
        later must not turn into `commitment: null`. draft_version: the draft the page shows
        (a page showing an older one, with another plan, is refused: drafts.ChangedElsewhere)."""
        with self._work as work:
            s = self._s
            # The state first: a client in the wrong state must hear 409, not "fix your body".
            s.check(Move.START)
            typed = {"next_action": next_action, "success_condition": success_condition}
            self.drafts.check_shown(draft_version, typed | {"timebox_minutes": timebox_minutes})
            plan = validate_plan(next_action, success_condition, timebox_minutes)
            watch, teeth = parse_choice(drift), self._guard.parse_enforce(enforce)
            now = s.now()
            # The task the user picked while planning (the draft kept it) goes with it.
            task = self.drafts.draft.task
            commitment = Commitment.begin(str(uuid.uuid4()), plan, now, task, enforce=teeth)
            # Plan it: the day's item leaves the queue, and the commitment keeps its id.
            item = self.drafts.draft.day_item
            if item is not None:  # one carried over starts on today: it is today's first
                self._store.carry_day_items(local_day(now))
            if item is not None and self._store.start_day_item(item, now):
                commitment = replace(commitment, day_item_id=item)
            s.focus.start(commitment)
            s.persist(self._store)
            self.coaching.reset()
            work.then(lambda: self.coaching.keep_warm(False))
            work.then(self._guard.begin(commitment, watch=watch).run)
            work.changed()
            started = self.snapshot()  # joins this unit of work: the lock is still held
        return started

    def extend(self, minutes: object) -> Commitment:
        """Add minutes while active, or reopen a commitment whose timebox ran out."""
        with self._work as work:
            s = self._s
            reopened = s.focus.extend(minutes, s.now())
            s.persist(self._store)
            if reopened:  # the time's-up review was neither work nor drift
                work.then(self._guard.begin(s.commitment, s.last_sample, since=s.now()).run)
            work.changed()
            return s.commitment

    def expire_if_due(self) -> bool:
        """Move an active commitment whose deadline has passed to review."""
        with self._work as work:
            s = self._s
            over = s.focus.expire(s.now())
            if over is None:
                return False
            self.interruptions.stopped(over.commitment)
            work.then(lambda: s.announce(*times_up(over.commitment)))
        return True

    def end(self, outcome: object, note: object = "") -> Commitment:
        with self._work as work:
            s = self._s
            # auto_break: the break starts by itself, in the same move
            rest = self.breaks.planner() if s.breaks.auto and s.focus.allows(Move.END) else None
            ended = s.focus.end(outcome, note, rest)
            # The locked view acknowledges it until the next plan, through a restart too.
            s.persist(self._store, ended)
            work.then(self.reflections.stop)
            work.changed()
        return ended

    # -- the interruptions (interruptions.py) ------------------------------------------------

    def pause(self) -> Commitment:
        return self.interruptions.pause()

    def resume(self) -> Commitment:
        return self.interruptions.resume()

    def finish(self) -> None:
        self.interruptions.finish()

    def undo_finish(self) -> Commitment:
        return self.interruptions.undo_finish()

    def discard(self) -> Commitment:
        return self.interruptions.discard()

    def change_next_action(self, next_action: object) -> Commitment:
        return self.interruptions.change_next_action(next_action)

    def finish_standing(self, commitment_id: str) -> AbstractContextManager[None]:
        return self.interruptions.finish_standing(commitment_id)

    def writing_back(self, commitment_id: str, action: str) -> AbstractContextManager[None]:
        return self.interruptions.writing_back(commitment_id, action)

    # -- evidence ----------------------------------------------------------------------------

    def record_window(
        self, app: str, title: str, at: datetime | None = None, exact=None, *, url=None
    ) -> bool:
        """Record a focus sample (`exact`: which window, for the teeth; `url`: the browser's
        active tab); outside active, or paused, it is accepted and dropped."""
        if self.following.watching():  # locked, guarding another machine's commitment
            return self.following.record(app, title, at, url=url)
        # Redacted on the whole title, then cut; searched outside the lock (bounded, not free).
        app, title, exclude = valid_text(app), valid_text(title), self._guard.exclude
        url = valid_text(url) if url else None
        shown = redact_page(app, title, url, exclude)
        with self._work as work:
            s = self._s
            # Outside active a sample is dropped, not refused (an older contract).
            if not s.focus.allows(Move.SAMPLE) or s.commitment.paused or s.focus.away:
                return False  # away: no one is at the keyboard, so no window has the focus
            if (app, title) == AWAY_MARK:
                return False
            own = is_own_page(title, s.commitment.next_action)  # the guard sees only that
            if self._guard.exclude is not exclude:  # a new commitment took a new pattern up
                shown = redact_page(app, title, url, self._guard.exclude)
            app_kept, title_kept, url_kept, site = shown
            sample = WindowSample(
                app_kept[:MAX_TEXT], title_kept[:MAX_TEXT], at or s.now(), own, url_kept, site
            )
            newest = s.focus.sample(sample)
            self._store.add_sample(s.commitment.id, sample)
            if newest:
                work.then(self._guard.observe(sample, exact).run)
            work.changed()
        return True

    # -- time away (away.py) -----------------------------------------------------------------

    def note_idle(self, idle_secs: float, at: datetime | None = None) -> bool:
        """The desktop's seconds since the last input: True while the user is away (from a
        commitment running here, or from one of another machine's guarded here)."""
        at = at or self.now()
        if self.following.watching():  # locked, guarding another machine's commitment
            return self.following.idle(idle_secs, at, self.away.after_minutes)
        return self.away.idle(idle_secs, at)

    def credit_away(self) -> int:
        return self.away.credit()

    def dismiss_away(self) -> None:
        self.away.dismiss()

    def set_watcher(self, running: bool) -> None:
        """A window watcher started, stopped, failed or recovered: evidence health says so."""
        with self._work as work:
            if running == self._s.watcher_running:
                return
            self._s.watcher_running = running
            work.changed()

    def wants_evidence(self) -> bool:
        """Whether a window sample would be kept now (while a commitment runs here, or one
        of another machine's is guarded here)."""
        with self._work:
            if self._s.state is not RuntimeState.ACTIVE:
                return self.following.watching()
            return not self._s.commitment.paused

    # -- the drift guard ---------------------------------------------------------------------

    def acknowledge_drift(self, answer: object) -> None:
        """The user's answer to the drift banner: `back` or `on_task`."""
        with self._work as work:
            self._s.check(Move.ANSWER_DRIFT)
            work.then(self._guard.acknowledge(answer, self._s.now()).run)
            work.changed()

    def drift_tick(self) -> None:
        """Once a second: a drift that outlasted its grace becomes an episode and a nudge
        (the listeners hear of it only when the guard changed something)."""
        with self._work as work:
            if self._s.state is RuntimeState.ACTIVE:
                work.then(self._guard.tick(self._s.now()).run)

    def shutdown(self) -> None:
        """Kill running coach CLIs and refuse new ones (server stop)."""
        with self._work:
            self.reflections.cancel()
            self.day_plans.shutdown()
            self.coaching.shutdown()
        self._guard.shutdown()
        self.following.shutdown()
