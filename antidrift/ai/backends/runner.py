"""The shared runner of CLI backends: one call through the app's subprocess seam with its
failures as coach errors, the `--version` question, and finding the program on PATH."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Mapping

from antidrift import process
from antidrift.process import CancelScope, Result

from ..errors import (
    Cancelled,
    CLIFailed,
    CLINotFound,
    CLITimeout,
    CoachError,
    OutputTooLarge,
)
from .base import MAX_ANSWER, Asking

log = logging.getLogger("antidrift.ai")

VERSION_TIMEOUT = 5.0


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
    except process.RunCancelled as err:
        raise Cancelled() from err
    except process.ProgramMissing as err:
        raise CLINotFound(name) from err
    except process.StartFailed as err:
        raise CLIFailed(name) from err
    except process.TooLarge as err:
        log.warning("%s: stdout exceeded %d bytes; killed", name, err.limit)
        raise OutputTooLarge(name, err.limit) from err
    except process.TimedOut as err:
        log.warning("%s: no answer within %g s; killed. stderr: %s", name, timeout, err.stderr)
        raise CLITimeout(timeout) from err


def version_of(binary: str | None, name: str) -> str | None:
    """The first line `<binary> --version` prints, or None when that fails."""
    if binary is None:
        return None
    try:
        result = run_cli([binary, "--version"], "", timeout=VERSION_TIMEOUT, name=name)
    except CoachError:
        return None
    lines = result.stdout.strip().splitlines()
    return lines[0].strip() if result.returncode == 0 and lines else None


class BinaryBackend(Asking):
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
        return version_of(self.binary(), self.name)

    def require_binary(self) -> str:
        """The executable, or CLINotFound naming the setting that fixes it."""
        found = self.binary()
        if found is not None:
            return found
        if self.bin:
            raise CLINotFound(self.name, f"fix {self.env_var} (it names no executable)")
        raise CLINotFound(self.name, f"set {self.env_var}")
