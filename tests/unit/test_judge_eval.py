"""judge-eval's parts with a scripted judge and a scripted clock: the shipped corpus is what
the issue asks for, a cases file is checked line by line, each case is sent as the live guard
would send it (private titles never), and the figures are right for the answers given."""

from __future__ import annotations

import json
import re
import statistics
from collections import Counter
from pathlib import Path

import pytest

from antidrift.ai import JudgeError, JudgeVerdict
from antidrift.cli.judge_eval import (
    VERDICTS,
    Case,
    CasesError,
    evaluate,
    load_cases,
    score,
    shipped_corpus,
)
from antidrift.core.domain import EXCLUDED_TITLE

KINDS = {"work", "reference", "distraction", "chat_work", "chat_other", "private", "injection"}


# -- the shipped corpus --------------------------------------------------------------------


@pytest.fixture(scope="module")
def corpus() -> list[Case]:
    return load_cases(shipped_corpus())  # through importlib.resources, as an install reads it


def test_the_corpus_has_at_least_200_cases_with_the_three_answers(corpus):
    assert len(corpus) >= 200
    assert {c.expected for c in corpus} == set(VERDICTS)
    answers = Counter(c.expected for c in corpus)
    assert min(answers.values()) >= 25, answers  # each answer is measured on enough cases


def test_the_corpus_holds_every_kind_of_situation_the_issue_names(corpus):
    kinds = Counter(c.kind for c in corpus)
    assert set(kinds) >= KINDS, KINDS - set(kinds)
    assert kinds["injection"] == 20
    assert kinds["private"] >= 10
    assert all(c.private for c in corpus if c.kind == "private")
    assert not any(c.private for c in corpus if c.kind != "private")
    # Work and distraction come in both directions, so neither answer alone scores well.
    assert {c.expected for c in corpus if c.kind == "injection"} >= {"on_task", "off_task"}
    assert {c.expected for c in corpus if c.kind == "chat_work"} == {"on_task"}
    assert {c.expected for c in corpus if c.kind == "chat_other"} == {"off_task"}


def test_the_prompt_injection_titles_address_the_judge(corpus):
    injected = [c for c in corpus if c.kind == "injection"]
    words = re.compile(
        r"on[ _]task|off_task|unclear|verdict|instructions|ignore|forget|assistant|system:"
        r"|answer|reply|next_action|antidrift|working|trust me"
    )
    assert all(words.search(c.title.lower()) for c in injected), [
        c.title for c in injected if not words.search(c.title.lower())
    ]


def test_the_corpus_has_no_duplicate_ids_or_situations(corpus):
    assert len({c.id for c in corpus}) == len(corpus)
    situations = Counter((c.next_action, c.done_when, c.app, c.title) for c in corpus)
    assert [s for s, n in situations.items() if n > 1] == []
    assert all(c.next_action.strip() and c.done_when.strip() and c.app.strip() for c in corpus)


# -- a cases file --------------------------------------------------------------------------

GOOD = {
    "id": "a",
    "next_action": "Write",
    "done_when": "Done",
    "app": "code",
    "title": "x.py",
    "expected": "on_task",
}


def lines(*cases: object) -> str:
    return "\n".join(c if isinstance(c, str) else json.dumps(c) for c in cases) + "\n"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (lines(GOOD, "{not json"), r"cases\.jsonl:2: not a JSON object"),
        (lines({**GOOD, "title": None}), r"cases\.jsonl:1: missing or not text: title"),
        (lines({k: v for k, v in GOOD.items() if k != "app"}), r":1: missing .*app"),
        (lines({**GOOD, "expected": "maybe"}), r":1: expected must be one of on_task"),
        (lines(GOOD, {**GOOD, "app": "vim"}), r"cases\.jsonl:2: the id 'a' is used twice"),
        (lines("[1, 2]"), r"case 1: a case is a JSON object"),
        ("\n  \n", r"cases\.jsonl: holds no cases"),
        ("[" + "[" * 100_000, r"cases\.jsonl: not valid JSON"),
    ],
)
def test_a_bad_cases_file_is_refused_naming_the_file_and_line(tmp_path, text, says):
    path = tmp_path / "cases.jsonl"
    path.write_text(text)
    with pytest.raises(CasesError, match=says):
        load_cases(path)


