"""Settings as a test's environment would give them, through the one settings reader."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from antidrift import ai, settings
from antidrift.server import adapters


def settings_from_env(env: Mapping[str, str], data_dir: Path | None = None) -> settings.Settings:
    """load() with `env` as the whole environment and a data directory with nothing saved."""
    if data_dir is None:
        data_dir = Path(tempfile.mkdtemp(prefix="antidrift-settings-"))
        atexit.register(shutil.rmtree, data_dir, ignore_errors=True)  # never left in /tmp
    return settings.load(env, data_dir=data_dir)


def backend_from_env(name: str, env: Mapping[str, str]) -> ai.Backend:
    """The backend `name` with the tuning and binaries `env` sets (ANTIDRIFT_* variables)."""
    return adapters.new_backend(settings_from_env(env), name)
