"""The drift policy's 0.4 cases with a fake clock: unclear, title churn, standing rules."""

from __future__ import annotations

from datetime import timedelta

import pytest

from antidrift.core.domain import EXCLUDED_TITLE, ValidationError
from antidrift.core.drift_records import Answer, Judgement, Rule, Source, Verdict, Window
from antidrift.drift.budget import CallBudget
from antidrift.drift.policy import DriftStatus
from antidrift.drift.verdicts import figures, matching_rule, validate_rule
from tests.support.drift_policy import Harness, ScriptedAnswers

EDITOR = ("code", "intro.md — notes")
DOCS = ("firefox", "Python docs — Mozilla Firefox")
VIDEO = ("firefox", "Cat videos — YouTube")
PIANO = ("firefox", "Piano cat — YouTube")
CHAT = ("slack", "#random — Slack")
MAIL = ("thunderbird", "Inbox")


def verdicts() -> dict:
    return {EDITOR: True, DOCS: True, VIDEO: False, PIANO: False, CHAT: "unclear", MAIL: False}


def titles(n: int) -> list[tuple[str, str]]:
    return [("firefox", f"Video {i} — YouTube") for i in range(n)]


# -- unclear -----------------------------------------------------------------------------------


def test_unclear_never_opens_an_episode_and_says_so():
    h = Harness(ScriptedAnswers(verdicts()))
    h.focus(CHAT)
    h.wait(900, CHAT)
    view = h.policy.view(h.now)
    assert h.nudges == []
    assert view.status is DriftStatus.UNCLEAR and view.reason == "the judge: unclear"
    assert h.persisted_judgements[-1][1].verdict is Verdict.UNCLEAR


def test_unclear_neither_starts_nor_stops_the_drift_clock():
    h = Harness(ScriptedAnswers(verdicts()))
    h.focus(EDITOR)
    h.focus(MAIL)
    switched = h.now
    h.wait(30, MAIL)
    h.focus(CHAT)
    h.wait(60, CHAT)
    assert h.nudges == [], "an unclear window holds no nudge, even past the grace"
    h.focus(MAIL)
    h.wait(1)
    assert len(h.nudges) == 1 and h.nudges[0].started_at == switched

    later = Harness(ScriptedAnswers(verdicts()))
    later.focus(EDITOR)
    later.focus(CHAT)
    later.wait(600, CHAT)  # unclear does not start the clock either
    later.focus(MAIL)
    later.wait(55, MAIL)
    assert later.nudges == []
    later.wait(10, MAIL)
    assert len(later.nudges) == 1


def test_an_open_episode_stays_open_on_an_unclear_window():
    h = Harness(ScriptedAnswers(verdicts()))
    h.focus(MAIL)
    h.wait(60, MAIL)
    assert len(h.nudges) == 1
    h.focus(CHAT)
    h.wait(30, CHAT)
    assert h.policy.open_episode is not None, "unclear is not focus back on the task"
    h.focus(EDITOR)
    assert h.policy.open_episode is None


def test_unclear_time_counts_apart_in_the_figures():
    judged = {
        Window(*EDITOR): Judgement(Verdict.ON_TASK, ""),
        Window(*VIDEO): Judgement(Verdict.OFF_TASK, ""),
        Window(*CHAT): Judgement(Verdict.UNCLEAR, ""),
    }
    seconds = {Window(*EDITOR): 30.0, Window(*VIDEO): 10.0, Window(*CHAT): 60.0}
    found = figures(seconds, judged.get)
    assert found.on_task_share == pytest.approx(0.75) and found.unclear_secs == 60.0
    only_unclear = figures({Window(*CHAT): 5.0}, judged.get)
    assert only_unclear.on_task_share is None and only_unclear.unclear_secs == 5.0


# -- title churn -------------------------------------------------------------------------------


def test_a_site_that_retitles_itself_nudges_within_the_grace_of_the_first_switch():
    videos = titles(20)
    h = Harness(ScriptedAnswers({EDITOR: True, **dict.fromkeys(videos, False)}, auto=False))
    h.focus(EDITOR)
    h.release()
    h.focus(videos[0])
    switched = h.now
    h.release()  # the first title: judged off task
    for video in videos[1:]:
        h.wait(8, step=8)  # a new video every 8 s; the judge (held) never answers in time
        h.focus(video)
        if h.nudges:
            break
    assert len(h.nudges) == 1
    assert h.nudges[0].started_at == switched
    assert h.nudges[0].nudged_at - switched <= timedelta(seconds=60 + 8)
    assert h.nudges[0].reason.startswith("a new title in firefox")


def test_a_new_title_counts_off_task_at_once_and_its_own_verdict_replaces_that():
    h = Harness(ScriptedAnswers(verdicts(), auto=False))
    h.focus(VIDEO)
    h.release()
    h.focus(DOCS)
    view = h.policy.view(h.now)
    assert view.status is DriftStatus.DRIFTING and "already found off task" in view.reason
    window, churn = h.persisted_judgements[-1]
    assert window == Window(*DOCS) and churn.source is Source.CHURN and churn.exchange is None
    assert [c.window for c in h.judge.calls] == [Window(*VIDEO), Window(*DOCS)], "still asked"
    h.release()
    assert h.status is DriftStatus.ON_TASK
    assert h.persisted_judgements[-1] == (
        Window(*DOCS),
        Judgement(Verdict.ON_TASK, "the judge: on_task"),
    )
    h.wait(120, DOCS)
    assert h.nudges == []


