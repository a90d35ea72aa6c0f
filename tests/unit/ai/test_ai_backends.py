"""Backend selection, argv construction and error messages, without spawning anything."""

from __future__ import annotations

import json
import os

import pytest

from antidrift.ai import (
    PROPOSAL_SCHEMA,
    BackendTuning,
    Cancelled,
    CancelScope,
    ClaudeBackend,
    CLIFailed,
    CLINoKey,
    CLINotFound,
    CLINotLoggedIn,
    CLIOffline,
    CLITimeout,
    CoachError,
    CodexBackend,
    CommandBackend,
    Options,
    OutputTooLarge,
    UnknownBackend,
    new_backend,
    run_cli,
    tuning_for,
)

PROMPT = "You are a focus coach. INTENT: write the report"


@pytest.mark.parametrize("name", ["", "claude", " Claude "])
def test_default_and_claude_select_claude(name):
    backend = new_backend(name)
    assert isinstance(backend, ClaudeBackend)
    assert backend.name == "claude"


def test_codex_by_name():
    backend = new_backend("codex")
    assert isinstance(backend, CodexBackend)
    assert backend.name == "codex"


def test_command_splits_like_a_shell():
    backend = new_backend("command", Options(ai_command='llm -m "gpt 4o" --no-log'))
    assert isinstance(backend, CommandBackend)
    assert backend.argv == ["llm", "-m", "gpt 4o", "--no-log"]
    assert backend.args("/usr/bin/llm") == ["/usr/bin/llm", "-m", "gpt 4o", "--no-log"]


@pytest.mark.parametrize("command", ["", "  "])
def test_command_without_a_command_names_the_fix(command):
    with pytest.raises(UnknownBackend, match="ANTIDRIFT_AI_COMMAND"):
        new_backend("command", Options(ai_command=command))


def test_command_with_unbalanced_quotes_is_unknown_backend():
    with pytest.raises(UnknownBackend, match="ANTIDRIFT_AI_COMMAND"):
        new_backend("command", Options(ai_command='llm -m "oops'))


def test_unknown_name_lists_the_valid_ones():
    with pytest.raises(UnknownBackend) as err:
        new_backend("gpt")
    assert isinstance(err.value, ValueError)
    for valid in ("claude", "codex", "command"):
        assert valid in str(err.value)


def test_bin_overrides_pass_through_new_backend():
    bins = Options(claude_bin="/opt/claude", codex_bin="/opt/codex")
    assert new_backend("claude", bins).bin == "/opt/claude"
    assert new_backend("codex", bins).bin == "/opt/codex"
    assert new_backend("claude", Options(claude_bin="")).bin is None


def test_claude_argv_is_the_verified_one():
    assert ClaudeBackend().args("/x/claude") == [
        "/x/claude",
        "--print",
        "--tools",
        "",
        "--no-session-persistence",
        "--output-format",
        "text",
        "--setting-sources",
        "",
        "--strict-mcp-config",
        "--model",
        "haiku",
        "--effort",
        "low",
    ]


@pytest.mark.parametrize("on", [False, True])
def test_a_claude_is_kept_warm_only_when_asked(on):
    assert new_backend("claude", Options(ai_warm=on)).warm_up is on


def test_claude_gets_the_schema_as_one_compact_json_word():
    argv = ClaudeBackend(tuning=BackendTuning(None, None)).args("/x/claude", PROPOSAL_SCHEMA)
    assert argv[-2:] == ["--json-schema", json.dumps(PROPOSAL_SCHEMA, separators=(",", ":"))]
    assert "--model" not in argv and "--effort" not in argv


def test_codex_argv_is_the_verified_one_with_the_output_file():
    argv = CodexBackend().args("/x/codex", "/tmp/run1/answer.txt")
    assert argv == [
        "/x/codex",
        "exec",
        "--skip-git-repo-check",
        "--ignore-user-config",
        "--ignore-rules",
        "-s",
        "read-only",
        "--ephemeral",
        "-c",
        "model_reasoning_effort=low",
        "-o",
        "/tmp/run1/answer.txt",
        "-",
    ]
    assert argv[argv.index("-o") + 1] == "/tmp/run1/answer.txt"
    assert "-a" not in argv  # codex exec rejects it