def test_an_unreadable_cases_file_is_refused(tmp_path):
    with pytest.raises(CasesError, match="cannot be read"):
        load_cases(tmp_path / "missing.jsonl")
    (tmp_path / "latin1.jsonl").write_bytes(b'{"id": "\xe9"}\n')
    with pytest.raises(CasesError, match="cannot be read"):
        load_cases(tmp_path / "latin1.jsonl")


def test_a_cases_file_over_10_mib_is_refused_without_reading_it_all(tmp_path):
    huge = tmp_path / "huge.jsonl"
    with huge.open("wb") as file:  # sparse: 10 MiB and one byte, written in no time
        file.truncate((10 << 20) + 1)
    with pytest.raises(CasesError, match=r"huge\.jsonl: larger than 10 MiB"):
        load_cases(huge)
    with pytest.raises(CasesError, match=r"/dev/zero: larger than 10 MiB"):
        load_cases(Path("/dev/zero"))  # endless: only a bounded read comes back


def test_a_json_array_of_cases_is_read_too(tmp_path):
    path = tmp_path / "cases.json"
    path.write_text(json.dumps([GOOD, {**GOOD, "id": "b", "private": True, "kind": "private"}]))
    cases = load_cases(path)
    assert [(c.id, c.private, c.kind) for c in cases] == [("a", False, ""), ("b", True, "private")]


# -- what is sent ----------------------------------------------------------------------------


class ScriptedJudge:
    """Answers each case (found by its next action) as the script says; records what it saw."""

    label = "scripted"

    def __init__(self, script: dict[str, str | BaseException]) -> None:
        self.script = script
        self.seen: list[tuple[str, str | None]] = []
        self.sites: list[str | None] = []

    def judge(self, next_action, success_condition, app, title, *, site=None, scope=None):
        self.seen.append((app, title))
        self.sites.append(site)
        said = self.script.get(next_action, "unclear")
        if isinstance(said, BaseException):
            raise said
        return JudgeVerdict(said, "scripted", json.dumps({"verdict": said}))


def case(number: int, expected: str, **more) -> Case:
    fields = {"app": "firefox", "title": f"page {number}", **more}
    return Case(f"c{number}", f"action {number}", "done", expected=expected, **fields)


def test_each_case_is_sent_as_the_guard_sends_it_and_private_titles_never():
    cases = [
        case(1, "on_task", title="Docs (3) 12:34 - Firefox"),
        case(2, "unclear", title="Online Banking - Statement", private=True),
        case(3, "off_task", title="My bank account — Firefox"),
        case(4, "unclear", app="BankApp", title="Balance"),
        case(5, "on_task", title="the page"),
    ]
    judge = ScriptedJudge({})
    evaluate(judge, cases, exclude=re.compile(r"(?i)bank"))
    assert judge.seen == [
        ("firefox", "Docs (3) - Firefox"),  # the clock left out, as the guard's key does
        ("firefox", None),  # a private case: the app alone
        ("firefox", None),  # the user's pattern matches the title
        (EXCLUDED_TITLE, None),  # ... or the app: neither goes
        ("firefox", "the page"),
    ]
    sent = json.dumps(judge.seen).lower()
    assert "bank" not in sent and "balance" not in sent and "statement" not in sent


def test_a_browser_case_is_sent_its_site_and_never_its_path_or_query():
    cases = [
        case(1, "off_task", title="(3) Home", url="https://www.x.com/home?ref=1#top"),
        case(2, "on_task", title="Statement", url="https://my.bank.example/acc?id=9"),
        case(3, "unclear", title="Notes", url="https://docs.example/x", private=True),
        case(4, "on_task", title="main.py"),
    ]
    judge = ScriptedJudge({})
    evaluate(judge, cases, exclude=re.compile(r"(?i)bank"))
    assert judge.sites == ["x.com", None, None, None]
    assert judge.seen[1] == ("firefox", None)  # the pattern matched the site: the app alone
    assert "home?ref" not in json.dumps(judge.sites) and "acc" not in json.dumps(judge.seen)


