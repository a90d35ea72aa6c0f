"""The teeth in the controller: the commitment's choice persisted, the adapter run after the
lock on the exact window the sampler saw, the episode and the notification saying what was
done, and a failing adapter a word in the banner, never an error."""

from __future__ import annotations

import re
import threading
from datetime import timedelta

import pytest

from antidrift.core.domain import ValidationError
from antidrift.drift.policy import DriftSettings, DriftStatus
from antidrift.drift.teeth import CouldNotPutAway
from antidrift.evidence.probe import WindowHandle
from tests.fakes import wait_until

ACTION = "Write the intro paragraph"
BROWSER = WindowHandle("sway", "7")
EDITOR = WindowHandle("sway", "4")


def settings(enforce: str = "off") -> DriftSettings:
    return DriftSettings(
        timedelta(seconds=10), timedelta(seconds=300), 30, enforce, timedelta(seconds=5)
    )


class FakeEnforcer:
    """Records which exact windows it was asked to put away; fails when told to."""

    def __init__(self) -> None:
        self.windows: list[WindowHandle] = []
        self.fail_with: str | None = None
        self.held_lock: list[bool] = []
        self.lock: threading.RLock | None = None

    def __call__(self, window: WindowHandle) -> str:
        if self.lock is not None:  # the adapter must run with the controller's lock free
            free = self.lock.acquire(blocking=False)
            if free:
                self.lock.release()
            self.held_lock.append(not free)
        self.windows.append(window)
        if self.fail_with:
            raise CouldNotPutAway(self.fail_with)
        return "moved to the scratchpad (swaymsg scratchpad show brings it back)"


@pytest.fixture
def enforcer() -> FakeEnforcer:
    return FakeEnforcer()


@pytest.fixture
def start(make_controller, judge, notifier, enforcer):
    def make(enforce_setting="off", enforce=None):
        controller = make_controller(
            judge=judge, notifier=notifier, drift=settings(enforce_setting), enforcer=enforcer
        )
        enforcer.lock = controller._work._lock
        controller.enter_planning()
        controller.start_manual_commitment(ACTION, "The intro is in the doc", 60, None, enforce)
        return controller

    return make


def drift_until_put_away(
    controller, judge, clock, exact=BROWSER, seconds=20, title="Cat videos — YouTube"
) -> None:
    controller.record_window("code", "intro.md", exact=EDITOR)
    judge.wait_calls(1)
    for _ in range(seconds):
        clock.advance(1)
        controller.record_window("firefox", title, exact=exact)
        controller.drift_tick()
        wait_until(lambda: controller.snapshot().drift.reason != "judging this window")


@pytest.mark.parametrize(
    ("setting", "choice", "stored"),
    [("off", None, "off"), ("minimize", None, "minimize"), ("minimize", "off", "off")],
)
def test_the_commitment_keeps_its_choice(start, store, setting, choice, stored):
    controller = start(setting, choice)
    assert controller.snapshot().commitment.enforce == stored
    assert store.load().commitment.enforce == stored


def test_a_bad_choice_is_a_400_and_nothing_starts(make_controller, judge):
    controller = make_controller(judge=judge, drift=settings())
    controller.enter_planning()
    with pytest.raises(ValidationError):
        controller.start_manual_commitment(ACTION, "Done", 60, None, "close")
    assert controller.snapshot().commitment is None


def test_an_ignored_nudge_puts_the_exact_window_away_after_the_lock(
    start, judge, clock, enforcer, notifier, store
):
    controller = start(enforce="minimize")
    drift_until_put_away(controller, judge, clock)
    assert enforcer.windows == [BROWSER] and enforcer.held_lock == [False]
    banner = controller.snapshot().drift.banner
    assert banner.enforced_at is not None and "scratchpad" in banner.enforce_note
    [saved] = store.episodes(controller.snapshot().commitment.id)
    assert saved.enforced_at == banner.enforced_at
    titles = [title for title, _ in notifier.shown]
    assert titles == ["Drifting? · AntiDrift", "Put away · AntiDrift"]
    body = notifier.shown[1][1]
    assert "scratchpad" in body and ACTION in body and "Cat videos" not in body
    controller.acknowledge_drift("back")  # Back to it works as before
    assert controller.snapshot().drift.banner is None


def test_a_failing_adapter_is_a_word_in_the_banner_never_an_error(
    start, judge, clock, enforcer, notifier, caplog
):
    enforcer.fail_with = "swaymsg failed: No matching node."
    controller = start(enforce="minimize")
    drift_until_put_away(controller, judge, clock)
    banner = controller.snapshot().drift.banner
    assert banner.enforced_at is None and banner.enforce_note == enforcer.fail_with
    assert "could not put the off-task window (firefox) away" in caplog.text
    assert [t for t, _ in notifier.shown] == ["Drifting? · AntiDrift"]
    assert controller.snapshot().drift.status is DriftStatus.DRIFTING
    controller.acknowledge_drift("on_task")  # This is on task works as before
    assert controller.snapshot().drift.status is DriftStatus.ON_TASK


