"""Guard here too (POST /follow): while this machine is locked, its window watcher and a
drift guard of its own work for a commitment running on another of the user's machines —
each window judged against that commitment's next action and done-when by this machine's
judge (with no AI here, standing rules alone decide), nudges here, the evidence kept by the
commitment's id (followed.py, in the store too) for sync to carry to its machine: when
following ends (by the user, by itself, by a plan or a break here), and at most once an hour
while it goes on.

What is followed is the aggregate's (`FocusSession.following`, a value; never stored: a
restart ends following, and the page then offers Guard here too again). Each move is one
unit of work. Once a second (`tick`) the other machine's `now` is read again: following
ends by itself when it no longer shows that commitment running, or was not seen changing
for 3 minutes; a pause there pauses the guard here (the window seen last ends at the pause);
changed words are judged afresh. Time away from this machine's keyboard is noticed as for a
commitment running here (`idle`, the window sampler's, after `away_after` minutes without
input): the time since input stopped is no window's, nothing is judged or nudged, and the
guard starts again at the next input.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta

from antidrift.core.domain import AWAY_MARK, MAX_TEXT, WindowSample, valid_text
from antidrift.core.following import Followed, device_id_of
from antidrift.core.ports import Repository
from antidrift.core.session import CameBack, WentAway
from antidrift.core.sites import redact_page
from antidrift.drift.guard import DriftGuard
from antidrift.drift.policy import OFF, DriftSettings, DriftView
from antidrift.drift.window_key import is_own_page
from antidrift.session.followed import FollowedEvidence
from antidrift.session.state import Session, Tuning
from antidrift.session.unit_of_work import UnitOfWork

Look = Callable[[str], Mapping[str, object] | None]


def _settings(parts: Tuning) -> DriftSettings:
    """The guard's timing (grace, cooldown, the hourly cap), with a judge or without."""
    return parts.follow_drift or parts.drift or DriftSettings()


