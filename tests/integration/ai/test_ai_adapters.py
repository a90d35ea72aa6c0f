"""The real claude / codex / command adapters against fake CLIs on a temp PATH."""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path

import pytest

from antidrift.ai import (
    CODEX_ARGS,
    PROPOSAL_SCHEMA,
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
    EmptyResponse,
    NoJSON,
    OutputTooLarge,
    Proposal,
    Service,
    build_prompt,
)
from tests.support.settings import backend_from_env
from tests.support.timing import assert_within

# The fake reads the prompt from stdin (so stdin must reach EOF), finds the quoted intent
# and answers a chatty, valid proposal about it.
ANSWER_FROM_STDIN = """
prompt = sys.stdin.read()
intent = json.loads(prompt.split("\\nINTENT: ", 1)[1].strip())
answer = {"next_action": "Start: " + intent, "success_condition": "done", "timebox_minutes": 30}
print("Here you go:\\n```json\\n" + json.dumps(answer) + "\\n```")
"""

FAKE_CLAUDE = f"""
expected = {ClaudeBackend().args("claude", PROPOSAL_SCHEMA)[1:]!r}
if sys.argv[1:] == ["--version"]:
    print("2.1.197 (Claude Code)")
    sys.exit(0)
if sys.argv[1:] != expected:
    print("unexpected argv: %r" % sys.argv[1:], file=sys.stderr)
    sys.exit(64)
{ANSWER_FROM_STDIN}
"""


def test_claude_gets_the_verified_argv_and_the_prompt_on_stdin(write_cli):
    write_cli("claude", FAKE_CLAUDE)
    proposal = Service(ClaudeBackend()).coach("write the Q3 report")
    assert proposal == Proposal("Start: write the Q3 report", "done", 30)


def test_claude_runs_with_no_side_traffic_and_bounded_retries(write_cli, tmp_path):
    record = tmp_path / "env.json"
    write_cli("claude", f"open({str(record)!r}, 'w').write(json.dumps(dict(os.environ)))\n")
    ClaudeBackend().run("p", timeout=5)
    env = json.loads(record.read_text())
    assert env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
    assert 0 <= int(env["CLAUDE_CODE_MAX_RETRIES"]) <= 2
    assert env["PATH"] == os.environ["PATH"]  # the rest of the environment is inherited


@pytest.mark.parametrize(
    "said",
    [
        "API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)",
        "API Error: Can't reach the API server — check your internet or DNS (EAI_AGAIN)",
    ],
)
def test_claude_offline_says_it_cannot_reach_its_service(write_cli, said):
    write_cli("claude", f"print({said!r})\nsys.exit(1)\n")
    with pytest.raises(CLIOffline) as err:
        Service(ClaudeBackend()).coach("x")
    assert str(err.value) == "claude can't reach its service — check your connection"


def test_llm_without_a_key_says_how_to_set_one(write_cli):
    said = (
        "Error: No key found - add one using 'llm keys set openai' or set the OPENAI_API_KEY"
        " environment variable"
    )
    write_cli("llm", f"sys.stdin.read()\nprint({said!r}, file=sys.stderr)\nsys.exit(1)\n")
    with pytest.raises(CLINoKey) as err:
        Service(CommandBackend("llm -m gpt-4o-mini")).coach("x")
    assert str(err.value) == "llm has no API key — set one by running: llm keys set openai"


def test_claude_runs_outside_the_servers_cwd(write_cli, tmp_path):
    record = tmp_path / "cwd"
    write_cli("claude", f"open({str(record)!r}, 'w').write(os.getcwd())\nprint('x')\n")
    ClaudeBackend().run("p", timeout=5)
    assert Path(record.read_text()).resolve() != Path.cwd().resolve()
    assert os.listdir(record.read_text()) == []


def test_binary_is_looked_up_at_call_time(write_cli):
    backend = ClaudeBackend()
    with pytest.raises(CLINotFound) as err:
        backend.run("p", timeout=5)
    assert str(err.value) == "claude is not installed — install it, or set ANTIDRIFT_CLAUDE_BIN"
    assert backend.binary() is None
    write_cli("claude", FAKE_CLAUDE)  # installed after the backend was built
    assert backend.binary() is not None
    assert Service(backend).coach("later").next_action == "Start: later"


