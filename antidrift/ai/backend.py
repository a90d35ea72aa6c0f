"""Backends: how a prompt reaches an LLM CLI (claude, codex, or any command) and back."""

from __future__ import annotations

import json
import logging
import os
import re
import shlex
import shutil
import stat
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from antidrift import process
from antidrift.process import CancelScope, Result
from antidrift.process.warm import Warm

from . import warm
from .errors import (
    Cancelled,
    CLIFailed,
    CLINoKey,
    CLINotFound,
    CLINotLoggedIn,
    CLIOffline,
    CLITimeout,
    CoachError,
    EmptyResponse,
    OutputTooLarge,
    UnknownBackend,
)

log = logging.getLogger("antidrift.ai")

VERSION_TIMEOUT = 5.0
MAX_ANSWER = 1 << 20  # bytes read from a CLI's answer (stdout or codex's -o file)
_LOG_LIMIT = 4000  # raw output in the log is trimmed; it is for diagnosis, not archiving

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

# codex, verified against @openai/codex 0.171.0 (`codex-cli 0.171.0`), logged out, throwaway
# HOME, no network:
#   `exec` accepts --skip-git-repo-check, --ignore-user-config, --ignore-rules,
#   -s read-only, --ephemeral, -o/--output-last-message <FILE> and `-` (prompt from stdin).
#   `-a never` after `exec` is REJECTED (exit 2, "error: unexpected argument '-a' found"):
#   -a is a root option. `codex -a never exec …` parses, but is not needed: exec's banner
#   already says "approval: never", and --ignore-user-config stops a config from changing it.
#   Logged out, exec does not fail fast: it prints its banner and "ERROR: Reconnecting... n/5"
#   on stderr and keeps retrying (still running after 110 s), stdout stays empty, and the -o
#   file is created empty at start. `codex login status` answers in ~0.1 s: "Not logged in"
#   on stderr, exit 1 — so a failed or timed-out call is explained by asking it.
CODEX_ARGS: tuple[str, ...] = (
    "exec",
    "--skip-git-repo-check",
    "--ignore-user-config",
    "--ignore-rules",
    "-s",
    "read-only",
    "--ephemeral",
)
CODEX_LOGIN_STATUS: tuple[str, ...] = ("login", "status")

DEFAULT_EFFORT = "low"

# What a CLI prints when it cannot reach its service (claude 2.1.332, on stdout): DNS failing
# ("… check your internet or DNS (EAI_AGAIN)") or the connection refused ("… (ECONNREFUSED)").
_OFFLINE_MARKERS = ("api error: can't reach the api server", "api error: connection refused")
# codex 0.171.0 with its API unreachable retries for good, saying this on stderr.
_CODEX_OFFLINE_MARKER = "reconnecting... waiting for network"
# llm 0.36 without a key: "Error: No key found - add one using 'llm keys set openai' or set
# the OPENAI_API_KEY environment variable" on stderr, exit 1.
_NO_KEY_MARKER = "no key found"
_LLM_KEYS_SET = re.compile(r"llm keys set ([A-Za-z0-9][A-Za-z0-9._-]{0,40})")

# What logged-out (or de-authorised) CLIs print; matched only when the exit code is non-zero.
_LOGGED_OUT_MARKERS = (
    "not logged in",
    "please run /login",
    "invalid api key",
    "oauth token revoked",
    "oauth token has expired",
    "failed to authenticate",
    "401 unauthorized",
    "missing bearer",
)


@dataclass(frozen=True)
class Tuning:
    """The model and reasoning effort a coach call asks for; None leaves the CLI's choice."""

    model: str | None = None
    effort: str | None = DEFAULT_EFFORT

    def __str__(self) -> str:
        model = self.model or "default model"
        effort = f"{self.effort} effort" if self.effort else "default effort"
        return f"{model}, {effort}"


class Backend(Protocol):
    """One way to reach an LLM: prompt in, raw answer text out."""

    name: str
    env_var: str  # the setting that points at the CLI (named in "not found" hints)
    tuning: Tuning | None  # the model and effort asked for; None where the CLI has no such knobs

    def run(
        self,
        prompt: str,
        *,
        timeout: float,
        scope: CancelScope | None = None,
        schema: Mapping[str, object] | None = None,
    ) -> str:
        """Send prompt, return the raw answer; raise a CoachError on failure. A backend whose
        CLI can constrain its answer to a JSON schema passes `schema` on; others ignore it."""
        ...

    def binary(self) -> str | None:
        """The resolved executable, or None when it is not installed."""
        ...

    def version(self) -> str | None:
        """`<bin> --version`, or None when that fails."""
        ...


