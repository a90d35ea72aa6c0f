"""The `antidrift` command as its own process, as a user, a hotkey or a bar runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.server import REPO


def antidrift(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`python -m antidrift *argv` from the repository, this environment with `env` on top."""
    return subprocess.run(
        [sys.executable, "-m", "antidrift", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
        env={**os.environ, **(env or {})},
    )


def on_data(*args: str, data: Path, env: dict[str, str] | None = None) -> tuple[int, str]:
    """`antidrift *args --data-dir data`: its exit status and all it said (out, then err)."""
    done = antidrift(*args, "--data-dir", str(data), env=env)
    return done.returncode, done.stdout + done.stderr
