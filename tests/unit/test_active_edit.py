"""The running commitment's next action, changed while it runs (on the fakes and the fake
clock): one validator (the planning rules), one unit of work (the version moves, every page
hears it), refused outside a running commitment, and the judge asked again against the new
words (its old verdicts forgotten; the user's own answers stand); the history keeps the final
next action, in the real store too."""

from __future__ import annotations

from datetime import timedelta

import pytest

from antidrift.core.domain import IllegalTransitionError, RuntimeState, ValidationError
from antidrift.core.drift_records import Source, Window
from antidrift.core.errors import WriteFailed
from antidrift.drift.policy import DriftSettings, DriftStatus
from antidrift.session.readmodel import ReadModel
from antidrift.store.sqlite import SQLiteStore
from tests.fakes import FakeStore, wait_until
from tests.support.session import build_controller
from tests.support.store import Committing

OLD, NEW = "Write the intro paragraph", "Write the methods section"
SETTINGS = DriftSettings(timedelta(seconds=60), timedelta(seconds=300), 30)


def _running(controller):
    controller.enter_planning()
    return controller.start_manual_commitment(OLD, "The intro is in the doc", 30)


def _settled(controller, judge, count):
    judge.wait_calls(count)
    wait_until(lambda: controller.snapshot().drift.reason != "judging this window")


def test_the_next_action_changes_while_it_runs_and_every_page_hears_it(
    make_controller, clock, store
):
    controller = make_controller()
    heard = []
    controller.subscribe(lambda: heard.append(controller.snapshot().version))
    started = _running(controller)
    clock.advance(120)
    before = controller.snapshot()
    changed = controller.change_next_action(f"  {NEW}  ")
    after = controller.snapshot()
    assert changed.next_action == NEW == after.commitment.next_action  # trimmed
    assert after.version > before.version and heard[-1] == after.version
    assert changed.id == started.id and changed.deadline == started.deadline
    assert store.saves[-1] == (RuntimeState.ACTIVE, changed)
    controller.pause()  # paused, it can be changed too
    assert controller.change_next_action("Write the results").next_action == "Write the results"
    controller.finish()
    controller.end("met")
    [entry] = ReadModel(store).history()
    assert entry.next_action == "Write the results"


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("", "Next action is required."),
        ("   ", "Next action is required."),
        (None, "Next action is required."),
        (7, "Next action must be text."),
        ("Write\x1b[31m it", "control character"),
        ("Write\u202e it", "control character"),
        ("x" * 501, "at most 500"),
    ],
)
def test_a_new_next_action_meets_the_planning_rules_or_nothing_changes(
    make_controller, store, typed, said
):
    controller = make_controller()
    _running(controller)
    version, saves = controller.snapshot().version, len(store.saves)
    with pytest.raises(ValidationError) as refused:
        controller.change_next_action(typed)
    assert said in refused.value.message and refused.value.field == "next_action"
    snap = controller.snapshot()
    assert snap.commitment.next_action == OLD and snap.version == version
    assert len(store.saves) == saves


def test_it_is_refused_when_no_commitment_runs(make_controller, clock, store):
    controller = make_controller()
    for where in ("locked", "planning", "review"):
        if where == "planning":
            controller.enter_planning()
        if where == "review":
            controller.start_manual_commitment(OLD, "The intro is in the doc", 30)
            controller.finish()
        saves = len(store.saves)
        with pytest.raises(IllegalTransitionError) as refused:
            controller.change_next_action(NEW)
        assert refused.value.status == 409
        assert refused.value.message.startswith("You can't change the next action now")
        assert len(store.saves) == saves
    assert controller.snapshot().commitment.next_action == OLD  # the review keeps its own


def test_the_judge_is_asked_again_against_the_new_next_action(
    make_controller, judge, notifier, store
):
    at_once = DriftSettings(timedelta(0), timedelta(0), 30)
    controller = make_controller(judge=judge, notifier=notifier, drift=at_once)
    c = _running(controller)
    controller.record_window("firefox", "Tutorial — YouTube")
    _settled(controller, judge, 1)
    controller.drift_tick()  # an episode opens: the banner asks
    controller.acknowledge_drift("on_task")  # the user's own word on this window
    controller.record_window("slack", "general")
    _settled(controller, judge, 2)
    assert controller.snapshot().drift.status is DriftStatus.DRIFTING
    assert [call.next_action for call in judge.calls] == [OLD, OLD]

    controller.change_next_action(NEW)
    # The window in focus is asked about again, against the new words, at once.
    _settled(controller, judge, 3)
    assert (judge.calls[2].app, judge.calls[2].next_action) == ("slack", NEW)
    kept = store.judgements(c.id)
    assert kept[Window("firefox", "Tutorial — YouTube")].source is Source.YOU
    assert kept[Window("slack", "general")].exchange is not None
    # The user's answer stands: back on that window, nothing is asked.
    controller.record_window("firefox", "Tutorial — YouTube")
    assert controller.snapshot().drift.status is DriftStatus.ON_TASK
    assert len(judge.calls) == 3


