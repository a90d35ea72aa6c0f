"""The teeth's timing in the pure drift policy, on a fake clock: an ignored nudge puts the exact
off-task window away once per episode, and nothing else ever does."""

from __future__ import annotations

from datetime import timedelta

import pytest

from antidrift.core.domain import ValidationError
from antidrift.core.drift_records import Answer, Rule, Verdict
from antidrift.drift.policy import DriftStatus
from antidrift.drift.teeth import MINIMIZE, PutAway, Teeth, parse_enforce
from antidrift.evidence.probe import WindowHandle
from tests.support.drift_policy import Harness, ScriptedAnswers

EDITOR = ("code", "intro.md — notes")
VIDEO = ("firefox", "Cat videos — YouTube")
NEXT_VIDEO = ("firefox", "Dog videos — YouTube")
FEED = ("firefox", "Home / X")
HAZY = ("firefox", "Untitled")
OWN_PAGE = ("firefox", "12:34 · Write the intro · AntiDrift")
EDITOR_WIN = WindowHandle("sway", "4")
BROWSER = WindowHandle("sway", "7")
OTHER_BROWSER = WindowHandle("sway", "9")


def verdicts() -> dict[tuple[str, str], bool | str]:
    return {EDITOR: True, VIDEO: False, NEXT_VIDEO: False, FEED: False, HAZY: "unclear"}


def nudged(h: Harness, window=VIDEO, exact=BROWSER) -> None:
    """Focus the editor, then drift to `window` until the grace (60 s) has nudged."""
    h.focus(EDITOR, EDITOR_WIN)
    h.focus(window, exact)
    h.wait(60, window, exact=exact)
    assert len(h.nudges) == 1 and h.policy.open_episode is not None


def test_an_ignored_nudge_puts_that_exact_window_away_once_after_enforce_after():
    h = Harness(ScriptedAnswers(verdicts()), enforce_after=30)
    nudged(h)
    nudge_at = h.nudges[0].nudged_at
    h.wait(25, VIDEO, exact=BROWSER)
    assert h.put_aways == [], "not before enforce_after has passed since the nudge"
    h.wait(5, VIDEO, exact=BROWSER)
    assert h.put_aways == [PutAway(1, BROWSER, "firefox")]
    assert h.now - nudge_at == timedelta(seconds=30)
    h.wait(600, VIDEO, exact=BROWSER, step=5)
    assert len(h.put_aways) == 1, "exactly once per episode"


def test_a_later_episode_gets_its_own_put_away():
    h = Harness(ScriptedAnswers(verdicts()), enforce_after=30, cooldown=100)
    nudged(h)
    h.wait(30, VIDEO, exact=BROWSER)
    assert len(h.put_aways) == 1
    h.apply(h.policy.acknowledge(Answer.BACK, h.now))
    h.wait(200, VIDEO, exact=BROWSER)  # still there: after the grace and cooldown, episode 2
    assert len(h.nudges) == 2
    assert [p.episode for p in h.put_aways] == [1, 2]


def test_answered_in_time_nothing_is_put_away():
    for answer in (Answer.BACK, Answer.ON_TASK):
        h = Harness(ScriptedAnswers(verdicts()), enforce_after=30)
        nudged(h)
        h.wait(20, VIDEO, exact=BROWSER)
        h.apply(h.policy.acknowledge(answer, h.now))
        h.wait(120, VIDEO, exact=BROWSER)
        assert h.put_aways == [], answer


def test_switched_away_nothing_and_coming_back_starts_the_clock_again():
    h = Harness(ScriptedAnswers(verdicts()), enforce_after=30)
    nudged(h)
    h.wait(20, VIDEO, exact=BROWSER)
    h.focus(FEED, OTHER_BROWSER)  # another off-task window: the episode goes on, not its window
    h.wait(60, FEED, exact=OTHER_BROWSER)
    assert h.put_aways == [] and h.policy.open_episode is not None
    h.focus(VIDEO, BROWSER)
    back = h.now
    h.wait(25, VIDEO, exact=BROWSER)
    assert h.put_aways == []
    h.wait(5, VIDEO, exact=BROWSER)
    assert h.put_aways == [PutAway(1, BROWSER, "firefox")] and h.now - back >= timedelta(seconds=30)


def test_back_on_task_ends_the_episode_and_nothing_is_put_away():
    h = Harness(ScriptedAnswers(verdicts()), enforce_after=30)
    nudged(h)
    h.focus(EDITOR, EDITOR_WIN)
    h.wait(60, EDITOR, exact=EDITOR_WIN)
    assert h.put_aways == [] and h.policy.open_episode is None


def test_on_task_by_a_rule_nothing_is_put_away():
    h = Harness(ScriptedAnswers(verdicts()), enforce_after=30)
    nudged(h)
    h.set_rules(Rule(1, "firefox", "", Verdict.ON_TASK))
    h.wait(120, VIDEO, exact=BROWSER)
    assert h.put_aways == [] and h.status is DriftStatus.ON_TASK


def test_off_task_by_a_rule_is_put_away_like_a_verdict():
    h = Harness(
        ScriptedAnswers({EDITOR: True}),
        enforce_after=30,
        rules=[Rule(1, "firefox", "", Verdict.OFF_TASK)],
    )
    h.focus(EDITOR, EDITOR_WIN)
    h.focus(VIDEO, BROWSER)
    h.wait(90, VIDEO, exact=BROWSER)
    assert h.put_aways == [PutAway(1, BROWSER, "firefox")]