def tuning_for(model: str, effort: str, default_model: str | None) -> Tuning:
    """The tuning for settings already validated: an empty model is the backend's usual one,
    `default` (model or effort) leaves the CLI its own choice."""
    chosen = default_model if not model else None if model == "default" else model
    return Tuning(chosen, None if effort == "default" else effort or DEFAULT_EFFORT)


def run_cli(
    argv: list[str],
    prompt: str,
    *,
    timeout: float,
    scope: CancelScope | None = None,
    max_output: int = MAX_ANSWER,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    name: str = "cli",
) -> Result:
    """One CLI call through the app's subprocess seam, its failures as coach errors."""
    try:
        return process.run(
            argv,
            prompt,
            timeout=timeout,
            scope=scope,
            max_output=max_output,
            env=None if env is None else dict(env),
            cwd=cwd,
            name=name,
        )
    except process.Cancelled as err:
        raise Cancelled() from err
    except process.NotFound as err:
        raise CLINotFound(name) from err
    except process.StartFailed as err:
        raise CLIFailed(name) from err
    except process.TooLarge as err:
        log.warning("%s: stdout exceeded %d bytes; killed", name, err.limit)
        raise OutputTooLarge(name, err.limit) from err
    except process.TimedOut as err:
        log.warning("%s: no answer within %g s; killed. stderr: %s", name, timeout, err.stderr)
        raise CLITimeout(timeout) from err


def _trim(text: str) -> str:
    return text if len(text) <= _LOG_LIMIT else text[:_LOG_LIMIT] + "…[trimmed]"


def _looks_logged_out(result: Result) -> bool:
    text = f"{result.stdout}\n{result.stderr}".lower()
    return any(marker in text for marker in _LOGGED_OUT_MARKERS)


def _check(
    name: str, result: Result, login_fix: str, probe: Callable[[], bool] | None = None
) -> None:
    """Raise for a non-zero exit (even with text on stdout), logging the raw output."""
    if result.returncode == 0:
        log.debug("%s: ok. stdout: %s stderr: %s", name, _trim(result.stdout), _trim(result.stderr))
        return
    log.warning(
        "%s: exit code %d. stdout: %s stderr: %s",
        name,
        result.returncode,
        _trim(result.stdout),
        _trim(result.stderr),
    )
    text = f"{result.stdout}\n{result.stderr}".lower()
    if any(marker in text for marker in _OFFLINE_MARKERS):
        raise CLIOffline(name)
    if _NO_KEY_MARKER in text:
        found = _LLM_KEYS_SET.search(f"{result.stdout}\n{result.stderr}")
        raise CLINoKey(name, found.group(1) if found else None)
    if _looks_logged_out(result) or (probe is not None and probe()):
        raise CLINotLoggedIn(name, login_fix)
    raise CLIFailed(name, result.returncode)


def _version(binary: str | None, name: str) -> str | None:
    if binary is None:
        return None
    try:
        result = run_cli([binary, "--version"], "", timeout=VERSION_TIMEOUT, name=name)
    except CoachError:
        return None
    lines = result.stdout.strip().splitlines()
    return lines[0].strip() if result.returncode == 0 and lines else None


class _BinaryBackend:
    """Shared lookup for a CLI found on PATH at each call, or at an override."""

    name = "cli"
    default_bin = "cli"
    env_var = "ANTIDRIFT_CLI_BIN"

    def __init__(self, bin: str | None = None) -> None:
        self.bin = bin or None

    def binary(self) -> str | None:
        """The executable: the override, else `which` on the current PATH."""
        return shutil.which(self.bin or self.default_bin)

    def version(self) -> str | None:
        """`<bin> --version`, or None when that fails."""
        return _version(self.binary(), self.name)

    def _require_binary(self) -> str:
        found = self.binary()
        if found is not None:
            return found
        if self.bin:
            raise CLINotFound(self.name, f"fix {self.env_var} (it names no executable)")
        raise CLINotFound(self.name, f"set {self.env_var}")


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


def _schema_text(schema: Mapping[str, object]) -> str:
    return json.dumps(schema, separators=(",", ":"), ensure_ascii=False)