def test_an_unchanged_next_action_keeps_the_verdicts(make_controller, judge, notifier):
    controller = make_controller(judge=judge, notifier=notifier, drift=SETTINGS)
    _running(controller)
    controller.record_window("slack", "general")
    _settled(controller, judge, 1)
    version = controller.snapshot().version
    controller.change_next_action(f" {OLD} ")
    assert controller.snapshot().version == version
    controller.record_window("slack", "general")
    assert len(judge.calls) == 1


def test_changed_while_paused_the_judge_asks_again_on_resume(
    make_controller, judge, notifier, store
):
    controller = make_controller(judge=judge, notifier=notifier, drift=SETTINGS)
    c = _running(controller)
    controller.record_window("slack", "general")
    _settled(controller, judge, 1)
    controller.pause()
    controller.change_next_action(NEW)
    assert store.judgements(c.id, current=True) == {}  # none decides, through a restart too
    assert len(judge.calls) == 1  # nothing is judged while paused
    controller.resume()
    _settled(controller, judge, 2)
    assert (judge.calls[1].app, judge.calls[1].next_action) == ("slack", NEW)


def test_the_real_store_keeps_the_final_next_action(tmp_path, clock):
    store = SQLiteStore(tmp_path / "antidrift.sqlite3")
    controller = build_controller(store, clock)
    try:
        _running(controller)
        controller.change_next_action(NEW)
        assert store.load().commitment.next_action == NEW  # a restart resumes with it
        controller.finish()
        controller.end("met")
        [entry] = ReadModel(store).history()
        assert entry.next_action == NEW
    finally:
        controller.shutdown()
        store.close()


def test_the_real_store_sets_aside_all_but_the_users_answers(tmp_path, clock):
    from antidrift.core.drift_records import Judgement, Verdict

    store = SQLiteStore(tmp_path / "antidrift.sqlite3")
    controller = build_controller(store, clock)
    try:
        c = _running(controller)
        yours, judged = Window("firefox", "Tutorial"), Window("slack", "general")
        Committing(store).save_judgement(
            c.id, yours, Judgement(Verdict.ON_TASK, "you said", Source.YOU)
        )
        Committing(store).save_judgement(
            c.id, judged, Judgement(Verdict.OFF_TASK, "chat", Source.JUDGE)
        )
        Committing(store).forget_verdicts(c.id)
        assert list(store.judgements(c.id, current=True)) == [yours]
        assert list(store.judgements(c.id)) == [yours, judged]  # the time before still
        # Judged again against the new words, the window decides again.
        Committing(store).save_judgement(
            c.id, judged, Judgement(Verdict.ON_TASK, "the doc", Source.JUDGE)
        )
        again = store.judgements(c.id, current=True)
        assert list(again) == [yours, judged] and again[judged].verdict is Verdict.ON_TASK
        # A restart reads them as set aside (a new connection, the same file).
        Committing(store).forget_verdicts(c.id)
        store.close()
        store = SQLiteStore(tmp_path / "antidrift.sqlite3")
        assert list(store.judgements(c.id, current=True)) == [yours]
    finally:
        controller.shutdown()
        store.close()


class _FullDisk(FakeStore):
    """The disk is full: nothing can be forgotten or saved."""

    full = False

    def forget_verdicts(self, commitment_id):
        if self.full:
            raise WriteFailed("the disk is full: free some space")
        super().forget_verdicts(commitment_id)


def test_a_full_disk_changes_nothing(make_controller, judge, notifier):
    store = _FullDisk()
    controller = make_controller(store_=store, judge=judge, notifier=notifier, drift=SETTINGS)
    c = _running(controller)
    controller.record_window("slack", "general")
    _settled(controller, judge, 1)
    store.full = True
    with pytest.raises(WriteFailed):
        controller.change_next_action(NEW)
    assert controller.snapshot().commitment.next_action == OLD
    assert store.commitments[c.id].next_action == OLD
    assert list(store.judgements(c.id)) == [Window("slack", "general")]


def test_the_time_judged_before_a_change_still_counts(tmp_path, clock, judge):
    """Set aside, not deleted: ten minutes on a game judged off task before the change are
    still off task in the week (and the review), while the guard asks again from now on."""
    store = SQLiteStore(tmp_path / "antidrift.sqlite3")
    controller = build_controller(store, clock, judge=judge, drift=SETTINGS)
    try:
        c = _running(controller)
        controller.record_window("steam", "Store")
        _settled(controller, judge, 1)
        for _ in range(120):  # ten minutes of it, sampled every 5 s as the sampler does
            clock.advance(5)
            controller.record_window("steam", "Store")
        controller.record_window("code", "intro.md")
        _settled(controller, judge, 2)
        clock.advance(60)
        controller.change_next_action(NEW)
        _settled(controller, judge, 3)  # the window in focus, asked about again
        assert (judge.calls[2].app, judge.calls[2].next_action) == ("code", NEW)
        controller.finish()
        controller.end("met")
        week = ReadModel(store).week(clock.now())
        assert [(d.name, d.minutes) for d in week.top_distractions] == [("steam", 10)]
        decided = store.judgements(c.id)
        assert decided[Window("steam", "Store")].verdict.value == "off_task"
    finally:
        controller.shutdown()
        store.close()