def test_bin_override_from_env(write_cli, fake_bin):
    path = write_cli("my-claude", FAKE_CLAUDE)
    backend = backend_from_env("claude", {"ANTIDRIFT_CLAUDE_BIN": str(path)})
    assert backend.binary() == str(path)
    assert Service(backend).coach("x").next_action == "Start: x"
    assert backend.version() == "2.1.197 (Claude Code)"


def test_bin_override_pointing_nowhere_names_the_variable(fake_bin):
    backend = backend_from_env("claude", {"ANTIDRIFT_CLAUDE_BIN": str(fake_bin / "gone")})
    with pytest.raises(CLINotFound, match="ANTIDRIFT_CLAUDE_BIN"):
        backend.run("p", timeout=5)


def test_logged_out_claude_is_not_logged_in(write_cli, caplog):
    # Verbatim what claude 2.1.197 does logged out: this line on stdout, exit code 1.
    write_cli(
        "claude", "sys.stdin.read()\nprint('Not logged in · Please run /login')\nsys.exit(1)\n"
    )
    with (
        caplog.at_level(logging.WARNING, logger="antidrift.ai"),
        pytest.raises(CLINotLoggedIn) as err,
    ):
        Service(ClaudeBackend()).coach("x")
    assert str(err.value) == "claude is not logged in — run claude once in a terminal"
    assert "Please run /login" in caplog.text  # raw output goes to the log


def test_non_zero_exit_fails_even_with_an_answer_on_stdout(write_cli, caplog):
    write_cli(
        "claude",
        'print(json.dumps({"next_action": "a", "success_condition": "b", "timebox_minutes": 5}))\n'
        "print('RAW-STDERR-DETAIL', file=sys.stderr)\nsys.exit(1)\n",
    )
    with (
        caplog.at_level(logging.WARNING, logger="antidrift.ai"),
        pytest.raises(CLIFailed) as err,
    ):
        Service(ClaudeBackend()).coach("x")
    assert str(err.value) == "claude failed (exit code 1)"
    assert "RAW-STDERR-DETAIL" not in str(err.value)
    assert "RAW-STDERR-DETAIL" in caplog.text


def test_exit_zero_with_nothing_is_an_empty_response(write_cli):
    write_cli("claude", "sys.stdin.read()\n")
    with pytest.raises(EmptyResponse):
        Service(ClaudeBackend()).coach("x")


def test_invalid_utf8_answer_is_a_clear_error_not_a_crash(write_cli):
    write_cli("claude", r"sys.stdout.buffer.write(b'\xff\xfe\xfd not json \xc3')" + "\n")
    with pytest.raises(NoJSON):
        Service(ClaudeBackend()).coach("x")


def test_invalid_utf8_around_a_valid_answer_still_works(write_cli):
    answer = json.dumps({"next_action": "a", "success_condition": "b", "timebox_minutes": 5})
    write_cli("claude", f"sys.stdout.buffer.write(b'\\xff ' + {answer.encode()!r} + b' \\xfe')\n")
    assert Service(ClaudeBackend()).coach("x").timebox_minutes == 5


def test_claude_flood_is_output_too_large(write_cli):
    write_cli("claude", "for _ in range(25):\n    sys.stdout.buffer.write(b'{' * (1 << 20))\n")
    with pytest.raises(OutputTooLarge):
        Service(ClaudeBackend()).coach("x")


def test_service_timeout_says_the_configured_seconds(write_cli):
    write_cli("claude", "time.sleep(30)\n")
    started = time.monotonic()
    with pytest.raises(CLITimeout) as err:
        Service(ClaudeBackend(), timeout=0.5).coach("x")
    assert str(err.value) == "the coach took longer than 0.5 s"
    assert_within(time.monotonic() - started, 2, "the timeout")


def _fake_codex(record: Path, body: str, login: str = "Logged in using ChatGPT") -> str:
    """A codex that checks its argv, records the -o path and its cwd, then runs body."""
    return f"""
if sys.argv[1:] == ["login", "status"]:
    logged_in = {login != "Not logged in"!r}
    print({login!r}, file=sys.stdout if logged_in else sys.stderr)
    sys.exit(0 if logged_in else 1)
if sys.argv[1:] == ["--version"]:
    print("codex-cli 0.171.0")
    sys.exit(0)
args = sys.argv[1:]
expected = {list(CODEX_ARGS)!r}
if args[:len(expected)] != expected or args[-3] != "-o" or args[-1] != "-":
    print("unexpected argv: %r" % args, file=sys.stderr)
    sys.exit(64)
out = args[-2]
schema = args[args.index("--output-schema") + 1] if "--output-schema" in args else None
seen = {{"out": out, "cwd": os.getcwd(), "schema": schema}}
seen["schema_text"] = open(schema).read() if schema else None
open({str(record)!r}, "w").write(json.dumps(seen))
{body}
"""