class ClaudeBackend(_BinaryBackend):
    """Claude Code in print mode, isolated from the user's setup, tools off, prompt on stdin,
    answer on stdout."""

    name = "claude"
    default_bin = "claude"
    env_var = "ANTIDRIFT_CLAUDE_BIN"
    login_fix = "run `claude` once in a terminal"

    def __init__(
        self, bin: str | None = None, tuning: Tuning | None = None, *, warm_up: bool = True
    ) -> None:
        super().__init__(bin)
        self.tuning = tuning or Tuning(CLAUDE_MODEL, DEFAULT_EFFORT)
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
            argv += ["--json-schema", _schema_text(schema)]
        return argv

    def run(
        self,
        prompt: str,
        *,
        timeout: float,
        scope: CancelScope | None = None,
        schema: Mapping[str, object] | None = None,
    ) -> str:
        """Ask claude: the warm process if one waits for this very call, else a fresh one;
        its answer is exactly stdout (warm: the result's structured output, or its text)."""
        binary = self._require_binary()
        taken = self.warm_slot.take(warm.stream_argv(self.args(binary, schema)))
        if taken is not None:
            waiting, spec = taken
            reusable = False
            try:
                result = self._ask_warm(waiting, prompt, timeout, scope)
                reusable = True
                return self._warm_answer(result, waiting.stderr())
            except process.Exited as err:
                log.warning("%s: the warm process ended unasked: %s", self.name, _trim(err.stderr))
            finally:
                self.warm_slot.give_back(waiting, spec, reusable)
        result = run_cli(
            self.args(binary, schema),
            prompt,
            timeout=timeout,
            scope=scope,
            max_output=MAX_ANSWER,
            env={**os.environ, **CLAUDE_ENV},
            cwd=_neutral_cwd(),
            name=self.name,
        )
        _check(self.name, result, self.login_fix)
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

    def _ask_warm(
        self, waiting: Warm, prompt: str, timeout: float, scope: CancelScope | None
    ) -> dict:
        """The result object the warm claude gave for prompt."""
        try:
            lines = waiting.exchange(
                warm.message(prompt),
                done=lambda line: warm.result_of(line) is not None,
                timeout=timeout,
                scope=scope,
            )
        except process.Cancelled as err:
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
            _check(self.name, Result(text, stderr, 1), self.login_fix)
        structured = result.get("structured_output")
        if isinstance(structured, dict):
            return json.dumps(structured, ensure_ascii=False)
        return text.strip()


class CodexBackend(_BinaryBackend):
    """codex exec, read-only sandbox, prompt on stdin, answer read from its -o file."""

    name = "codex"
    default_bin = "codex"
    env_var = "ANTIDRIFT_CODEX_BIN"
    login_fix = "run `codex login` in a terminal"

    def __init__(self, bin: str | None = None, tuning: Tuning | None = None) -> None:
        super().__init__(bin)
        self.tuning = tuning or Tuning(None, DEFAULT_EFFORT)

    def args(self, binary: str, output_path: str, schema_path: str | None = None) -> list[str]:
        """The argv for one call writing its last message to output_path; prompt on stdin."""
        argv = [binary, *CODEX_ARGS]
        if self.tuning.model:
            argv += ["-m", self.tuning.model]
        if self.tuning.effort:
            argv += ["-c", f"model_reasoning_effort={self.tuning.effort}"]
        if schema_path is not None:
            argv += ["--output-schema", schema_path]  # sent as text.format, strict
        return [*argv, "-o", output_path, "-"]

    def run(
        self,
        prompt: str,
        *,
        timeout: float,
        scope: CancelScope | None = None,
        schema: Mapping[str, object] | None = None,
    ) -> str:
        """Ask codex in a fresh temp dir; the dir (and the files in it) is always removed."""
        binary = self._require_binary()
        workdir = tempfile.mkdtemp(prefix="antidrift-codex-")
        try:
            answer_path = os.path.join(workdir, "answer.txt")
            schema_path = None
            if schema is not None:
                schema_path = os.path.join(workdir, "schema.json")
                with open(schema_path, "w", encoding="utf-8") as f:
                    f.write(_schema_text(schema))
            try:
                result = run_cli(
                    self.args(binary, answer_path, schema_path),
                    prompt,
                    timeout=timeout,
                    scope=scope,
                    cwd=workdir,
                    name=self.name,
                )
            except CLITimeout as err:
                # Logged out or offline, codex retries until killed: say why instead of
                # "took too long".
                if self._logged_out(binary, scope):
                    raise CLINotLoggedIn(self.name, self.login_fix) from err
                stderr = getattr(err.__cause__, "stderr", "") or ""
                if _CODEX_OFFLINE_MARKER in stderr.lower():
                    raise CLIOffline(self.name) from err
                raise
            _check(self.name, result, self.login_fix, lambda: self._logged_out(binary, scope))
            return self._read_answer(answer_path)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def _read_answer(self, path: str) -> str:
        try:
            with open(path, "rb") as f:
                data = f.read(MAX_ANSWER + 1)
        except FileNotFoundError:
            raise EmptyResponse() from None
        if len(data) > MAX_ANSWER:
            raise OutputTooLarge(self.name, MAX_ANSWER)
        return data.decode("utf-8", errors="replace").strip()

    def _logged_out(self, binary: str, scope: CancelScope | None) -> bool:
        """Whether `codex login status` says so (logged-out exec retries instead of failing)."""
        # An API key in the environment lets exec run although `login status` says
        # "Not logged in", so then the status proves nothing.
        if os.environ.get("CODEX_API_KEY") or os.environ.get("OPENAI_API_KEY"):
            return False
        try:
            result = run_cli(
                [binary, *CODEX_LOGIN_STATUS],
                "",
                timeout=VERSION_TIMEOUT,
                scope=scope,
                name=self.name,
            )
        except CoachError:
            return False
        return result.returncode != 0 and "not logged in" in (result.stdout + result.stderr).lower()


