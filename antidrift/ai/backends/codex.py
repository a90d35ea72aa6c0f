"""codex: `codex exec` in a read-only sandbox, prompt on stdin, answer read from its -o
file in a fresh temp dir."""

from __future__ import annotations

import os
import shutil
import tempfile

from antidrift.process import CancelScope

from ..errors import (
    CLINotLoggedIn,
    CLIOffline,
    CLITimeout,
    CoachError,
    EmptyResponse,
    OutputTooLarge,
)
from .base import DEFAULT_EFFORT, MAX_ANSWER, BackendTuning, Call, Options, schema_text, tuning_for
from .diagnose import check
from .runner import VERSION_TIMEOUT, BinaryBackend, run_cli

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
# codex 0.171.0 with its API unreachable retries for good, saying this on stderr.
_CODEX_OFFLINE_MARKER = "reconnecting... waiting for network"


class CodexBackend(BinaryBackend):
    """codex exec, read-only sandbox, prompt on stdin, answer read from its -o file."""

    name = "codex"
    default_bin = "codex"
    env_var = "ANTIDRIFT_CODEX_BIN"
    login_fix = "run codex login in a terminal"

    def __init__(self, bin: str | None = None, tuning: BackendTuning | None = None) -> None:
        super().__init__(bin)
        self.tuning = tuning or BackendTuning(None, DEFAULT_EFFORT)

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

    def ask(self, call: Call) -> str:
        """Ask codex in a fresh temp dir; the dir (and the files in it) is always removed."""
        binary, scope = self.require_binary(), call.scope
        workdir = tempfile.mkdtemp(prefix="antidrift-codex-")
        try:
            answer_path = os.path.join(workdir, "answer.txt")
            schema_path = None
            if call.schema is not None:
                schema_path = os.path.join(workdir, "schema.json")
                with open(schema_path, "w", encoding="utf-8") as f:
                    f.write(schema_text(call.schema))
            try:
                result = run_cli(
                    self.args(binary, answer_path, schema_path),
                    call.prompt,
                    timeout=call.timeout,
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
            check(self.name, result, self.login_fix, lambda: self._logged_out(binary, scope))
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


def build(options: Options) -> CodexBackend:
    """codex with the settings' binary, model and effort."""
    return CodexBackend(
        options.codex_bin or None, tuning_for(options.ai_model, options.ai_effort, None)
    )