def test_the_corpus_has_browser_cases_with_sites(corpus):
    browser = [c for c in corpus if c.kind == "browser"]
    assert len(browser) >= 10 and all(c.url.startswith("https://") for c in browser)
    assert {c.expected for c in browser} >= {"on_task", "off_task"}


def test_with_no_pattern_only_private_cases_lose_their_title():
    judge = ScriptedJudge({})
    evaluate(judge, [case(1, "on_task", title="bank"), case(2, "on_task", private=True)])
    assert judge.seen == [("firefox", "bank"), ("firefox", None)]


# -- the figures -----------------------------------------------------------------------------

# (expected, what the judge says, the call's milliseconds); an exception is a failed call.
SCRIPT = [
    ("off_task", "off_task", 40),
    ("off_task", "off_task", 10),
    ("off_task", "off_task", 900),
    ("off_task", "on_task", 30),
    ("off_task", "unclear", 20),
    ("on_task", "off_task", 50),
    ("on_task", "on_task", 60),
    ("on_task", "on_task", 70),
    ("unclear", "unclear", 80),
    ("unclear", JudgeError("the judge's answer is not valid JSON"), 5),
    ("on_task", "on_task", 1000),
]


class StepClock:
    """perf_counter as evaluate reads it: each case's call takes its scripted milliseconds."""

    def __init__(self, steps_ms: list[int]) -> None:
        self.steps = iter(steps_ms)
        self.now, self.started = 0.0, True

    def __call__(self) -> float:
        if not self.started:
            self.now += next(self.steps) / 1000
        self.started = not self.started
        return self.now


def run_script(script):
    cases = [case(i, expected) for i, (expected, _, _) in enumerate(script)]
    judge = ScriptedJudge(
        {c.next_action: said for c, (_, said, _) in zip(cases, script, strict=True)}
    )
    return evaluate(judge, cases, clock=StepClock([ms for _, _, ms in script]))


def test_the_figures_are_right_for_the_answers_given():
    outcomes = run_script(SCRIPT)
    report = score(outcomes)
    # Counted here from the script alone, not from the outcomes.
    n = len(SCRIPT)
    right = sum(expected == said for expected, said, _ in SCRIPT)
    said_off = [expected for expected, said, _ in SCRIPT if said == "off_task"]
    expected_off = [said for expected, said, _ in SCRIPT if expected == "off_task"]
    assert report.cases == n == 11
    assert report.accuracy == pytest.approx(right / n) == pytest.approx(7 / 11)
    assert report.off_task_precision == pytest.approx(said_off.count("off_task") / len(said_off))
    assert report.off_task_precision == pytest.approx(3 / 4)
    assert report.off_task_recall == pytest.approx(expected_off.count("off_task") / 5)
    assert report.off_task_recall == pytest.approx(3 / 5)
    unclear = sum(said == "unclear" for _, said, _ in SCRIPT)
    assert report.unclear_rate == pytest.approx(unclear / n) == pytest.approx(2 / 11)
    assert report.median_latency_ms == pytest.approx(statistics.median(ms for *_, ms in SCRIPT))
    assert report.median_latency_ms == pytest.approx(50)  # not the mean (206)
    assert report.errors == 1
    assert [o.error for o in outcomes if o.error] == ["the judge's answer is not valid JSON"]
    assert report.as_json() == {
        "cases": 11,
        "accuracy": round(7 / 11, 4),
        "off_task_precision": 0.75,
        "off_task_recall": 0.6,
        "unclear_rate": round(2 / 11, 4),
        "median_latency_ms": 50.0,
    }


def test_precision_is_none_when_the_judge_never_says_off_task():
    report = score(run_script([("off_task", "on_task", 5), ("on_task", "on_task", 7)]))
    assert report.off_task_precision is None and report.off_task_recall == 0.0
    assert report.accuracy == 0.5 and report.median_latency_ms == pytest.approx(6)
    assert report.as_json()["off_task_precision"] is None
