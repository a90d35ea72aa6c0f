"""Guard here too (issue 42 item 4): the aggregate's following moves in the transition table
(follow from locked only; stop; Plan and a break end it) and the Following part over fakes —
another machine's commitment judged here against its next action (by this machine's judge,
or with no AI by the standing rules alone), a nudge here, and its end when that machine's
`now` no longer shows it running or was not seen for 3 minutes."""

from __future__ import annotations

from datetime import timedelta

import pytest

from antidrift.core.domain import Commitment, IllegalTransitionError, RuntimeState, WindowSample
from antidrift.core.errors import NotFound, ValidationError, WriteFailed
from antidrift.core.following import Followed, WhyEnded, device_id_of
from antidrift.core.rhythm import Break, Rhythm
from antidrift.core.session import FocusSession
from antidrift.core.transitions import TRANSITIONS, Move, Stage
from antidrift.drift.policy import RULES_ALONE, DriftSettings, DriftStatus
from antidrift.evidence.sampler import WindowSampler
from antidrift.session import followed
from antidrift.store.sqlite import SQLiteStore
from tests.fakes import START
from tests.support.changes import DESK_NOW, guarding, session
from tests.support.records import running_on
from tests.support.store import change

C = Commitment("c-1", "Write", "Done", 25 * 60, START, START + timedelta(minutes=25))
REST = Break(START, START + timedelta(minutes=5), False)
DESK = running_on("desk")
STAGES = {
    Stage.LOCKED: lambda: FocusSession(),
    Stage.BREAK: lambda: FocusSession(rhythm=Rhythm(rest=REST)),
    Stage.PLANNING: lambda: FocusSession(RuntimeState.PLANNING, draft="a draft"),
    Stage.ACTIVE: lambda: FocusSession(RuntimeState.ACTIVE, C),
    Stage.REVIEW: lambda: FocusSession(RuntimeState.REVIEW, C.stopped(START)),
}
REFUSED = {
    Stage.BREAK: "You are on a break: end it first, then guard the other machine's commitment"
    " here.",
    Stage.PLANNING: "You can't guard another machine's commitment here now: you are planning.",
    Stage.ACTIVE: "You can't guard another machine's commitment here now: a commitment is running.",
    Stage.REVIEW: "You can't guard another machine's commitment here now: the last commitment is"
    " waiting for its review.",
}


def _followed() -> Followed:
    return Followed.of(DESK, START)


# -- the aggregate and the table ----------------------------------------------------------------


def test_follow_and_stop_are_moves_of_locked_alone():
    assert [s for (s, m) in TRANSITIONS if m is Move.FOLLOW] == [Stage.LOCKED]
    assert [s for (s, m) in TRANSITIONS if m is Move.STOP_FOLLOWING] == [Stage.LOCKED]
    assert TRANSITIONS[(Stage.LOCKED, Move.FOLLOW)] is Stage.LOCKED  # it stays locked


@pytest.mark.parametrize("stage", list(REFUSED))
def test_follow_outside_locked_is_refused_with_a_sentence_and_moves_nothing(stage):
    focus = STAGES[stage]()
    before = focus.memento()
    with pytest.raises(IllegalTransitionError) as caught:
        focus.follow(_followed())
    assert (caught.value.status, caught.value.message) == (409, REFUSED[stage])
    assert focus == before


def test_following_stays_locked_and_follows_one_at_a_time():
    focus = FocusSession()
    focus.follow(_followed())
    assert (focus.stage, focus.state, focus.following.device) == (
        Stage.LOCKED,
        RuntimeState.LOCKED,
        "desk",
    )
    before = focus.memento()
    with pytest.raises(IllegalTransitionError, match="You are guarding desk's commitment here"):
        focus.follow(_followed())
    assert focus == before


def test_stop_by_hand_says_nothing_after_and_stop_with_none_followed_is_refused():
    focus = FocusSession()
    with pytest.raises(IllegalTransitionError) as caught:
        focus.stop_following()
    assert caught.value.message == "You are not guarding another machine's commitment here."
    focus.follow(_followed())
    assert focus.stop_following().commitment_id == "c-desk"
    assert (focus.following, focus.follow_end) == (None, None)
    active = STAGES[Stage.ACTIVE]()
    with pytest.raises(IllegalTransitionError, match="You are not guarding"):
        active.stop_following()


def test_ended_by_itself_it_says_why_until_the_next_follow_or_plan():
    focus = FocusSession()
    focus.follow(_followed())
    focus.stop_following(WhyEnded.THERE)
    assert focus.follow_end.sentence() == (
        "Stopped guarding desk's commitment here: it ended there."
    )
    focus.follow(_followed())
    assert focus.follow_end is None
    focus.stop_following(WhyEnded.UNSEEN)
    assert "desk has not been heard from for 3 minutes" in focus.follow_end.sentence()
    focus.plan("a draft")
    assert focus.follow_end is None


