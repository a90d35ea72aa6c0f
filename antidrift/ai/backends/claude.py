"""claude: Claude Code in print mode, isolated from the user's setup; or, while the user
plans, a claude kept warm in stream-json mode (ai/warm.py)."""

from __future__ import annotations

import json
import logging
import os
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path

from antidrift import process
from antidrift.process import Result
from antidrift.process.warm import Warm

from .. import warm
from ..errors import Cancelled, CLITimeout, OutputTooLarge
from .base import DEFAULT_EFFORT, MAX_ANSWER, BackendTuning, Call, Options, schema_text, tuning_for
from .diagnose import check, trim
from .runner import BinaryBackend, run_cli

log = logging.getLogger("antidrift.ai")

# claude, verified against @anthropic-ai/claude-code 2.1.332 (`2.1.332 (Claude Code)`) driven
# against a loopback stand-in of its API (docs/CLI-VERIFIED.md has the details):
#   --print, --tools <tools...>, --no-session-persistence, --output-format text all parse
#   (an unknown option exits 1 with "error: unknown option '…'" on stderr). `--tools ""`
#   disables every tool (the request then carries `"tools": []`); the next flag ends the
#   variadic list, and with the prompt on stdin nothing positional follows it.
#   The prompt is read from stdin up to EOF.
#   `--setting-sources ""` loads no settings file: the user's hooks, plugins, MCP servers and
#   every CLAUDE.md (~/.claude and the parents of the working directory) stay out of a coach
#   call — without it they run in it and reach the model. `--strict-mcp-config` also keeps
#   out MCP servers from anywhere but --mcp-config. The OAuth login still works with both.
#   Logged out it prints "Not logged in · Please run /login" on STDOUT, exit code 1, at once.
#   Not --bare: it ignores the OAuth login and requires ANTHROPIC_API_KEY.
CLAUDE_ARGS: tuple[str, ...] = (
    "--print",
    "--tools",
    "",
    "--no-session-persistence",
    "--output-format",
    "text",
    "--setting-sources",
    "",
    "--strict-mcp-config",
)
# Added to the environment of every claude call. No side traffic (2.1.332 otherwise probes
# the API host before the call, ~0.5 s). Two retries, not ten: offline then fails in about
# 2 s ("API Error: Connection refused …") instead of after more than a minute.
CLAUDE_ENV: dict[str, str] = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "CLAUDE_CODE_MAX_RETRIES": "2",
}
CLAUDE_MODEL = "haiku"  # a three-field answer needs no bigger model


def _neutral_cwd() -> str:
    """A private, empty, stable directory to run claude in."""
    # Not the server's cwd: with --print claude skips the workspace-trust dialog and would
    # load that directory's CLAUDE.md, settings and hooks. Stable, so claude's per-directory
    # state (~/.claude/projects/<dir>) is one entry, not one per call.
    path = Path(tempfile.gettempdir()) / f"antidrift-coach-{os.getuid()}"
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(path)
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and info.st_mode & 0o077 == 0:
            return str(path)
    except OSError:
        pass
    # Someone else owns that name: one private fallback for the process, not one per call.
    global _FALLBACK_CWD
    if _FALLBACK_CWD is None or not os.path.isdir(_FALLBACK_CWD):
        _FALLBACK_CWD = tempfile.mkdtemp(prefix="antidrift-coach-")
    return _FALLBACK_CWD


_FALLBACK_CWD: str | None = None


