"""`antidrift judge-eval` as a user runs it (a real process) against a loopback stand-in of
Ollama's and an OpenAI-compatible server's APIs with scripted answers: the figures it prints
are the ones the answers make (counted here from the script), --limit and --cases work, the
user's private-title pattern keeps titles from the server, and each refusal is one clear
sentence. It tests the harness, not a model."""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from antidrift.server import commands
from tests.support.model_server import ModelServer, env_for
from tests.support.server import REPO

KEYS = {
    "cases",
    "accuracy",
    "off_task_precision",
    "off_task_recall",
    "unclear_rate",
    "median_latency_ms",
}
GARBLED = "not a verdict at all"
SLOW = 0.25  # seconds the stand-in holds the slow answers

# One case a line: (expected, what the stand-in answers, held SLOW seconds?). Six of the
# eleven are slow, so the median call is slow while the mean is not.
SCRIPT = [
    ("off_task", "off_task", True),
    ("off_task", "off_task", False),
    ("off_task", "on_task", True),
    ("off_task", "unclear", False),
    ("on_task", "on_task", True),
    ("on_task", "off_task", False),
    ("on_task", "on_task", True),
    ("unclear", "unclear", False),
    ("unclear", "on_task", True),
    ("on_task", GARBLED, True),
    ("off_task", "off_task", False),
]


@pytest.fixture
def server():
    made = ModelServer()
    yield made
    made.close()


def action(number: int) -> str:
    return f"Scripted action number {number:02d}"