def test_churn_follows_only_an_app_whose_newest_verdict_is_off_task():
    h = Harness(ScriptedAnswers({**verdicts(), **dict.fromkeys(titles(3), False)}, auto=False))
    h.focus(VIDEO)
    h.release()
    h.focus(DOCS)  # churned, then judged on task: firefox's newest verdict is on task now
    h.release()
    h.focus(titles(3)[0])
    assert h.status is DriftStatus.UNKNOWN, "a new title after an on-task one waits for the judge"
    h.release()
    h.focus(titles(3)[1])
    assert h.status is DriftStatus.DRIFTING


def test_churn_keeps_the_hourly_cap():
    videos = titles(10)
    h = Harness(ScriptedAnswers(dict.fromkeys(videos, False)), budget=CallBudget(3), max_calls=3)
    for video in videos:
        h.focus(video)
        h.wait(10, video)
    assert len(h.judge.calls) == 3
    assert len(h.nudges) == 1, "past the cap, churn still counts the new titles off task"


def test_a_churned_window_whose_judge_fails_stays_off_task():
    h = Harness(ScriptedAnswers(verdicts()))
    h.focus(VIDEO)
    h.wait(20, VIDEO)
    h.judge.fail_with = "the judge took longer than 60 s"
    h.focus(PIANO)
    h.wait(45, PIANO)
    assert len(h.nudges) == 1, "the app is known off task; a failing call does not undo that"


# -- standing rules ----------------------------------------------------------------------------


def rule(id: int, app: str, text: str, verdict: str) -> Rule:
    return Rule(id, app, text, Verdict(verdict))


def test_a_rule_decides_with_no_judge_call_and_is_recorded_as_the_rule():
    h = Harness(ScriptedAnswers(verdicts()), rules=[rule(1, "Firefox", "youtube", "off_task")])
    h.focus(VIDEO)
    h.wait(60, VIDEO)
    assert h.judge.calls == []
    assert (
        len(h.nudges) == 1
        and h.nudges[0].reason == "your rule: Firefox «youtube» is always off task"
    )
    window, decided = h.persisted_judgements[0]
    assert window == Window(*VIDEO) and decided.source is Source.RULE and decided.exchange is None


def test_an_on_task_rule_for_an_app_never_calls_and_never_nudges():
    h = Harness(ScriptedAnswers(verdicts()), rules=[rule(1, "firefox", "", "on_task")])
    for window in (VIDEO, PIANO, DOCS):
        h.focus(window)
        h.wait(400, window)
    assert h.judge.calls == [] and h.nudges == []
    assert h.status is DriftStatus.ON_TASK


def test_the_most_specific_rule_wins_then_the_newest():
    rules = (
        rule(1, "firefox", "", "on_task"),
        rule(2, "firefox", "YouTube", "off_task"),
        rule(3, "FIREFOX", "", "off_task"),
    )
    assert matching_rule(rules, *VIDEO).id == 2
    assert matching_rule(rules, *DOCS).id == 3
    assert matching_rule(rules, "code", "x") is None


def test_a_title_rule_never_matches_a_private_title():
    private = rule(1, "signal", "excluded", "off_task")
    assert not private.matches("signal", EXCLUDED_TITLE)
    assert rule(2, "signal", "", "off_task").matches("Signal", EXCLUDED_TITLE)


def test_an_on_task_rule_added_from_the_banner_ends_the_episode_as_answered():
    h = Harness(ScriptedAnswers(verdicts()))
    h.focus(VIDEO)
    h.wait(65, VIDEO)
    assert h.policy.open_episode is not None
    h.set_rules(rule(1, "firefox", "", "on_task"))
    ended = h.persisted_episodes[-1]
    assert ended.answer is Answer.ON_TASK and ended.ended_at == h.now
    assert h.policy.view(h.now).banner is None and h.status is DriftStatus.ON_TASK
    assert h.persisted_judgements[-1][1].source is Source.RULE
    h.wait(900, VIDEO)
    assert len(h.nudges) == 1


def test_a_removed_rule_no_longer_decides_the_judge_does():
    h = Harness(ScriptedAnswers(verdicts()), rules=[rule(1, "firefox", "", "on_task")])
    h.focus(VIDEO)
    assert h.judge.calls == []
    h.set_rules()
    assert [c.window for c in h.judge.calls] == [Window(*VIDEO)]
    assert h.status is DriftStatus.DRIFTING


def test_the_users_answer_for_this_commitment_beats_a_rule():
    h = Harness(
        ScriptedAnswers(verdicts()), rules=[rule(1, "firefox", "cat", "off_task")], cooldown=0
    )
    h.focus(VIDEO)
    h.wait(60, VIDEO)
    h.apply(h.policy.acknowledge("on_task", h.now))
    h.wait(600, VIDEO)
    assert len(h.nudges) == 1 and h.status is DriftStatus.ON_TASK


def test_a_rule_is_validated_before_it_is_kept():
    assert validate_rule(" firefox ", " YouTube ", "off_task") == (
        "firefox",
        "YouTube",
        Verdict.OFF_TASK,
        "",
    )
    assert validate_rule("code", None, "on_task") == ("code", "", Verdict.ON_TASK, "")
    with pytest.raises(ValidationError) as caught:
        validate_rule("  ", "x" * 201, "unclear")
    assert caught.value.fields == ("app", "title_contains", "verdict")
    with pytest.raises(ValidationError):
        validate_rule("code\nrm", "", "on_task")
