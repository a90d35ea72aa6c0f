"""The real claude and codex npm binaries (pinned, installed by scripts/install-clis), run
against the loopback stand-in API with a throwaway HOME and no way out to the network."""

from __future__ import annotations

import os
import shlex
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CLAUDE_VERSION = "2.1.332"
CODEX_VERSION = "0.171.0"
INSTALL_HINT = "the real claude/codex CLIs are not installed: run scripts/install-clis (npm)"
FAKE_KEY = "sk-fake-key-for-the-stand-in"

# Variables of the outer environment that would point a CLI at a real account or service, or
# choose the coach (ANTIDRIFT_REQUIRE_REAL and ANTIDRIFT_CLI_CACHE stay).
_FOREIGN_PREFIXES = (
    "ANTHROPIC_",
    "CLAUDE_",
    "OPENAI_",
    "CODEX_",
    "ANTIDRIFT_AI_",
    "ANTIDRIFT_CLAUDE_",
    "ANTIDRIFT_CODEX_",
)
_PROXY_NAMES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


def cache_dir() -> Path:
    """Where scripts/install-clis put the packages."""
    return Path(os.environ.get("ANTIDRIFT_CLI_CACHE") or REPO / ".cache" / "clis")


def binary(name: str) -> Path | None:
    """The installed real `claude` or `codex`, or None."""
    path = cache_dir() / "node_modules" / ".bin" / name
    return path if path.exists() and os.access(path, os.X_OK) else None


@contextmanager
def refused_port() -> Iterator[int]:
    """A loopback port that is bound but never listens: every connect is refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def isolated_env(home: Path, dead_port: int, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for a real CLI: a throwaway HOME, nothing of the user's accounts, and
    every proxy variable at a refused loopback port, so any request the CLI makes besides
    the stand-in (update checks, telemetry, plugin syncs) fails without a DNS look-up."""
    env = {
        k: v
        for k, v in (base if base is not None else os.environ).items()
        if not k.startswith(_FOREIGN_PREFIXES) and k not in _PROXY_NAMES
    }
    home.mkdir(parents=True, exist_ok=True)
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        NO_PROXY="127.0.0.1,localhost",
        no_proxy="127.0.0.1,localhost",
    )
    for name in _PROXY_NAMES:
        env[name] = f"http://127.0.0.1:{dead_port}"
    return env


def codex_wrapper(folder: Path, real: Path, api_url: str) -> Path:
    """An executable `codex` that runs the real one pointed at the stand-in.

    codex 0.171.0 ignores OPENAI_BASE_URL (it still calls api.openai.com); its config key
    `openai_base_url`, given with -c, is honoured even under --ignore-user-config."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "codex"
    override = shlex.quote(f'openai_base_url="{api_url}/v1"')
    path.write_text(f'#!/bin/sh\nexec {shlex.quote(str(real))} -c {override} "$@"\n')
    path.chmod(0o755)
    return path
