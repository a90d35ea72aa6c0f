"""The session as one aggregate.

`FocusSession` holds everything the loop keeps between requests: the runtime state, the
commitment, the window seen last, the rhythm (closure, break, Undo Finish, the away
question), the planning draft, the absence under way, and which outcome went to a task tool.
It does no I/O: the session wing's handlers move it inside one unit of work, which writes it
in one transaction and, on a rollback, puts back the copy it took before (`memento`).

Each move is a method that asks the one transition table (core/transitions.py) first, so a
move it does not list for the current stage is refused (409) with a sentence before anything
moves or is written; some return an event (a timebox over, a break over, an absence begun or
ended) for the handler to act on after the commit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from antidrift.core import timing
from antidrift.core.domain import (
    Commitment,
    Outcome,
    RuntimeState,
    WindowSample,
    describe,
    parse_extend_minutes,
    validate_review,
    whole_secs,
)
from antidrift.core.errors import IllegalTransitionError
from antidrift.core.following import Followed, FollowEnd, WhyEnded
from antidrift.core.rhythm import Break, Finished, Rhythm, five_said_after
from antidrift.core.transitions import TRANSITIONS, Move, Stage, check

UNDO_FINISH = timedelta(seconds=30)  # how long a manual Finish can be taken back
# Input within this of an absence's start is the idle clock's own rounding, not a return.
SLACK = timedelta(seconds=1)


@dataclass(frozen=True)
class Absence:
    """Time away from the keyboard: away since when (None: here), and the last return."""

    since: datetime | None = None  # input stopped then
    back_at: datetime | None = None  # input came then (or the clock ran again from elsewhere)


@dataclass(frozen=True)
class TimeboxOver:
    """Event: the running commitment's timebox ran out (it is in review now)."""

    commitment: Commitment


@dataclass(frozen=True)
class BreakOver:
    """Event: the break ran its course ("Break over")."""


@dataclass(frozen=True)
class WentAway:
    """Event: input stopped at `since`, long enough ago: the user is away."""

    commitment_id: str
    since: datetime


@dataclass(frozen=True)
class CameBack:
    """Event: input came again at `at`; the absence is counted and asked about."""

    at: datetime