@pytest.mark.parametrize("move", ["plan", "break"])
def test_planning_or_a_break_here_ends_following(move):
    focus = FocusSession()
    focus.follow(_followed())
    if move == "plan":  # Start comes from planning: a commitment of this machine's own
        focus.plan("a draft")
    else:
        focus.take_break(REST)
    assert focus.following is None


def test_what_is_followed_comes_from_a_fresh_running_now_and_ends_with_it():
    with pytest.raises(NotFound) as unseen:
        Followed.of(None, START)
    assert unseen.value.status == 404 and unseen.value.message.endswith(".")
    with pytest.raises(IllegalTransitionError, match="No commitment runs on desk now"):
        Followed.of({**DESK, "state": "locked", "commitment_id": None}, START)
    followed = _followed()
    assert followed.commitment().success_condition == "The intro is in the doc"
    assert followed.gone(DESK) is None
    assert followed.gone(None) is WhyEnded.UNSEEN
    assert followed.gone({**DESK, "state": "review"}) is WhyEnded.THERE
    assert followed.gone({**DESK, "commitment_id": "c-next"}) is WhyEnded.THERE
    for bad in (None, "", "x" * 65, "desk/../id", "déskid"):
        with pytest.raises(ValidationError):
            device_id_of(bad)


# -- the Following part over fakes -------------------------------------------------------------


@pytest.fixture
def desk():
    """The desk's `now` as this machine's sync would give it (None: not seen)."""
    return {"now": dict(DESK)}


@pytest.fixture
def sqlite(tmp_path):
    """A real store: what goes to the folder is its record (`evidence_body`)."""
    store = SQLiteStore(tmp_path / "antidrift.sqlite3")
    yield store
    store.close()


def _windows(store: SQLiteStore, cid: str = "c-desk") -> list[list[object]]:
    """The windows of the evidence record this machine sends for `cid`."""
    return store.evidence_body(cid)["windows"]


def _sent(store: SQLiteStore) -> list[str]:
    """The evidence records put in the outbox for the sync folder, by commitment."""
    return [ref for _, kind, ref in store.sync_outbox() if kind == "evidence"]


def _following(make_controller, desk, **kwargs):
    controller = make_controller(**kwargs)
    controller.following.look = lambda device_id: desk["now"] if device_id == "desk0id" else None
    return controller


def test_with_no_ai_a_rule_judges_the_window_here_and_it_nudges_until_it_ends_there(
    sqlite, make_controller, desk, notifier, clock
):
    grace = DriftSettings(timedelta(seconds=30), timedelta(seconds=300), 30)
    controller = _following(make_controller, desk, store_=sqlite, notifier=notifier, drift=grace)
    controller.rules.add("firefox", "", "off_task")
    assert not controller.wants_evidence()
    controller.following.follow("desk0id")
    snap = controller.snapshot()
    assert (snap.state, snap.following.commitment_id, snap.follow_judged) == (
        RuntimeState.LOCKED,
        "c-desk",
        False,
    )
    assert controller.wants_evidence()
    assert controller.record_window("code", "intro.md")
    assert (controller.snapshot().drift.status, controller.snapshot().drift.reason) == (
        DriftStatus.UNKNOWN,
        RULES_ALONE,
    )
    clock.advance(5)
    assert controller.record_window("firefox", "Cat videos")
    assert controller.snapshot().drift.status is DriftStatus.DRIFTING
    clock.advance(29)
    controller.following.tick()
    assert notifier.shown == []
    clock.advance(1)
    controller.following.tick()
    [(title, body)] = notifier.shown
    assert body.startswith("Back to: Write the intro\nfirefox")
    # Back on a window no rule calls off task, the drift is over; off task again after the
    # cooldown, a second nudge.
    controller.record_window("code", "intro.md")
    assert controller.snapshot().drift.banner is None
    clock.advance(300)
    controller.record_window("firefox", "Cat videos")
    clock.advance(30)
    controller.following.tick()
    assert len(notifier.shown) == 2
    evidence = sqlite.evidence_body("c-desk")  # the record this machine sends
    assert sorted(w[:3] for w in evidence["windows"]) == [
        ["code", "intro.md", "code"],
        ["firefox", "Cat videos", "firefox"],
    ]
    assert [v[3:] for v in evidence["verdicts"]] == [
        ["off_task", "your rule: firefox is always off task", "rule"]
    ]
    assert [e["number"] for e in evidence["episodes"]] == [1, 2]
    desk["now"] = {**DESK, "state": "review"}  # finished there
    controller.following.tick()
    snap = controller.snapshot()
    assert snap.following is None and snap.follow_end.why is WhyEnded.THERE
    assert not controller.wants_evidence() and not controller.record_window("firefox", "More")
    assert _sent(sqlite) == ["c-desk"]  # ended: it goes to the folder
    assert sqlite.evidence_body("c-desk")["summary"][0] == 2  # its figures worked out