def write_cases(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def scripted_cases(tmp_path: Path) -> Path:
    rows = [
        {
            "id": f"s{n}",
            "next_action": action(n),
            "done_when": "It is done",
            "app": "firefox",
            "title": f"Window {n}",
            "expected": expected,
        }
        for n, (expected, _, _) in enumerate(SCRIPT)
    ]
    return write_cases(tmp_path / "cases.jsonl", rows)


def follow_script(server: ModelServer) -> None:
    def find(prompt: str) -> tuple[str, bool]:
        for n, (_, said, slow) in enumerate(SCRIPT):
            if action(n) in prompt:
                return said, slow
        raise AssertionError("a prompt for no scripted case")

    def answer(prompt: str) -> str:
        said, _ = find(prompt)
        return said if said == GARBLED else json.dumps({"verdict": said, "reason": "scripted"})

    server.answer = answer
    server.delay = lambda prompt: SLOW if find(prompt)[1] else 0.0


def judge_eval(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "ANTIDRIFT_DATA_DIR": str(tmp_path / "data"),
        "PYTHONPATH": str(REPO),
        **env,
    }
    return subprocess.run(
        [sys.executable, "-m", "antidrift", "judge-eval", *args],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def here(tmp_path, monkeypatch, capsys):
    """judge-eval in this process (the same entry point, argument parser and settings reader;
    a second start-up is what a subprocess would add), with `env` as the ANTIDRIFT_* settings."""

    def run(*args: str, **env: str) -> tuple[int, str, str]:
        for key in [k for k in os.environ if k.startswith("ANTIDRIFT_")]:
            monkeypatch.delenv(key)
        monkeypatch.setenv("PATH", "/usr/bin:/bin")
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
        monkeypatch.setenv("ANTIDRIFT_DATA_DIR", str(tmp_path / "data"))
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        try:
            code = commands.main(["judge-eval", *args])
        except SystemExit as exit:  # argparse refusing an argument
            code = exit.code
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


def expected_figures(script) -> dict[str, object]:
    """The figures, counted from the script (a garbled answer is a wrong one)."""
    n = len(script)
    said = [s if s != GARBLED else None for _, s, _ in script]
    expected = [e for e, _, _ in script]
    said_off = [e for e, s in zip(expected, said, strict=True) if s == "off_task"]
    expected_off = [s for e, s in zip(expected, said, strict=True) if e == "off_task"]
    return {
        "cases": n,
        "accuracy": round(sum(e == s for e, s in zip(expected, said, strict=True)) / n, 4),
        "off_task_precision": round(said_off.count("off_task") / len(said_off), 4),
        "off_task_recall": round(expected_off.count("off_task") / len(expected_off), 4),
        "unclear_rate": round(said.count("unclear") / n, 4),
    }


# ollama as a user runs it (a process of its own); openai in this process, to keep the suite
# quick: the harness is the same, the wire format is each backend's.
@pytest.mark.parametrize(("kind", "own_process"), [("ollama", True), ("openai", False)])
def test_the_figures_are_the_ones_the_scripted_answers_make(
    kind, own_process, server, tmp_path, here
):
    follow_script(server)
    cases = scripted_cases(tmp_path)
    args, env = ("--json", "--cases", str(cases)), env_for(kind, server)
    if own_process:
        ran = judge_eval(tmp_path, *args, **env)
        code, out, err = ran.returncode, ran.stdout, ran.stderr
    else:
        code, out, err = here(*args, **env)
    assert code == 0, err
    figures = json.loads(out)
    assert set(figures) == KEYS
    latency = figures.pop("median_latency_ms")
    assert figures == expected_figures(SCRIPT)
    assert figures == {  # the same, worked out by hand once
        "cases": 11,
        "accuracy": round(6 / 11, 4),
        "off_task_precision": 0.75,
        "off_task_recall": 0.6,
        "unclear_rate": round(2 / 11, 4),
    }
    slow = statistics.median(SLOW if slow else 0 for *_, slow in SCRIPT)
    assert slow == SLOW  # the median case is a slow one; the mean is not
    assert SLOW * 1000 <= latency < SLOW * 1000 + 5000
    assert "1 call failed, e.g.: the judge's answer held no verdict" in err
    # Every case went once, through the backend's own wire format, with the schema.
    path = "/api/chat" if kind == "ollama" else "/v1/chat/completions"
    assert [p for p, _, _ in server.bodies] == [path] * len(SCRIPT)
    body = server.bodies[0][1]
    assert "format" in body if kind == "ollama" else body["response_format"]["json_schema"]


def test_limit_runs_the_first_cases_only(server, tmp_path, here):
    follow_script(server)
    cases = scripted_cases(tmp_path)
    code, out, err = here(
        "--json", "--limit", "4", "--cases", str(cases), **env_for("openai", server)
    )
    assert code == 0, err
    figures = json.loads(out)
    assert figures["cases"] == 4 and len(server.bodies) == 4
    assert {k: v for k, v in figures.items() if k != "median_latency_ms"} == expected_figures(
        SCRIPT[:4]
    )
    assert [n for n in range(len(SCRIPT)) if any(action(n) in p for p in server.prompts())] == [
        0,
        1,
        2,
        3,
    ]


def test_the_private_title_pattern_keeps_titles_from_the_server(server, tmp_path, here):
    rows = [
        {"id": "a", "next_action": "Pay the rent", "done_when": "Paid", "app": "firefox",
         "title": "Online Banking — Statement", "expected": "on_task"},
        {"id": "b", "next_action": "Pay the rent", "done_when": "Paid", "app": "Signal",
         "title": "Signal — Landlord", "expected": "unclear", "private": True},
        {"id": "c", "next_action": "Pay the rent", "done_when": "Paid", "app": "firefox",
         "title": "Rent portal — Firefox", "expected": "on_task"},
    ]  # fmt: skip
    cases = write_cases(tmp_path / "private.jsonl", rows)
    server.answer = json.dumps({"verdict": "unclear", "reason": "scripted"})
    env = {**env_for("ollama", server), "ANTIDRIFT_EVIDENCE_EXCLUDE": "(?i)banking"}
    code, _, err = here("--json", "--cases", str(cases), **env)
    assert code == 0, err
    prompts = server.prompts()
    assert len(prompts) == 3
    sent = "\n".join(prompts)
    assert "Banking" not in sent and "Statement" not in sent  # the user's pattern
    assert "Landlord" not in sent  # a private case
    assert "Rent portal" in sent  # the rest goes as it is
    assert sum("judge by the app alone" in p for p in prompts) == 2


def test_the_shipped_corpus_runs_by_default(server, tmp_path):
    """An always-on-task judge scores exactly the share of on-task cases (the baseline)."""
    from antidrift.cli.judge_eval import load_cases, shipped_corpus

    server.answer = json.dumps({"verdict": "on_task", "reason": "always"})
    ran = judge_eval(tmp_path, "--json", **env_for("openai", server))
    assert ran.returncode == 0, ran.stderr
    figures = json.loads(ran.stdout)
    labels = Counter(
        json.loads(line)["expected"]
        for line in shipped_corpus().read_text(encoding="utf-8").splitlines()
        if line.strip()
    )
    total = sum(labels.values())
    assert total == len(load_cases(shipped_corpus())) >= 200
    assert len(server.bodies) == total
    assert figures["cases"] == total
    assert figures["accuracy"] == round(labels["on_task"] / total, 4)
    assert figures["off_task_precision"] is None  # it never said off_task
    assert figures["off_task_recall"] == 0.0 and figures["unclear_rate"] == 0.0


def test_the_figures_read_as_words_without_json(server, tmp_path, here):
    follow_script(server)
    cases = scripted_cases(tmp_path)
    code, out, err = here("--limit", "3", "--cases", str(cases), **env_for("ollama", server))
    assert code == 0, err
    assert f"judge-eval: 3 cases through ollama (llama3.2) at {server.url}" in out
    assert "accuracy             66.7 %" in out  # two of three right
    assert "off-task precision   100.0 %" in out and "off-task recall      66.7 %" in out
    assert "unclear rate         0.0 %" in out


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"id": "a"}\n', r"bad\.jsonl:1: missing or not text: next_action"),
        ("", r"bad\.jsonl: holds no cases"),
        (None, r"bad\.jsonl: cannot be read"),
    ],
)
def test_a_bad_cases_file_is_one_sentence_and_exit_2(server, tmp_path, here, text, says):
    bad = tmp_path / "bad.jsonl"
    if text is not None:
        bad.write_text(text)
    code, out, err = here("--json", "--cases", str(bad), **env_for("ollama", server))
    assert code == 2
    assert out == "" and len(err.strip().splitlines()) == 1
    assert err.startswith("antidrift: ")  # the CLI's one mapping of a refusal
    assert re.search(says, err), err
    assert server.bodies == []


