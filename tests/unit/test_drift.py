"""The drift policy with a fake clock and scripted answers: grace, cooldown, cache, cap, answers."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from antidrift.core.domain import EXCLUDED_TITLE, Share
from antidrift.core.drift_records import Answer, Judgement, Source, Verdict, Window
from antidrift.drift.budget import CallBudget
from antidrift.drift.policy import DriftStatus, NothingToAcknowledge, on_task_share, window_of
from antidrift.drift.window_key import judge_title
from tests.fakes import START
from tests.support.drift_policy import Harness, ScriptedAnswers

EDITOR = ("code", "intro.md — notes")
DOCS = ("firefox", "Python docs — Mozilla Firefox")
VIDEO = ("firefox", "Cat videos — YouTube")
FEED = ("firefox", "Home / X")
MAIL = ("thunderbird", "Inbox — Family")


def verdicts() -> dict[tuple[str, str], bool]:
    return {EDITOR: True, DOCS: True, VIDEO: False, FEED: False, MAIL: False}


def test_an_off_task_window_nudges_once_after_the_grace():
    h = Harness(ScriptedAnswers(verdicts()))
    h.focus(EDITOR)
    assert h.status is DriftStatus.ON_TASK
    h.wait(30, EDITOR)
    h.focus(VIDEO)
    switched = h.now
    assert h.status is DriftStatus.DRIFTING
    h.wait(55, VIDEO)
    assert h.nudges == [] and h.policy.view(h.now).banner is None
    h.wait(10, VIDEO)
    assert len(h.nudges) == 1
    episode = h.nudges[0]
    assert (episode.app, episode.title, episode.started_at) == (*VIDEO, switched)
    assert episode.nudged_at - switched <= timedelta(seconds=65)
    assert h.policy.view(h.now).banner == episode
    h.wait(200, VIDEO)
    assert len(h.nudges) == 1, "one nudge per episode"


def test_switching_away_before_the_grace_is_not_an_episode():
    h = Harness(ScriptedAnswers(verdicts()))
    for _ in range(5):
        h.focus(VIDEO)
        h.wait(40, VIDEO)
        h.focus(EDITOR)
        h.wait(20, EDITOR)
    assert h.nudges == []


def test_hopping_between_off_task_windows_counts_as_one_drift():
    h = Harness(ScriptedAnswers(verdicts()))
    h.focus(EDITOR)
    h.focus(VIDEO)
    start = h.now
    h.wait(30, VIDEO)
    h.focus(FEED)
    h.wait(35, FEED)
    assert len(h.nudges) == 1 and h.nudges[0].started_at == start


def test_verdicts_are_cached_per_window_one_call_each():
    h = Harness(ScriptedAnswers(verdicts()))
    for _ in range(4):
        for window in (EDITOR, DOCS, EDITOR, VIDEO):
            h.focus(window)
            h.wait(10, window)
    assert sorted((c.window.app, c.window.title) for c in h.judge.calls) == sorted(
        [EDITOR, DOCS, VIDEO]
    )


def test_one_judge_at_a_time_then_the_window_that_has_focus():
    h = Harness(ScriptedAnswers(verdicts(), auto=False))
    h.focus(EDITOR)
    h.focus(DOCS)
    h.focus(VIDEO)
    assert [c.window.title for c in h.judge.calls] == [EDITOR[1]]
    h.release()  # EDITOR answered; VIDEO has focus now, DOCS was passed by
    assert [c.window.title for c in h.judge.calls] == [EDITOR[1], VIDEO[1]]
    h.release()
    assert h.status is DriftStatus.DRIFTING
    assert len(h.judge.calls) == 2


def test_a_slow_verdict_counts_the_grace_from_the_switch():
    h = Harness(ScriptedAnswers(verdicts(), auto=False))
    h.focus(VIDEO)
    switched = h.now
    h.wait(50, VIDEO)
    assert h.status is DriftStatus.UNKNOWN
    h.release()
    h.wait(10, VIDEO)
    assert len(h.nudges) == 1 and h.nudges[0].started_at == switched


def test_cooldown_between_nudges():
    h = Harness(ScriptedAnswers(verdicts()), cooldown=300)
    h.focus(VIDEO)
    h.wait(60, VIDEO)
    assert len(h.nudges) == 1
    h.focus(EDITOR)  # back to work: the episode ends by itself
    assert h.policy.open_episode is None and h.persisted_episodes[-1].ended_at == h.now
    h.wait(10, EDITOR)
    h.focus(FEED)
    h.wait(150, FEED)
    assert len(h.nudges) == 1, "a second nudge waits for the cooldown"
    h.wait(150, FEED)
    assert len(h.nudges) == 2
    assert h.nudges[1].nudged_at - h.nudges[0].nudged_at >= timedelta(seconds=300)


def test_focus_back_on_an_on_task_window_ends_the_episode_at_the_switch():
    h = Harness(ScriptedAnswers(verdicts()))
    h.focus(VIDEO)
    h.wait(70, VIDEO)
    h.focus(DOCS)
    back = h.now
    h.wait(20, DOCS)
    episode = h.persisted_episodes[-1]
    assert episode.ended_at == back and episode.answer is None
    assert h.policy.view(h.now).banner is None and h.status is DriftStatus.ON_TASK


def test_on_task_answer_teaches_the_window_for_the_commitment():
    h = Harness(ScriptedAnswers(verdicts()), cooldown=0)
    h.focus(VIDEO)
    h.wait(60, VIDEO)
    assert len(h.nudges) == 1
    h.apply(h.policy.acknowledge("on_task", h.now))
    assert h.persisted_episodes[-1].answer is Answer.ON_TASK
    taught = Judgement(Verdict.ON_TASK, "you said this is on task", Source.YOU)
    assert (Window(*VIDEO), taught) in h.persisted_judgements
    assert h.status is DriftStatus.ON_TASK
    h.wait(600, VIDEO)
    h.focus(EDITOR)
    h.focus(VIDEO)
    h.wait(600, VIDEO)
    assert len(h.nudges) == 1, "no more nudges for a window the user called on task"
    assert len(h.judge.calls) == 2  # VIDEO and EDITOR, once each


def test_back_answer_closes_the_banner_and_a_new_nudge_waits_for_the_cooldown():
    h = Harness(ScriptedAnswers(verdicts()), cooldown=300)
    h.focus(VIDEO)
    h.wait(60, VIDEO)
    h.apply(h.policy.acknowledge("back", h.now))
    episode = h.persisted_episodes[-1]
    assert episode.answer is Answer.BACK and episode.ended_at == h.now
    assert h.policy.view(h.now).banner is None
    h.wait(200, VIDEO)
    assert len(h.nudges) == 1
    h.wait(120, VIDEO)
    assert len(h.nudges) == 2


def test_acknowledging_without_a_banner_changes_nothing():
    h = Harness(ScriptedAnswers(verdicts()))
    h.focus(VIDEO)
    with pytest.raises(NothingToAcknowledge):
        h.policy.acknowledge("back", h.now)
    h.wait(60, VIDEO)
    h.apply(h.policy.acknowledge("back", h.now))
    with pytest.raises(NothingToAcknowledge):
        h.policy.acknowledge("on_task", h.now)
    assert len(h.persisted_episodes) == 2  # opened, answered; nothing more


def test_a_failing_judge_is_unknown_with_its_reason_and_never_nudges():
    judge = ScriptedAnswers(verdicts())
    judge.fail_with = "claude is not logged in — run claude once in a terminal"
    h = Harness(judge)
    h.focus(EDITOR)
    h.focus(VIDEO)
    h.wait(900, VIDEO)
    view = h.policy.view(h.now)
    assert view.status is DriftStatus.UNKNOWN and "not logged in" in view.reason
    assert h.nudges == []
    assert len(judge.calls) == 2, "a failed window is not retried while it keeps focus"
    judge.fail_with = None
    h.focus(EDITOR)
    h.focus(VIDEO)
    assert h.status is DriftStatus.DRIFTING, "focus coming back retries it"


def test_failure_during_a_drift_stops_the_streak():
    judge = ScriptedAnswers(verdicts())
    h = Harness(judge)
    h.focus(VIDEO)
    h.wait(30, VIDEO)
    judge.fail_with = "the judge took longer than 60 s"
    h.focus(MAIL)  # another app: nothing known of it, so churn does not speak for it
    h.wait(120, MAIL)
    assert h.nudges == []
    h.focus(VIDEO)  # judged before: known off task, but the unknown spell broke the streak
    h.wait(30, VIDEO)
    assert h.nudges == []
    h.wait(30, VIDEO)
    assert len(h.nudges) == 1


def test_the_hourly_cap_stops_judging_and_says_so():
    budget = CallBudget(3)
    h = Harness(
        ScriptedAnswers({(f"app{i}", ""): False for i in range(10)}), budget=budget, max_calls=3
    )
    for i in range(6):
        h.focus((f"app{i}", ""))
        h.wait(5)
    assert len(h.judge.calls) == 3
    view = h.policy.view(h.now)
    assert view.status is DriftStatus.UNKNOWN and "limit of 3 judge calls" in view.reason
    h.wait(3600)
    h.focus(("app5", ""))
    assert len(h.judge.calls) == 4, "an hour later the cap has room again"


def test_the_hourly_cap_counts_each_call_for_a_whole_hour():
    budget = CallBudget(2)
    first = START + timedelta(minutes=1)
    budget.spend(first)
    budget.spend(first + timedelta(minutes=10))
    for later in (timedelta(minutes=2), timedelta(minutes=30), timedelta(minutes=59, seconds=59)):
        assert not budget.available(first + later), f"a call {later} ago still counts"
    assert budget.available(first + timedelta(hours=1)), "the first call no longer counts"
    budget.spend(first + timedelta(hours=1))
    assert not budget.available(first + timedelta(minutes=69, seconds=59))
    assert budget.available(first + timedelta(minutes=70))


def test_the_cap_is_shared_by_commitments():
    budget = CallBudget(2)
    first = Harness(ScriptedAnswers(verdicts()), budget=budget, max_calls=2)
    first.focus(EDITOR)
    first.focus(VIDEO)
    second = Harness(ScriptedAnswers(verdicts()), budget=budget, max_calls=2)
    second.focus(EDITOR)
    assert second.judge.calls == []


def test_excluded_titles_reach_the_judge_as_no_title():
    h = Harness(
        ScriptedAnswers({("signal", EXCLUDED_TITLE): False, DOCS: True}),
        exclude=re.compile("bank|signal", re.I),
    )
    h.focus(("signal", EXCLUDED_TITLE))
    h.focus(DOCS)
    titles = [c.title for c in h.judge.calls]
    assert titles == [None, DOCS[1]]


def test_judge_title_hides_placeholder_empty_and_matching_titles():
    exclude = re.compile("bank", re.I)
    assert judge_title(EXCLUDED_TITLE, None) is None
    assert judge_title("", exclude) is None
    assert judge_title("My Bank — statement", exclude) is None
    assert judge_title("docs", exclude) == "docs"


def test_a_title_private_only_without_its_clock_reaches_the_judge_as_no_title():
    # Stored in clear ("bank$" does not match it), keyed without the clock: then it matches.
    h = Harness(
        ScriptedAnswers({("firefox", "My bank"): False}), exclude=re.compile(r"bank$", re.I)
    )
    h.focus(("firefox", "My bank 12:30"))
    assert [c.title for c in h.judge.calls] == [None]


def test_stop_abandons_the_running_judge_and_ends_the_episode():
    h = Harness(ScriptedAnswers(verdicts()))
    h.focus(VIDEO)
    h.wait(60, VIDEO)
    h.judge.auto = False
    h.focus(FEED)
    h.focus(("term", "x"))
    call = h.policy.pending
    assert call is not None
    h.apply(h.policy.stop(h.now))
    assert h.persisted_episodes[-1].ended_at == h.now
    before = list(h.persisted_judgements)
    h.apply(h.policy.settle(call.ticket, Judgement(Verdict.ON_TASK, "late"), None, h.now))
    assert h.persisted_judgements == before, "a verdict after stop is dropped"


def test_on_task_share_counts_judged_time_only():
    judged = {
        Window(*EDITOR): Judgement(Verdict.ON_TASK, ""),
        Window(*VIDEO): Judgement(Verdict.OFF_TASK, ""),
    }
    shares = [_share(*EDITOR, 30.0), _share(*VIDEO, 10.0), _share(*DOCS, 100.0)]
    assert on_task_share(shares, judged) == pytest.approx(0.75)
    assert on_task_share([_share(*DOCS, 5.0)], judged) is None
    assert on_task_share([], {}) is None


def test_on_task_share_keys_time_as_the_verdicts_are_keyed():
    # A ticking title and an unread counter are stored as many (app, title) rows; the judge
    # saw one window each. Keyed otherwise, their time would silently drop out of the share.
    judged = {
        window_of("clock", "Timer 12:59 left"): Judgement(Verdict.OFF_TASK, ""),
        window_of("slack", "(3) Slack — #team"): Judgement(Verdict.ON_TASK, ""),
    }
    shares = [_share("clock", f"Timer 12:{s:02d} left", 10.0) for s in (59, 58, 57)]
    shares += [_share("slack", f"({n}) Slack — #team", 10.0) for n in (1, 2, 3, 4, 5, 6)]
    assert on_task_share(shares, judged) == pytest.approx(60 / 90)


def _share(app: str, title: str, seconds: float) -> Share:
    return Share(app, title, seconds, 0.0)


def test_a_ticking_or_counting_title_is_one_window():
    h = Harness(ScriptedAnswers({("clock", "Timer left"): False, ("slack", "Slack — #team"): True}))
    for second in range(59, 40, -3):
        h.focus(("clock", f"Timer 12:{second:02d} left"))
        h.wait(1)
    for unread in range(1, 6):
        h.focus(("slack", f"({unread}) Slack — #team"))
    assert [(c.window.app, c.title) for c in h.judge.calls] == [
        ("clock", "Timer left"),
        ("slack", "Slack — #team"),
    ]


def test_antidrift_s_own_page_is_never_judged_and_keeps_the_banner():
    h = Harness(ScriptedAnswers(verdicts()))
    h.focus(VIDEO)
    h.wait(60, VIDEO)
    assert len(h.nudges) == 1
    for left in range(50, 40, -1):  # its title ticks every second
        h.focus(("firefox", f"44:{left} · Write the intro · AntiDrift — Mozilla Firefox"))
        h.wait(1)
    assert len(h.judge.calls) == 1
    assert h.policy.view(h.now).banner is not None, "looking at the banner is not going back"
    h.apply(h.policy.acknowledge("back", h.now))
    assert h.persisted_episodes[-1].answer is Answer.BACK


def test_a_late_verdict_never_overrides_the_users_this_is_on_task():
    # VIDEO judged off task; NEXT, a new title in the same app, counts off task by churn
    # while the judge is asked about it; the banner comes, the user says it is on task, and
    # only then does the judge answer "off task". The user's answer stands.
    nxt = ("firefox", "Talk on parsers — YouTube")
    h = Harness(ScriptedAnswers({**verdicts(), nxt: False}, auto=False), cooldown=0)
    h.focus(VIDEO)
    h.release()
    h.focus(nxt)  # churn: off task at once, its own verdict asked for
    assert [call.window for call in h.judge.held] == [Window(*nxt)]
    h.wait(60, nxt)
    assert len(h.nudges) == 1
    h.apply(h.policy.acknowledge("on_task", h.now))
    h.release()  # the judge's verdict on NXT arrives after the answer
    taught = Judgement(Verdict.ON_TASK, "you said this is on task", Source.YOU)
    assert h.policy.decision(Window(*nxt)) == taught
    assert h.persisted_judgements[-1] == (Window(*nxt), taught), "the late verdict is not saved"
    assert h.status is DriftStatus.ON_TASK
    h.wait(600, nxt)
    assert len(h.nudges) == 1