def test_without_teeth_or_without_an_exact_window_nothing_is_put_away(
    start, judge, clock, enforcer
):
    controller = start(enforce="off")
    drift_until_put_away(controller, judge, clock)
    assert controller.snapshot().drift.banner is not None and enforcer.windows == []
    controller.finish()


def test_a_sample_without_the_exact_window_never_bites(start, judge, clock, enforcer):
    controller = start(enforce="minimize")
    drift_until_put_away(controller, judge, clock, exact=None)
    assert controller.snapshot().drift.banner is not None and enforcer.windows == []


def asking(controller) -> bool:
    """Whether a judge call is under way (the drift reason says so)."""
    reason = controller.snapshot().drift.reason or ""
    return reason == "judging this window" or reason.endswith("asking about it")


def test_the_own_page_is_known_before_its_title_is_redacted(
    make_controller, judge, notifier, enforcer, clock, store
):
    """A pattern matching a word of the action (or the browser's name) hides the page's title:
    it is still AntiDrift's own page, never judged, nudged or put away."""
    controller = make_controller(
        judge=judge,
        notifier=notifier,
        drift=settings("minimize"),
        enforcer=enforcer,
        exclude_titles=re.compile("bank", re.IGNORECASE),
    )
    controller.enter_planning()
    controller.start_manual_commitment(
        "Call the bank about the mortgage", "The call is booked", 60, None, None
    )
    controller.record_window("code", "intro.md", exact=EDITOR)
    judge.wait_calls(1)
    while controller.snapshot().drift.banner is None:
        clock.advance(1)
        controller.record_window("firefox", "Cat videos — YouTube", exact=BROWSER)
        controller.drift_tick()
        wait_until(lambda: not asking(controller))
    calls, banner = len(judge.calls), controller.snapshot().drift.banner
    own = "Drifting? · 12:34 · Call the bank about the mortgage · AntiDrift — Mozilla Firefox"
    for _ in range(15):  # the user switched the tab to read the banner
        clock.advance(1)
        controller.record_window("firefox", own, exact=BROWSER)
        wait_until(lambda: not asking(controller))  # a judge call (there must be none) settles
        controller.drift_tick()
    assert enforcer.windows == [], "the own page was put away"
    assert len(judge.calls) == calls, "the own page was judged"
    assert [t for t, _ in notifier.shown] == ["Drifting? · AntiDrift"]
    assert controller.snapshot().drift.banner == banner, "the banner waits for an answer"
    kept = store.samples(controller.snapshot().commitment.id)
    assert "bank" not in " ".join(sample.title for sample in kept), "the title is still hidden"


def test_teeth_asked_for_without_a_judge_are_off_and_stay_off_once_one_is_set_up(
    make_controller, judge, clock, enforcer, store
):
    # No judge, so no nudge to ignore: the commitment keeps no teeth, whatever it asked for.
    alone = make_controller(drift=settings("minimize"), enforcer=enforcer)
    alone.enter_planning()
    alone.start_manual_commitment(ACTION, "The intro is in the doc", 60, None, "minimize")
    assert alone.snapshot().commitment.enforce == "off"
    assert store.load().commitment.enforce == "off"
    alone.shutdown()
    # Back with a judge: the guard watches the commitment, and nudges, but never bites.
    again = make_controller(judge=judge, drift=settings("minimize"), enforcer=enforcer)
    again.start()
    drift_until_put_away(again, judge, clock)
    assert again.snapshot().drift.banner is not None and enforcer.windows == []


@pytest.mark.parametrize(
    "title",
    [
        "Cat videos · AntiDrift — YouTube — Mozilla Firefox",  # a crafted title, "· AntiDrift"
        "Cat videos · AntiDrift",
        "12:34 · Another plan · AntiDrift — Mozilla Firefox",  # not this commitment's page
    ],
)
def test_a_title_that_only_looks_like_the_page_is_judged_nudged_and_put_away(
    start, judge, clock, enforcer, notifier, title
):
    """The guard knows its own page by the whole title the page shows, never by a suffix."""
    controller = start(enforce="minimize")
    drift_until_put_away(controller, judge, clock, title=title)
    assert [c.app for c in judge.calls] == ["code", "firefox"], "it was never judged"
    assert enforcer.windows == [BROWSER]
    assert [t for t, _ in notifier.shown] == ["Drifting? · AntiDrift", "Put away · AntiDrift"]