def test_this_machines_judge_judges_against_the_followed_next_action(make_controller, desk, judge):
    controller = _following(make_controller, desk, judge=judge, drift=DriftSettings())
    controller.following.follow("desk0id")
    assert controller.snapshot().follow_judged
    controller.record_window("docs", "Outline")
    [call] = judge.wait_calls(1)
    assert (call.app, call.next_action) == ("docs", "Write the intro")


def test_a_pause_there_waits_here_and_a_machine_not_seen_ends_following(
    make_controller, desk, clock
):
    controller = _following(make_controller, desk, drift=DriftSettings())
    controller.following.follow("desk0id")
    desk["now"] = {**DESK, "paused": True}
    controller.following.tick()
    assert controller.snapshot().drift.status is DriftStatus.PAUSED
    assert not controller.wants_evidence() and not controller.record_window("code", "x")
    desk["now"] = {**DESK, "next_action": "Write the outro"}
    controller.following.tick()
    assert controller.snapshot().following.next_action == "Write the outro"
    assert controller.wants_evidence()
    desk["now"] = None  # not seen changing for 3 minutes
    controller.following.tick()
    assert controller.snapshot().follow_end.why is WhyEnded.UNSEEN


@pytest.mark.parametrize("move", ["plan", "break"])
def test_plan_or_a_break_here_ends_following_its_guard_and_sends_what_it_saw(
    sqlite, make_controller, desk, clock, move
):
    controller = _following(make_controller, desk, store_=sqlite, drift=DriftSettings())
    controller.following.follow("desk0id")
    controller.record_window("code", "intro.md")
    clock.advance(20)
    if move == "plan":
        controller.enter_planning()
    else:
        controller.breaks.take()
    snap = controller.snapshot()
    assert snap.following is None and snap.follow_end is None
    assert controller.following.view(snap.now).status is DriftStatus.OFF
    assert _sent(sqlite) == ["c-desk"]
    assert _windows(sqlite) == [["code", "intro.md", "code", 20.0]]  # until it ended


def test_a_pause_there_ends_the_window_seen_last_here_at_the_pause(
    sqlite, make_controller, desk, clock
):
    controller = _following(make_controller, desk, store_=sqlite, drift=DriftSettings())
    controller.following.follow("desk0id")
    controller.record_window("code", "intro.md")
    clock.advance(20)
    desk["now"] = {**DESK, "paused": True}
    controller.following.tick()
    clock.advance(40)  # paused there: no window is looked at here
    desk["now"] = dict(DESK)
    controller.following.tick()
    controller.record_window("docs", "Outline")
    clock.advance(10)
    controller.following.stop()
    assert _windows(sqlite) == [
        ["code", "intro.md", "code", 20.0],  # not the paused 40 s
        ["docs", "Outline", "docs", 10.0],
    ]


class Desktop:
    """This machine's screen and keyboard on the fake clock, as the window sampler asks
    them: the focused window (a probe) and the seconds since the last input (an idle
    source)."""

    name = "fake"

    def __init__(self, clock, window: tuple[str, str]) -> None:
        self.clock, self.window, self.input_at = clock, window, clock.now()

    def active_window(self) -> tuple[str, str]:
        return self.window

    def idle_secs(self) -> float:
        return (self.clock.now() - self.input_at).total_seconds()


def test_away_from_the_keyboard_while_guarding_nothing_is_timed_judged_or_nudged(
    sqlite, make_controller, desk, notifier, clock
):
    """The laptop plays cat videos while the user works at the desk: away after 3 minutes
    without input, as for a commitment running here."""
    grace = DriftSettings(timedelta(minutes=5), timedelta(seconds=300), 30)
    controller = _following(make_controller, desk, store_=sqlite, notifier=notifier, drift=grace)
    controller.rules.add("firefox", "", "off_task")
    screen = Desktop(clock, ("code", "intro.md"))
    sampler = WindowSampler(  # wired as the composition root wires it (server/bootstrap.py)
        screen,
        controller.record_window,
        now=clock.now,
        wanted=controller.wants_evidence,
        idle=screen,
        on_idle=controller.note_idle,
    )
    controller.following.follow("desk0id")
    sampler.sample_once()
    clock.advance(10)
    screen.window, screen.input_at = ("firefox", "Cat videos"), clock.now()  # off to the desk
    for _ in range(100):  # 50 minutes, a look every 30 s and the ticker's tick
        sampler.sample_once()
        controller.following.tick()
        clock.advance(30)
    snap = controller.snapshot()
    assert (snap.drift.status, snap.following.commitment_id) == (DriftStatus.AWAY, "c-desk")
    assert notifier.shown == []  # past the grace: nobody was there to nudge
    # The time since input stopped is no window's: the video's went with it.
    assert _windows(sqlite) == [["code", "intro.md", "code", 10.0]]
    screen.window, screen.input_at = ("code", "intro.md"), clock.now()  # back
    sampler.sample_once()
    assert controller.snapshot().drift.status is DriftStatus.UNKNOWN  # judged again
    clock.advance(20)
    controller.following.stop()
    assert _windows(sqlite) == [["code", "intro.md", "code", 30.0]]