def test_a_window_judged_unclear_is_never_put_away():
    h = Harness(ScriptedAnswers(verdicts()), enforce_after=30)
    nudged(h)
    h.focus(HAZY, BROWSER)  # the same window, its title now one the judge cannot tell
    h.wait(120, HAZY, exact=BROWSER)
    assert h.put_aways == []
    assert h.status is DriftStatus.UNCLEAR


def test_a_title_counted_off_task_by_churn_alone_is_not_put_away_until_judged():
    h = Harness(ScriptedAnswers(verdicts(), auto=False), enforce_after=30)
    h.focus(EDITOR, EDITOR_WIN)
    h.release()
    h.focus(VIDEO, BROWSER)
    h.release()
    h.wait(60, VIDEO, exact=BROWSER)
    assert len(h.nudges) == 1
    h.focus(NEXT_VIDEO, BROWSER)  # maybe another tab: churn, its own verdict still asked for
    h.wait(60, NEXT_VIDEO, exact=BROWSER)
    assert h.put_aways == [], "churn is provisional: never the teeth's reason"
    h.release()  # the judge: off task too
    h.focus(NEXT_VIDEO, BROWSER)
    assert h.put_aways == [PutAway(1, BROWSER, "firefox")]


def test_a_window_not_identified_exactly_is_never_put_away():
    h = Harness(ScriptedAnswers(verdicts()), enforce_after=30)
    nudged(h, exact=None)
    h.wait(300, VIDEO, exact=None)
    assert h.put_aways == []


def test_antidrift_own_page_stops_the_clock_even_in_the_same_browser_window():
    h = Harness(ScriptedAnswers(verdicts()), enforce_after=30)
    nudged(h)
    h.wait(25, VIDEO, exact=BROWSER)
    h.focus(OWN_PAGE, BROWSER)  # the user switched the tab to read the banner
    h.wait(60, OWN_PAGE, exact=BROWSER)
    assert h.put_aways == []
    h.focus(VIDEO, BROWSER)
    h.wait(25, VIDEO, exact=BROWSER)
    assert h.put_aways == [], "the clock starts again when the off-task page comes back"
    h.wait(5, VIDEO, exact=BROWSER)
    assert len(h.put_aways) == 1


def test_without_teeth_nothing_is_ever_put_away():
    h = Harness(ScriptedAnswers(verdicts()))
    nudged(h)
    h.wait(600, VIDEO, exact=BROWSER)
    assert h.put_aways == [] and h.policy.teeth is None


def test_the_episode_records_when_and_how_or_why_not():
    h = Harness(ScriptedAnswers(verdicts()), enforce_after=30)
    nudged(h)
    h.wait(30, VIDEO, exact=BROWSER)
    done = h.policy.put_away_done(1, h.now, "moved to the scratchpad").episodes[0]
    assert (done.enforced_at, done.enforce_note) == (h.now, "moved to the scratchpad")
    assert h.policy.open_episode == done  # the banner shows it
    failed = h.policy.put_away_done(1, None, "swaymsg failed: no such window").episodes[0]
    assert failed.enforced_at is None and failed.enforce_note.startswith("swaymsg failed")


def test_an_episode_tried_before_a_restart_is_never_tried_again():
    teeth = Teeth(timedelta(seconds=1), done=(1,))
    start = Harness(ScriptedAnswers({})).now
    teeth.seen(BROWSER, start)
    teeth.nudged(1, start)
    assert teeth.due(1, "firefox", start + timedelta(seconds=60), off_task=True) is None
    teeth.nudged(2, start)
    assert teeth.due(2, "firefox", start + timedelta(seconds=60), off_task=True) is not None


@pytest.mark.parametrize(
    ("value", "default", "teeth"),
    [
        (None, "off", False),
        (None, MINIMIZE, True),
        ("", MINIMIZE, True),
        ("off", MINIMIZE, False),
        ("minimize", "off", True),
    ],
)
def test_the_commitment_choice_falls_back_to_the_setting(value, default, teeth):
    assert parse_enforce(value, default) is teeth


def test_a_bad_choice_is_refused_by_name():
    with pytest.raises(ValidationError) as caught:
        parse_enforce("close", "off")
    assert caught.value.field == "enforce" and caught.value.fields == ("enforce",)
    assert str(caught.value) == "enforce must be minimize or off."


def test_teeth_asked_before_any_nudge_in_this_run_find_nothing_due():
    # A restart mid-episode: the episode is open, but this run's Teeth saw no nudge yet.
    teeth = Teeth(timedelta(seconds=1))
    start = Harness(ScriptedAnswers({})).now
    assert teeth.due(1, "firefox", start, off_task=True) is None
    teeth.seen(BROWSER, start)
    assert teeth.due(1, "firefox", start + timedelta(seconds=60), off_task=True) is None


def test_a_nudge_on_a_window_not_identified_puts_nothing_away_even_with_no_sample_after():
    # The ticks go on between samples: one minute with no sample after the nudge.
    teeth = Teeth(timedelta(seconds=1))
    start = Harness(ScriptedAnswers({})).now
    teeth.seen(None, start)
    teeth.nudged(1, start)
    assert teeth.due(1, "firefox", start + timedelta(seconds=60), off_task=True) is None