def _touch(path: Path) -> str:
    return f"open({str(path)!r}, 'w').close()\n"


def _once_it_got_going(started: Path, call) -> CoachError:
    """The error of call(timeout) for the first timeout the fake codex outlived having done
    its part (and then written `started`): 0.5 s on a quiet machine; on a busy one, where
    Python's start alone can take longer, again with 2 s and then 8 s."""
    for timeout in (0.5, 2.0, 8.0):
        try:
            call(timeout)
        except CoachError as err:
            if started.exists():
                return err
        else:
            raise AssertionError("the call did not fail")
    raise AssertionError("the fake codex never got going within 8 s")


CODEX_ANSWERS = """
prompt = sys.stdin.read()
intent = json.loads(prompt.split("\\nINTENT: ", 1)[1].strip())
print("OpenAI Codex v0.171.0 banner noise", file=sys.stderr)
print("stdout is not the answer")
answer = {"next_action": "Codex: " + intent, "success_condition": "ok", "timebox_minutes": "45"}
open(out, "w").write("final:\\n" + json.dumps(answer))
"""


def test_codex_answer_comes_from_the_o_file_which_is_removed(write_cli, tmp_path):
    record = tmp_path / "record.json"
    write_cli("codex", _fake_codex(record, CODEX_ANSWERS))
    proposal = Service(CodexBackend()).coach("plan the sprint")
    assert proposal == Proposal("Codex: plan the sprint", "ok", "45")
    seen = json.loads(record.read_text())
    assert Path(seen["out"]).parent.resolve() == Path(seen["cwd"]).resolve()
    assert not os.path.exists(seen["out"])
    assert not os.path.exists(seen["cwd"])  # the fresh temp cwd is gone too
    assert Path(seen["schema"]).parent.resolve() == Path(seen["cwd"]).resolve()
    assert json.loads(seen["schema_text"]) == PROPOSAL_SCHEMA


def test_codex_retrying_for_the_network_says_it_cannot_reach_its_service(
    write_cli, tmp_path, monkeypatch
):
    monkeypatch.setenv("CODEX_API_KEY", "k")  # an API key: `login status` proves nothing
    record = tmp_path / "record.json"
    offline = "print('ERROR: Reconnecting... waiting for network', file=sys.stderr, flush=True)"
    started = tmp_path / "started"
    write_cli("codex", _fake_codex(record, f"{offline}\n{_touch(started)}time.sleep(30)\n"))
    err = _once_it_got_going(started, lambda timeout: CodexBackend().run("p", timeout=timeout))
    assert isinstance(err, CLIOffline), err
    assert str(err) == "codex can't reach its service — check your connection"


def test_codex_temp_file_is_removed_on_timeout(write_cli, tmp_path):
    record = tmp_path / "record.json"
    started = tmp_path / "started"
    body = f"open(out, 'w').write('partial')\n{_touch(started)}time.sleep(30)\n"
    write_cli("codex", _fake_codex(record, body))
    err = _once_it_got_going(started, lambda timeout: CodexBackend().run("p", timeout=timeout))
    assert isinstance(err, CLITimeout), err
    seen = json.loads(record.read_text())
    assert not os.path.exists(seen["out"])
    assert not os.path.exists(seen["cwd"])


def test_codex_that_never_writes_the_file_is_an_empty_response(write_cli, tmp_path):
    record = tmp_path / "record.json"
    write_cli("codex", _fake_codex(record, "sys.stdin.read()\nprint('noise')\n"))
    with pytest.raises(EmptyResponse):
        Service(CodexBackend()).coach("x")


def test_logged_out_codex_that_retries_is_not_logged_in(write_cli, tmp_path):
    # Verified: logged-out codex exec retries instead of failing; `login status` says why.
    record = tmp_path / "record.json"
    started = tmp_path / "started"
    body = "print('ERROR: Reconnecting... 1/5', file=sys.stderr, flush=True)\n"
    write_cli(
        "codex", _fake_codex(record, f"{body}{_touch(started)}time.sleep(30)\n", "Not logged in")
    )
    err = _once_it_got_going(
        started, lambda timeout: Service(CodexBackend(), timeout=timeout).coach("x")
    )
    assert isinstance(err, CLINotLoggedIn), err
    assert str(err) == "codex is not logged in — run codex login in a terminal"
    assert not os.path.exists(json.loads(record.read_text())["out"])