class ClaudeBackend(BinaryBackend):
    """Claude Code in print mode, isolated from the user's setup, tools off, prompt on stdin,
    answer on stdout."""

    name = "claude"
    default_bin = "claude"
    env_var = "ANTIDRIFT_CLAUDE_BIN"
    login_fix = "run claude once in a terminal"

    def __init__(
        self, bin: str | None = None, tuning: BackendTuning | None = None, *, warm_up: bool = True
    ) -> None:
        super().__init__(bin)
        self.tuning = tuning or BackendTuning(CLAUDE_MODEL, DEFAULT_EFFORT)
        # Whether keep_warm() may start a claude ahead of need (ANTIDRIFT_AI_WARM). Off by
        # default for a configured server: a binary that is not claude (a wrapper, a test
        # fake) may not speak stream-json, and an idle claude holds ~170 MiB.
        self.warm_up = warm_up
        self.warm_slot = warm.Slot(self.name)

    def args(self, binary: str, schema: Mapping[str, object] | None = None) -> list[str]:
        """The argv for one call; the prompt goes to stdin, never here."""
        argv = [binary, *CLAUDE_ARGS]
        if self.tuning.model:
            argv += ["--model", self.tuning.model]
        if self.tuning.effort:
            argv += ["--effort", self.tuning.effort]
        if schema is not None:
            # claude offers the model a StructuredOutput tool with this schema; with
            # --output-format text it then prints exactly the compact JSON object.
            argv += ["--json-schema", schema_text(schema)]
        return argv

    def ask(self, call: Call) -> str:
        """Ask claude: the warm process if one waits for this very call, else a fresh one;
        its answer is exactly stdout (warm: the result's structured output, or its text)."""
        binary = self.require_binary()
        taken = self.warm_slot.take(warm.stream_argv(self.args(binary, call.schema)))
        if taken is not None:
            waiting, spec = taken
            reusable = False
            try:
                result = self._ask_warm(waiting, call)
                reusable = True
                return self._warm_answer(result, waiting.stderr())
            except process.Exited as err:
                log.warning("%s: the warm process ended unasked: %s", self.name, trim(err.stderr))
            finally:
                self.warm_slot.give_back(waiting, spec, reusable)
        result = run_cli(
            self.args(binary, call.schema),
            call.prompt,
            timeout=call.timeout,
            scope=call.scope,
            max_output=MAX_ANSWER,
            env={**os.environ, **CLAUDE_ENV},
            cwd=_neutral_cwd(),
            name=self.name,
        )
        check(self.name, result, self.login_fix)
        return result.stdout.strip()

    def keep_warm(self, on: bool, schema: Mapping[str, object] | None = None) -> None:
        """While on (the user is planning), keep one claude started for the next call."""
        binary = self.binary() if on and self.warm_up else None
        if binary is None:
            self.warm_slot.want(None)
            return
        argv = warm.stream_argv(self.args(binary, schema))
        env = {**os.environ, **CLAUDE_ENV}
        self.warm_slot.want(warm.Spec(tuple(argv), env, _neutral_cwd()))

    def _ask_warm(self, waiting: Warm, call: Call) -> dict:
        """The result object the warm claude gave for the call's prompt."""
        timeout = call.timeout
        try:
            lines = waiting.exchange(
                warm.message(call.prompt),
                done=lambda line: warm.result_of(line) is not None,
                timeout=timeout,
                scope=call.scope,
            )
        except process.RunCancelled as err:
            raise Cancelled() from err
        except process.TooLarge as err:
            raise OutputTooLarge(self.name, err.limit) from err
        except process.TimedOut as err:
            log.warning(
                "%s: no answer within %g s; killed. stderr: %s", self.name, timeout, err.stderr
            )
            raise CLITimeout(timeout) from err
        return warm.result_of(lines[-1]) or {}

    def _warm_answer(self, result: dict, stderr: str) -> str:
        """The answer in a result object: its structured output, else its text."""
        text = result.get("result") if isinstance(result.get("result"), str) else ""
        if result.get("is_error"):
            # The same sentences as a cold call: logged out, offline, …
            check(self.name, Result(text, stderr, 1), self.login_fix)
        structured = result.get("structured_output")
        if isinstance(structured, dict):
            return json.dumps(structured, ensure_ascii=False)
        return text.strip()


def build(options: Options) -> ClaudeBackend:
    """claude with the settings' binary, model, effort and warm start."""
    tuning = tuning_for(options.ai_model, options.ai_effort, CLAUDE_MODEL)
    return ClaudeBackend(options.claude_bin or None, tuning, warm_up=options.ai_warm)