class CommandBackend:
    """Any CLI named in ANTIDRIFT_AI_COMMAND: split like a shell, never run by one."""

    name = "command"
    env_var = "ANTIDRIFT_AI_COMMAND"
    tuning = None  # the command names its own model, if any

    def __init__(self, command: str) -> None:
        self.command = command
        self.argv = shlex.split(command)
        if not self.argv or not self.argv[0]:
            raise UnknownBackend(
                "ANTIDRIFT_AI_COMMAND is empty — set it, e.g. to `llm -m gpt-4o-mini`"
            )

    def args(self, binary: str) -> list[str]:
        """The argv for one call: the resolved program, then the command's own arguments."""
        return [binary, *self.argv[1:]]

    def binary(self) -> str | None:
        """The command's program resolved on the current PATH."""
        return shutil.which(self.argv[0])

    def version(self) -> str | None:
        """`<program> --version`, or None when that fails."""
        return _version(self.binary(), self.argv[0])

    def run(
        self,
        prompt: str,
        *,
        timeout: float,
        scope: CancelScope | None = None,
        schema: Mapping[str, object] | None = None,
    ) -> str:
        """Run the command with prompt on stdin; its stdout is the answer (no schema: any
        command may be named, so the prompt alone asks for the JSON)."""
        program = self.argv[0]
        binary = self.binary()
        if binary is None:
            raise CLINotFound(program, "fix ANTIDRIFT_AI_COMMAND")
        result = run_cli(
            self.args(binary),
            prompt,
            timeout=timeout,
            scope=scope,
            max_output=MAX_ANSWER,
            name=program,
        )
        _check(program, result, f"log {program} in")
        return result.stdout.strip()


BACKEND_NAMES = ("claude", "codex", "command")


def new_backend(
    name: str,
    *,
    model: str = "",
    effort: str = DEFAULT_EFFORT,
    claude_bin: str = "",
    codex_bin: str = "",
    command: str = "",
    warm: bool = False,
) -> Backend:
    """The backend `name` names ("" means claude), from values the settings reader checked;
    UnknownBackend for a name with no backend, or the command backend with no command."""
    key = (name or "").strip().lower()
    if key in ("", "claude"):
        tuning = tuning_for(model, effort, CLAUDE_MODEL)
        return ClaudeBackend(claude_bin or None, tuning, warm_up=warm)
    if key == "codex":
        return CodexBackend(codex_bin or None, tuning_for(model, effort, None))
    if key == "command":
        if not command.strip():
            raise UnknownBackend(
                "ANTIDRIFT_AI_BACKEND=command needs ANTIDRIFT_AI_COMMAND, "
                'e.g. ANTIDRIFT_AI_COMMAND="llm -m gpt-4o-mini"'
            )
        try:
            return CommandBackend(command.strip())
        except UnknownBackend:
            raise
        except ValueError as err:  # shlex: unbalanced quotes
            raise UnknownBackend(f"ANTIDRIFT_AI_COMMAND cannot be split: {err}") from err
    raise UnknownBackend(
        f"unknown ANTIDRIFT_AI_BACKEND {name!r} — use one of: {', '.join(BACKEND_NAMES)}"
    )