def test_a_plan_that_cannot_be_saved_leaves_following_as_it_was(make_controller, desk, store):
    controller = _following(make_controller, desk, drift=DriftSettings())
    controller.following.follow("desk0id")
    controller.record_window("code", "intro.md")
    before = controller.snapshot()
    store.fail_saves = WriteFailed("the disk is full: nothing was saved and nothing changed")
    with pytest.raises(WriteFailed):
        controller.enter_planning()
    after = controller.snapshot()
    assert (after.state, after.following, after.drift) == (
        RuntimeState.LOCKED,
        before.following,
        before.drift,
    )
    assert controller.wants_evidence()


def test_what_is_seen_here_goes_out_at_most_once_an_hour_and_when_following_ends(
    make_controller, desk, store, clock
):
    """Each time is a segment in the sync folder, which holds about one an hour."""
    controller = _following(make_controller, desk, drift=DriftSettings())
    controller.following.follow("desk0id")
    clock.advance(3600)
    controller.following.tick()
    assert store.published == []  # nothing seen here yet: nothing to send
    controller.record_window("code", "intro.md")
    controller.following.tick()
    assert store.published == ["c-desk"]  # an hour since following began
    clock.advance(60)
    controller.record_window("docs", "Outline")
    controller.following.tick()
    clock.advance(3600 - 61)
    controller.following.tick()
    assert store.published == ["c-desk"]  # within the hour: it waits
    clock.advance(1)
    controller.following.tick()
    clock.advance(7200)
    controller.following.tick()
    assert store.published == ["c-desk"] * 2  # and nothing new since
    controller.following.stop()
    assert store.published == ["c-desk"] * 3  # the last window's time, when it ends
    assert [w[:2] for w in store.followed["c-desk"].windows] == [
        ("code", "intro.md"),
        ("docs", "Outline"),
    ]


def test_the_evidence_kept_here_is_bounded(monkeypatch, sqlite):
    monkeypatch.setattr(followed, "MAX_WINDOWS", 2)
    evidence = followed.FollowedEvidence(sqlite)
    with change(sqlite):
        for n in range(followed.MAX_KEPT + 1):
            evidence.begin(Followed.of({**DESK, "commitment_id": f"c-{n}"}, START))
        kept, *_ = evidence.memento()
        assert list(kept) == [f"c-{n}" for n in range(1, followed.MAX_KEPT + 1)]  # c-0 went
        for n, app in enumerate(["code", "docs", "mail", "chat"]):
            evidence.add_sample("c-8", WindowSample(app, "x", START + timedelta(seconds=10 * n)))
        evidence.close(START + timedelta(seconds=40))
    windows = _windows(sqlite, "c-8")
    assert [w[0] for w in windows] == ["(more windows)", "code", "docs"]
    assert sum(w[3] for w in windows) == 40.0


def test_the_evidence_kept_here_outlives_a_restart_and_a_failed_write_keeps_none_of_it(tmp_path):
    path = tmp_path / "antidrift.sqlite3"
    with session(path) as s:
        guarding(s)  # a window seen for the desk's commitment, 30 s ago
        s.controller.record_window("slack", "general")  # off task by the rule
        s.clock.advance(20)
        evidence = s.controller.following.evidence
        before = s.store.evidence_body("c-desk"), evidence.memento()
        s.writes.fail_at = s.writes.count + 1  # the next window's first write fails
        with pytest.raises(WriteFailed):
            s.controller.record_window("code", "intro.md")
        assert (s.store.evidence_body("c-desk"), evidence.memento()) == before
        s.writes.fail_at = None
    with session(path) as s:  # a restart: following ended with it, what it kept did not
        assert s.controller.snapshot().following is None
        s.controller.following.look = lambda device_id: DESK_NOW
        s.controller.following.follow("desk0id")
        s.controller.record_window("code", "intro.md")
        kept = s.store.evidence_body("c-desk")
        assert [w[:4] for w in kept["windows"]] == [["code", "intro.md", "code", 30.0]]
        assert [v[3] for v in kept["verdicts"]] == ["off_task"]  # and the rule's verdict
        assert s.store.followed_kept("c-desk").samples == 3