def test_logged_out_codex_that_exits_is_not_logged_in(write_cli, tmp_path):
    record = tmp_path / "record.json"
    write_cli("codex", _fake_codex(record, "sys.exit(1)\n", login="Not logged in"))
    with pytest.raises(CLINotLoggedIn):
        CodexBackend().run("p", timeout=5)


def test_codex_failure_while_logged_in_is_cli_failed(write_cli, tmp_path):
    write_cli("codex", _fake_codex(tmp_path / "r.json", "sys.exit(2)\n"))
    with pytest.raises(CLIFailed, match="codex failed \\(exit code 2\\)"):
        CodexBackend().run("p", timeout=5)


def test_codex_missing_is_cli_not_found(fake_bin):
    with pytest.raises(CLINotFound, match="ANTIDRIFT_CODEX_BIN"):
        CodexBackend().run("p", timeout=5)


def test_versions_come_from_the_binaries(write_cli, tmp_path):
    write_cli("claude", FAKE_CLAUDE)
    write_cli("codex", _fake_codex(tmp_path / "r.json", ""))
    assert ClaudeBackend().version() == "2.1.197 (Claude Code)"
    assert CodexBackend().version() == "codex-cli 0.171.0"


def test_command_backend_splits_argv_and_pipes_the_prompt(write_cli, tmp_path):
    record = tmp_path / "argv.json"
    write_cli(
        "fakellm",
        f"open({str(record)!r}, 'w').write(json.dumps(sys.argv[1:]))\n{ANSWER_FROM_STDIN}",
    )
    backend = backend_from_env("command", {"ANTIDRIFT_AI_COMMAND": "fakellm -m x"})
    assert Service(backend).coach("tidy the inbox").next_action == "Start: tidy the inbox"
    assert json.loads(record.read_text()) == ["-m", "x"]


def test_command_backend_keeps_quoted_arguments_whole_and_runs_no_shell(write_cli, tmp_path):
    record = tmp_path / "argv.json"
    write_cli("fakellm", f"open({str(record)!r}, 'w').write(json.dumps(sys.argv[1:]))\n")
    CommandBackend("fakellm -m 'two words' '$HOME' ';' 'rm -rf x'").run("p", timeout=5)
    assert json.loads(record.read_text()) == ["-m", "two words", "$HOME", ";", "rm -rf x"]


def test_command_backend_missing_program_names_the_setting(fake_bin):
    with pytest.raises(CLINotFound) as err:
        CommandBackend("nosuchllm -m x").run("p", timeout=5)
    assert str(err.value) == "nosuchllm is not installed — install it, or fix ANTIDRIFT_AI_COMMAND"


# A CLI that records its argv and its stdin, then answers (codex: into its -o file).
RECORDER = """
record = {record!r}
args = sys.argv[1:]
if args in (["--version"], ["login", "status"]):
    sys.exit(0)
prompt = sys.stdin.read()
with open(record, "w") as f:
    json.dump({{"argv": args, "stdin": prompt}}, f)
answer = json.dumps({{"next_action": "a", "success_condition": "b", "timebox_minutes": 5}})
if "-o" in args:
    open(args[args.index("-o") + 1], "w").write(answer)
else:
    print(answer)
"""


@pytest.mark.parametrize(
    ("program", "make"),
    [
        ("claude", lambda: ClaudeBackend()),
        ("codex", lambda: CodexBackend()),
        ("recorder", lambda: CommandBackend("recorder --flag")),
    ],
)
def test_the_prompt_goes_to_stdin_and_never_into_argv(write_cli, tmp_path, program, make):
    record = tmp_path / "seen.json"
    write_cli(program, RECORDER.format(record=str(record)))
    intent = "MARKER-91c2 --help; rm -rf ~"
    assert Service(make()).coach(intent) == Proposal("a", "b", 5)
    seen = json.loads(record.read_text())
    assert seen["stdin"] == build_prompt(intent)
    assert not any("MARKER-91c2" in arg or "focus coach" in arg for arg in seen["argv"])