def test_codex_model_and_schema_file_when_asked():
    argv = CodexBackend(tuning=BackendTuning("gpt-5.5", "high")).args(
        "/x/codex", "/t/a", "/t/s.json"
    )
    assert argv[8:] == [
        "-m",
        "gpt-5.5",
        "-c",
        "model_reasoning_effort=high",
        "--output-schema",
        "/t/s.json",
        "-o",
        "/t/a",
        "-",
    ]


@pytest.mark.parametrize(
    ("tuning", "claude", "codex"),
    [
        ({}, "haiku, low effort", "default model, low effort"),
        ({"ai_model": "sonnet"}, "sonnet, low effort", "sonnet, low effort"),
        ({"ai_model": "default"}, "default model, low effort", None),
        ({"ai_effort": "high"}, "haiku, high effort", "default model, high effort"),
        ({"ai_effort": "default"}, "haiku, default effort", None),
    ],
)
def test_model_and_effort_are_asked_for_as_set(tuning, claude, codex):
    assert str(new_backend("claude", Options(**tuning)).tuning) == claude
    if codex:
        assert str(new_backend("codex", Options(**tuning)).tuning) == codex
    assert tuning_for(tuning.get("ai_model", ""), tuning.get("ai_effort", "low"), "haiku") == (
        new_backend("claude", Options(**tuning)).tuning
    )


def test_missing_binary_is_none_and_version_is_none(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    for backend in (ClaudeBackend(), CodexBackend(), CommandBackend("nosuchllm -m x")):
        assert backend.binary() is None
        assert backend.version() is None


def test_errors_are_coach_errors_with_page_ready_messages():
    assert str(CLINotFound()) == "claude is not installed — install it, or set ANTIDRIFT_CLAUDE_BIN"
    assert str(CLINotLoggedIn()) == "claude is not logged in — run claude once in a terminal"
    assert str(CLITimeout(60)) == "the coach took longer than 60 s"
    assert str(CLITimeout(60.0)) == "the coach took longer than 60 s"
    assert str(CLITimeout(2.5)) == "the coach took longer than 2.5 s"
    assert str(CLIFailed("codex", 2)) == "codex failed (exit code 2)"
    assert str(CLIOffline()) == "claude can't reach its service — check your connection"
    assert str(CLINoKey("llm", "anthropic")) == (
        "llm has no API key — set one by running: llm keys set anthropic"
    )
    no_key = "llm has no API key — set one by running, e.g.: llm keys set openai"
    assert str(CLINoKey("llm")) == no_key
    assert "1 MiB" in str(OutputTooLarge("claude", 1 << 20))
    for err in (CLINotFound(), CLITimeout(1), CLIFailed("x", 1), CLIOffline(), CLINoKey()):
        assert isinstance(err, CoachError)
        assert err.message == str(err)


def test_cancelled_scope_refuses_to_spawn():
    scope = CancelScope()
    assert not scope.cancelled
    scope.cancel()
    assert scope.cancelled
    with pytest.raises(Cancelled):  # not CLINotFound: nothing was even looked up
        run_cli(["/nonexistent/cli"], "x", timeout=1, scope=scope)


def test_a_taken_working_directory_name_costs_one_fallback_not_one_per_call(tmp_path, monkeypatch):
    import antidrift.ai.backends.claude as backend_module

    monkeypatch.setattr(backend_module.tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(backend_module, "_FALLBACK_CWD", None)
    # The stable name exists but belongs to "someone else" (another uid than ours).
    monkeypatch.setattr(backend_module.os, "getuid", lambda: os.geteuid() + 4242)
    first = backend_module._neutral_cwd()
    assert first != str(tmp_path / f"antidrift-coach-{os.geteuid() + 4242}")
    assert backend_module._neutral_cwd() == first
    assert len(list(tmp_path.glob("antidrift-coach-*"))) == 2  # the taken name + one fallback