@dataclass
class FocusSession:
    """The aggregate: every field is a value, so a copy is a memento."""

    state: RuntimeState = RuntimeState.LOCKED
    commitment: Commitment | None = None
    last_sample: WindowSample | None = None
    rhythm: Rhythm = Rhythm()
    draft: object = None  # the planning form (session.drafts.Draft) while planning
    absence: Absence = Absence()
    recorded: str | None = None  # the commitment whose outcome went to a task tool
    watcher_running: bool = False  # told by the window sampler
    # Guard here too: another machine's commitment this one's guard works for, while locked
    # (never stored: a restart ends it); and the last one that ended by itself (said once).
    following: Followed | None = None
    follow_end: FollowEnd | None = None

    @property
    def stage(self) -> Stage:
        if self.state is RuntimeState.LOCKED and self.rhythm.rest is not None:
            return Stage.BREAK
        return Stage(self.state.value)

    def allows(self, move: Move) -> bool:
        """Whether the table lists `move` from here."""
        return (self.stage, move) in TRANSITIONS

    def check(self, move: Move) -> Stage:
        """The stage `move` leads to from here (409 when the table does not list it)."""
        return check(self.stage, move)

    # -- the moves: each checks the table, then moves the aggregate (the handler writes it) --

    def plan(self, draft: object) -> None:
        """Planning (from locked or a break); a commitment of this machine's own ends
        following (Guard here too)."""
        self.check(Move.PLAN)
        self.state, self.draft = RuntimeState.PLANNING, draft
        self.rhythm = self.rhythm.but(closure=None, rest=None, rested=False)
        self.following = self.follow_end = None

    def cancel_planning(self) -> None:
        self.check(Move.CANCEL_PLANNING)
        self.state, self.draft = RuntimeState.LOCKED, None

    def start(self, commitment: Commitment) -> None:
        self.check(Move.START)
        self.state, self.commitment, self.last_sample = RuntimeState.ACTIVE, commitment, None
        self.draft = None

    def pause(self, now: datetime) -> Commitment:
        """The clock stops (409 unless running); an absence in progress ends, counted."""
        self.check(Move.PAUSE)
        if self.commitment.paused:
            raise IllegalTransitionError("You can't pause now: the commitment is paused.")
        self.end_absence(now, pausing=True)
        self.commitment = timing.paused(self.commitment, now)
        return self.commitment

    def resume(self, now: datetime) -> Commitment:
        """The clock runs again from where it stood: the deadline moves by the pause."""
        self.check(Move.RESUME)
        if not self.commitment.paused:
            raise IllegalTransitionError("You can't resume now: the commitment is not paused.")
        self.commitment = timing.resumed(self.commitment, now)
        self.present(now)  # the pause was no absence
        return self.commitment

    def edit(self, next_action: str) -> Commitment | None:
        """The running commitment's next action as the user now puts it (None: unchanged)."""
        self.check(Move.EDIT)
        if next_action == self.commitment.next_action:
            return None
        self.commitment = replace(self.commitment, next_action=next_action)
        return self.commitment

    def extend(self, minutes: object, now: datetime) -> bool:
        """More minutes while active, or a commitment whose timebox ran out reopened (True:
        it came back from review)."""
        current = self.commitment
        ran_out = current is not None and current.ran_out  # in review: not after Finish
        if not self.allows(Move.EXTEND) or (self.state is RuntimeState.REVIEW and not ran_out):
            raise IllegalTransitionError(
                "You can add time only while a commitment runs, or when its time ran out"
                f" (not after Finish): {describe(self.state)}."
            )
        extended = current.extend(parse_extend_minutes(minutes), now)
        rhythm = self.rhythm.but(finished=None)
        if five_said_after(current, now, timing.FIVE_MINUTES_FROM, timing.FIVE_MINUTES):
            rhythm = rhythm.but(five_said=current.id)  # said once: not again after this
        reopened = self.state is RuntimeState.REVIEW
        self.state, self.commitment, self.rhythm = RuntimeState.ACTIVE, extended, rhythm
        if reopened:
            self.present(now)  # the review was no absence
        return reopened

    def expire(self, now: datetime) -> TimeboxOver | None:
        """A running (not paused) commitment whose deadline has passed goes to review."""
        c = self.commitment
        if self.state is not RuntimeState.ACTIVE or c.paused or now < c.deadline:
            return None
        self.check(Move.EXPIRE)
        return TimeboxOver(self.stop(c.deadline))

    def finish(self, now: datetime) -> Commitment:
        """To review by hand (paused or not); Undo Finish can take it back for a while."""
        self.check(Move.FINISH)
        self.end_absence(now)  # first: Undo Finish comes back with the absence counted
        before = self.commitment
        self.rhythm = self.rhythm.but(finished=Finished.of(before, now))
        self.commitment = timing.resumed(before, now)  # finished while paused: it ends
        return self.stop(now)

    def stop(self, at: datetime) -> Commitment:
        """The running commitment stops at `at` and goes to review."""
        self.end_absence(at)  # away when the time ran out: the review says how much
        self.state, self.commitment = RuntimeState.REVIEW, self.commitment.stopped(at)
        return self.commitment

    def discard(self, now: datetime) -> Commitment:
        """The running commitment (paused or not) to the history as discarded: locked, with
        no closure."""
        self.check(Move.DISCARD)
        self.end_absence(now)  # an absence under way ends with it
        stopped = timing.resumed(self.commitment, now).stopped(now)
        gone = stopped.ended(stopped.ended_at, Outcome.DISCARDED, "")
        self.state, self.commitment, self.last_sample = RuntimeState.LOCKED, None, None
        return gone

    def undo_until(self, now: datetime) -> datetime | None:
        """Until when the last Finish can be undone (None: it cannot)."""
        done = self.rhythm.finished
        if done is None or self.state is not RuntimeState.REVIEW:
            return None
        if done.commitment_id != self.commitment.id or now > done.at + UNDO_FINISH:
            return None
        return done.at + UNDO_FINISH

    def undo_finish(self, now: datetime) -> Commitment:
        """Back to the running commitment as it was before Finish: the same deadline (and a
        pause in progress still paused)."""
        if self.undo_until(now) is None:
            if self.state is RuntimeState.REVIEW and self.recorded == self.commitment.id:
                raise IllegalTransitionError(
                    "You can't undo Finish now: its outcome is in your task list already"
                    " (ticked or noted there), and AntiDrift can't take that back."
                )
            raise IllegalTransitionError(
                "You can't undo Finish now: it can be undone for"
                f" {int(UNDO_FINISH.total_seconds())} seconds after you press it,"
                f" once ({describe(self.state)})."
            )
        self.check(Move.UNDO_FINISH)
        before = self.rhythm.finished.before(self.commitment)
        self.rhythm = self.rhythm.but(finished=None)
        self.state, self.commitment = RuntimeState.ACTIVE, before
        self.present(now)  # nor was the review
        return before

    def end(
        self, outcome: object, note: object, rest: Callable[[Commitment], Break] | None = None
    ) -> Commitment:
        """The review's outcome: the history has it, the locked view acknowledges it; with
        `rest` (the automatic break, as it would be after this commitment), a break too."""
        self.check(Move.END_WITH_BREAK if rest is not None else Move.END)
        result, text = validate_review(outcome, note)
        ended = self.commitment.ended(self.commitment.ended_at, result, text)
        self.rhythm = self.rhythm.but(closure=ended.id, finished=None)
        if rest is not None:
            self.rhythm = self.rhythm.but(rest=rest(ended), rested=False)
        self.state, self.commitment, self.last_sample = RuntimeState.LOCKED, None, None
        return ended

    def take_break(self, rest: Break) -> None:
        """A break here ends following (nothing is judged on a break)."""
        self.check(Move.TAKE_BREAK)
        self.rhythm = self.rhythm.but(rest=rest, rested=False)
        self.following = self.follow_end = None

    def end_break(self) -> None:
        self.check(Move.END_BREAK)
        self.rhythm = self.rhythm.but(rest=None)

    def break_over(self, now: datetime) -> BreakOver | None:
        """A break whose time is up ends, and says so."""
        if self.stage is not Stage.BREAK or now < self.rhythm.rest.ends_at:
            return None
        self.check(Move.BREAK_OVER)
        self.rhythm = self.rhythm.but(rest=None, rested=True)
        return BreakOver()

    def sample(self, sample: WindowSample) -> bool | None:
        """A window sample: None when none is kept now (outside active — dropped, not
        refused —, paused or away); else whether it is the newest seen."""
        if not self.allows(Move.SAMPLE) or self.commitment.paused or self.away:
            return None
        if self.last_sample is None or sample.at >= self.last_sample.at:
            self.last_sample = sample
            return True
        return False

    # -- Guard here too: another machine's commitment, guarded while this one is locked ---

    def may_follow(self) -> None:
        """409 unless another machine's commitment can be followed from here (locked, not on
        a break, following none yet)."""
        self.check(Move.FOLLOW)
        if self.following is not None:
            raise IllegalTransitionError(
                f"You are guarding {self.following.device}'s commitment here already: stop"
                " that first."
            )

    def follow(self, followed: Followed) -> None:
        self.may_follow()
        self.following, self.follow_end = followed, None

    def stop_following(self, why: WhyEnded | None = None) -> Followed:
        """Following ends: by the user (why None), or by itself (said until the next follow
        or plan); 409 when nothing is followed."""
        self.check(Move.STOP_FOLLOWING)
        ended = self.following
        if ended is None:
            raise IllegalTransitionError("You are not guarding another machine's commitment here.")
        self.following = None
        self.follow_end = FollowEnd(ended.device, ended.next_action, why) if why else None
        return ended

    def follow_moved(self, followed: Followed, now: datetime) -> None:
        """The followed commitment as its machine now says it (paused, its words changed). A
        pause there, or its end, ends an absence here: none counts from before it (as a
        pause of a commitment running here)."""
        was = self.following
        if was is None or followed.commitment_id != was.commitment_id:
            raise IllegalTransitionError("That commitment is not the one guarded here.")
        if followed.paused != was.paused:
            followed = replace(followed, away_since=None, present_at=now)
        self.following = followed

    def follow_idle(
        self, idle_secs: float, at: datetime, after_minutes: int
    ) -> tuple[bool, WentAway | CameBack | None]:
        """While guarding another machine's commitment (not paused there): the desktop's
        seconds since the last input at `at`, noticed as for a commitment running here —
        away after `after_minutes` without input, back at the next input. Nothing is
        counted or asked: the commitment's clock is its own machine's."""
        f = self.following
        if f is None or f.paused:
            return False, None
        last_input = at - timedelta(seconds=max(0.0, idle_secs))
        if f.away_since is not None:
            if not after_minutes:  # turned off while away: the absence ends now
                last_input = at
            elif last_input <= f.away_since + SLACK:
                return True, None
            back = min(max(last_input, f.away_since), at)
            self.following = replace(f, away_since=None, present_at=back)
            return False, CameBack(back)
        # Never away from before following began or the user was last known here.
        since = max(last_input, f.since, f.present_at or last_input)
        if not after_minutes or at - since < timedelta(minutes=after_minutes):
            return False, None
        self.following = replace(f, away_since=since)
        return True, WentAway(f.commitment_id, since)

    # -- time away ----------------------------------------------------------------------

    @property
    def away(self) -> bool:
        return self.absence.since is not None

    def idle(
        self, idle_secs: float, at: datetime, after_minutes: int
    ) -> tuple[bool, WentAway | CameBack | None]:
        """The desktop's seconds since the last input at `at`: whether the user is away, and
        the absence that began or ended with it."""
        c = self.commitment
        if self.state is not RuntimeState.ACTIVE or c.paused:
            return False, None
        last_input = at - timedelta(seconds=max(0.0, idle_secs))
        since = self.absence.since
        if since is not None:
            if not after_minutes:  # turned off while away: the absence ends now
                last_input = at
            elif last_input <= since + SLACK:
                return True, None
            return False, self._back(min(max(last_input, since), at))
        # Never away from before the commitment began or before the last return: each is
        # the user at the keyboard (an idle source may lag behind the input it missed).
        since = max(last_input, c.started_at, self.absence.back_at or last_input)
        if not after_minutes or at - since < timedelta(minutes=after_minutes):
            return False, None
        self.check(Move.AWAY)
        self.absence = replace(self.absence, since=since)
        return True, WentAway(c.id, since)

    def _back(self, at: datetime) -> CameBack:
        span = whole_secs(self.absence.since, at)
        back = replace(self.commitment, away_secs=self.commitment.away_secs + span)
        # The question is kept with the rhythm: a restart before it is answered still asks.
        self.rhythm = self.rhythm.but(asked=(back.id, span) if span else None)
        self.commitment, self.absence = back, Absence(None, at)
        return CameBack(at)

    def present(self, at: datetime) -> None:
        """The clock runs again at `at` (resume, undo, more time), maybe with no input here
        (a command from elsewhere): no absence counts from before."""
        back_at = self.absence.back_at
        self.absence = replace(self.absence, back_at=at if back_at is None else max(back_at, at))

    def end_absence(self, at: datetime, *, pausing: bool = False) -> None:
        """Before the commitment is paused or stopped at `at`: an absence in progress ends
        there and is counted. A question not yet answered stays through a pause (Pause
        pressed on coming back is no answer to "You were away 12 min"); it goes with the
        commitment."""
        if not pausing:
            self.rhythm = self.rhythm.but(asked=None)
        self.present(at)  # what ended here was counted: never again from before it
        since = self.absence.since
        if since is None:
            return
        span = whole_secs(since, max(at, since))
        self.commitment = replace(self.commitment, away_secs=self.commitment.away_secs + span)
        self.absence = replace(self.absence, since=None)

    def answer_away(self, move: Move) -> int:
        """Count the last absence as a pause (CREDIT_AWAY: the deadline moves by it) or keep
        counting it (DISMISS_AWAY); the absence's seconds (409 when there is none)."""
        self.check(move)
        returned = self.rhythm.asked
        if returned is None or returned[0] != self.commitment.id:
            raise IllegalTransitionError(
                f"You can't {move.value} now: you have not been away since you last answered."
            )
        if move is Move.CREDIT_AWAY:
            self.commitment = timing.credited(self.commitment, returned[1])
        self.rhythm = self.rhythm.but(asked=None)
        return returned[1]

    def memento(self) -> FocusSession:
        return replace(self)

    def restore(self, memento: object) -> None:
        assert isinstance(memento, FocusSession)
        self.__dict__.update(memento.__dict__)