def test_an_endless_cases_file_is_one_sentence_and_exit_2(server, here):
    code, out, err = here("--json", "--cases", "/dev/zero", **env_for("ollama", server))
    assert (code, out) == (2, "")
    assert err == "antidrift: /dev/zero: larger than 10 MiB; not a cases file\n"
    assert server.bodies == []


@pytest.mark.parametrize(
    ("env", "says"),
    [
        ({"ANTIDRIFT_AI_BACKEND": "ollama"},
         "ANTIDRIFT_AI_BACKEND=ollama needs ANTIDRIFT_AI_MODEL"),
        ({"ANTIDRIFT_AI_BACKEND": "openai"}, "ANTIDRIFT_AI_BACKEND=openai needs ANTIDRIFT_AI_URL"),
        ({}, "no AI backend to judge with: the claude program is not on PATH"),
        ({"ANTIDRIFT_AI_BACKEND": "openai", "ANTIDRIFT_AI_URL": "http://192.0.2.7:8080/v1"},
         "ANTIDRIFT_AI_ALLOW_REMOTE"),
    ],
)  # fmt: skip
def test_no_usable_backend_is_one_sentence_and_exit_2(here, env, says):
    code, out, err = here("--json", "--limit", "1", **env)
    assert code == 2, out
    assert out == "" and len(err.strip().splitlines()) == 1, err
    assert says in err


def test_every_call_failing_gives_no_figures(server, here):
    server.raw = b"<html>garbled"
    code, out, err = here("--json", "--limit", "3", **env_for("ollama", server))
    assert code == 1 and out == ""
    assert "3 calls failed" in err and "every call failed; no figures" in err
    assert len(server.bodies) == 3


def test_bad_limits_are_refused_by_the_parser(here):
    for limit in ("0", "-3", "two", "٣", "100001"):
        code, _, err = here(f"--limit={limit}")
        assert code == 2 and "must be a whole number from 1 to 100000" in err, limit
