"""The real claude and codex against the loopback stand-in API: throwaway HOME, fake keys,
every other way out to the network refused."""

from __future__ import annotations

import os
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import real_cli
from tests.support.require import need
from tests.support.stand_in_api import StandInAPI


@pytest.fixture
def stand_in() -> Iterator[StandInAPI]:
    """The stand-in API on an ephemeral loopback port, recording every request."""
    with StandInAPI() as api:
        yield api


@pytest.fixture
def dead_port() -> Iterator[int]:
    """A loopback port where every connect is refused."""
    with real_cli.refused_port() as port:
        yield port


@pytest.fixture
def cli_env(tmp_path, monkeypatch, stand_in, dead_port) -> Iterator[dict[str, str]]:
    """This process's environment, as the real CLIs should see it (the backends inherit it)."""
    env = real_cli.isolated_env(tmp_path / "home", dead_port)
    env.update(
        ANTHROPIC_BASE_URL=stand_in.url,
        ANTHROPIC_API_KEY=real_cli.FAKE_KEY,
        CODEX_API_KEY=real_cli.FAKE_KEY,
    )
    for key in list(os.environ):
        if key not in env:
            monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    yield env
    # urllib's default opener keeps the proxies it saw first: drop it with the dead proxy.
    urllib.request.install_opener(None)


@pytest.fixture
def home(cli_env) -> Path:
    """The throwaway HOME the real CLIs run with."""
    return Path(cli_env["HOME"])


@pytest.fixture
def claude_bin(cli_env) -> str:
    """The real claude, installed by scripts/install-clis."""
    path = real_cli.binary("claude")
    need(path, real_cli.INSTALL_HINT)
    return str(path)


@pytest.fixture
def codex_bin(cli_env, stand_in, tmp_path) -> str:
    """The real codex, pointed at the stand-in."""
    path = real_cli.binary("codex")
    need(path, real_cli.INSTALL_HINT)
    return str(real_cli.codex_wrapper(tmp_path / "codex-bin", path, stand_in.url))