class Following:
    """The handlers of Guard here too, and the drift guard that works for it."""

    def __init__(
        self,
        work: UnitOfWork,
        session: Session,
        store: Repository,
        parts: Tuning,
        busy: Callable[[datetime], bool] | None = None,
    ) -> None:
        self._work, self._s = work, session
        self.evidence = FollowedEvidence(store)  # the standing rules are the store's
        self.guard = DriftGuard(
            judge=parts.judge,
            settings=_settings(parts),
            store=self.evidence,  # type: ignore[arg-type]  # the methods a guard calls
            clock=session.clock,
            work=work,
            announce=session.announce,  # nudges here
            exclude=parts.exclude,
            busy=busy,  # a calendar event here: nothing judged meanwhile
            rules_alone=True,
        )
        for part in (self.evidence, self.guard):
            work.keep(part)
        # Another machine's fresh `now` by its device id, as /state's `elsewhere` lists it
        # with its done-when (None: not seen changing in the last 3 minutes). Sync's, set
        # by the composition root (server/adapters.build_sync); none without sync.
        self.look: Look = lambda device_id: None

    def retune(self, parts: Tuning) -> None:
        """Changed settings: the judge and timing from the next follow, the private-title
        pattern at once (as the running commitment's guard)."""
        self.guard.retune(parts.judge, _settings(parts), parts.exclude)

    # -- the moves ---------------------------------------------------------------------------

    def follow(self, device_id: object) -> Followed:
        """POST /follow: guard that machine's running commitment here (409 unless locked and
        following none; 400 for no id; 404 when that machine was not seen in 3 minutes; 409
        when nothing runs there)."""
        with self._work as work:
            s = self._s
            s.focus.may_follow()  # the state first: 409 before the input is read
            followed = Followed.of(self.look(device_id_of(device_id)), s.now())
            s.focus.follow(followed)
            self.evidence.begin(followed)
            work.then(self.guard.begin(followed.commitment()).run)
            work.changed()
        return followed

    def stop(self) -> Followed:
        """POST /follow/stop (409 when nothing is followed)."""
        with self._work as work:
            s = self._s
            ended = s.focus.stop_following()
            self._ended(s.now())
            work.changed()
        return ended

    def release(self, now: datetime) -> None:
        """Under the unit of work of a move that ended following (plan, a break): the guard
        stops, its figures kept."""
        if self._s.focus.following is None:
            self._ended(now)

    def _ended(self, now: datetime) -> None:
        """Under the unit of work: the guard stops (its figures kept), the last window's
        time ends now."""
        self.guard.stop(now)
        self.evidence.close(now)

    def tick(self) -> None:
        """Once a second, while following: it ends when the commitment ends there; a pause
        or new words there are taken up; a drift past its grace becomes a nudge."""
        if self._s.focus.following is None:  # a look without the lock: nothing to do
            return
        with self._work as work:
            s = self._s
            followed = s.focus.following
            if followed is None:
                return
            now, seen = s.now(), self.look(followed.device_id)
            why = followed.gone(seen)
            if why is not None:
                s.focus.stop_following(why)
                self._ended(now)
                work.changed()
                return
            moved = followed.seen(seen)  # type: ignore[arg-type]  # not gone: seen
            if moved != followed:
                s.focus.follow_moved(moved, now)
                self._moved(followed, moved, now)
                work.changed()
            work.then(self.guard.tick(now).run)
            self.evidence.publish(now)  # what changed, to the folder: at most once an hour

    def _moved(self, was: Followed, now_is: Followed, now: datetime) -> None:
        last = self.evidence.last(now_is.commitment_id)
        words = (now_is.next_action, now_is.success_condition)
        if words != (was.next_action, was.success_condition):  # changed there: judged afresh
            self.evidence.forget_verdicts(now_is.commitment_id)
            self._work.then(self.guard.replan(now_is.commitment(), last, now).run)
        if now_is.paused and not was.paused:
            self.evidence.cut(now)  # the paused time is no window's
            self.guard.pause(now)
        elif was.paused and not now_is.paused:
            self._work.then(self.guard.resume(None, now).run)  # the next window judged

    def idle(self, idle_secs: float, at: datetime, after_minutes: int) -> bool:
        """The desktop's seconds since the last input at `at`, while guarding here (the
        window sampler's): True while the user is away, so it looks at no window. Gone away,
        the time since input stopped is taken back and the guard waits (no judge call, no
        nudge); back, it starts again with the next window seen."""
        with self._work as work:
            s = self._s
            away, event = s.focus.follow_idle(idle_secs, at, after_minutes)
            if isinstance(event, WentAway):
                self.evidence.away(event.since)
                self.guard.pause(at, away=True)
                work.changed()
            elif isinstance(event, CameBack):
                work.then(self.guard.resume(None, event.at).run)
                work.changed()
            elif not away:  # input then: the time until it was the user's
                self.evidence.present(at - timedelta(seconds=max(0.0, idle_secs)))
            return away

    # -- evidence ----------------------------------------------------------------------------

    def watching(self) -> bool:
        """Whether a window now would be the followed commitment's (a look without the lock;
        `record` looks again under it)."""
        followed = self._s.focus.following
        return followed is not None and not followed.paused

    def record(self, app: str, title: str, at: datetime | None = None, exact=None, *, url=None):
        """A window this machine saw, for the followed commitment (as the running one's:
        redacted, cut, AntiDrift's own page let pass); dropped when nothing is followed or
        it is paused there or the user is away. The teeth never act for another machine's
        commitment."""
        app, title, url = valid_text(app), valid_text(title), valid_text(url) if url else None
        shown = redact_page(app, title, url, self.guard.exclude)
        with self._work as work:
            s = self._s
            followed = s.focus.following
            if followed is None or followed.paused or followed.away_since is not None:
                return False  # away: no one is at the keyboard, so no window has the focus
            if (app, title) == AWAY_MARK:
                return False
            app_kept, title_kept, url_kept, site = shown
            own = is_own_page(title, followed.next_action)
            sample = WindowSample(
                app_kept[:MAX_TEXT], title_kept[:MAX_TEXT], at or s.now(), own, url_kept, site
            )
            if self.evidence.add_sample(followed.commitment_id, sample):
                work.then(self.guard.observe(sample).run)
            work.changed()
        return True

    # -- what the pages show (under the controller's snapshot) -------------------------------

    def view(self, now: datetime) -> DriftView:
        """The guard as /state's `drift` says it while following (off otherwise)."""
        return self.guard.view(now) if self._s.focus.following is not None else OFF

    def watched(self) -> tuple[datetime | None, WindowSample | None]:
        """Since when windows are watched for the followed commitment, and the last one."""
        followed = self._s.focus.following
        if followed is None:
            return None, None
        return followed.since, self.evidence.last(followed.commitment_id)

    def shutdown(self) -> None:
        self.guard.shutdown()
