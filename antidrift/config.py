"""Settings from the environment and command-line flags, with their defaults, in one place."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from antidrift.domain import whole_number

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7717
DEFAULT_AW_URL = "http://127.0.0.1:5600"  # aw-server's own default
# Each open tab holds two threads (pool + websocket reader), a client still sending its request
# head one (at most httpworker.HEADER_TIMEOUT). gunicorn starts them only when needed.
DEFAULT_THREADS = 512


class ConfigError(ValueError):
    """A setting is unusable; the message names the setting and the fix."""


def default_data_dir(env: Mapping[str, str] = os.environ, platform: str = sys.platform) -> Path:
    """The user's data directory: XDG on Linux, Application Support on macOS."""
    home = Path(env.get("HOME") or Path.home())
    if platform == "darwin":
        return home / "Library" / "Application Support" / "AntiDrift"
    if platform.startswith("win"):
        return Path(env.get("APPDATA") or home) / "AntiDrift"
    return Path(env.get("XDG_DATA_HOME") or home / ".local" / "share") / "antidrift"


@dataclass(frozen=True)
class Config:
    data_dir: Path
    ai_backend: str = "claude"
    ai_timeout: float = 60.0
    window_source: str = "auto"
    aw_url: str = DEFAULT_AW_URL
    evidence_exclude: re.Pattern[str] | None = None
    allowed_hosts: tuple[str, ...] = ()
    sample_interval: float = 5.0
    notify: str = "auto"
    notify_command: str = ""
    drift: str = "ai"  # ai | off (ai needs a coach backend)
    drift_grace: float = 60.0
    drift_cooldown: float = 300.0
    drift_max_calls: int = 30
    backups: int = 7  # backups kept (ANTIDRIFT_BACKUPS); 0: no daily backup
    env: Mapping[str, str] = field(default_factory=dict, repr=False)

    @property
    def database(self) -> Path:
        return self.data_dir / "antidrift.sqlite3"

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ, **overrides: object) -> Config:
        data_dir = overrides.pop("data_dir", None) or env.get("ANTIDRIFT_DATA_DIR")
        return cls(
            data_dir=Path(data_dir).expanduser() if data_dir else default_data_dir(env),
            ai_backend=env.get("ANTIDRIFT_AI_BACKEND", "claude").strip().lower() or "claude",
            ai_timeout=_seconds(env.get("ANTIDRIFT_AI_TIMEOUT", "60")),
            window_source=_window_source(env.get("ANTIDRIFT_WINDOW_SOURCE", "")),
            aw_url=_aw_url(env.get("ANTIDRIFT_AW_URL", "")),
            evidence_exclude=_regex(env.get("ANTIDRIFT_EVIDENCE_EXCLUDE", "")),
            allowed_hosts=tuple(
                h.strip().lower()
                for h in env.get("ANTIDRIFT_ALLOWED_HOSTS", "").split(",")
                if h.strip()
            ),
            sample_interval=_seconds(
                env.get("ANTIDRIFT_SAMPLE_INTERVAL", "5"), "ANTIDRIFT_SAMPLE_INTERVAL", least=0.1
            ),
            notify=env.get("ANTIDRIFT_NOTIFY", "auto").strip().lower() or "auto",
            notify_command=env.get("ANTIDRIFT_NOTIFY_COMMAND", ""),
            drift=env.get("ANTIDRIFT_DRIFT", "ai").strip().lower() or "ai",
            drift_grace=_span(env, "ANTIDRIFT_DRIFT_GRACE", "60"),
            drift_cooldown=_span(env, "ANTIDRIFT_DRIFT_COOLDOWN", "300"),
            drift_max_calls=_count(env, "ANTIDRIFT_DRIFT_MAX_CALLS", "30"),
            backups=_count(env, "ANTIDRIFT_BACKUPS", "7", least=0, most=365),
            env=dict(env),
            **overrides,
        )


def _seconds(value: str, name: str = "ANTIDRIFT_AI_TIMEOUT", least: float = 0.0) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise ConfigError(f"{name}={value!r} is not a number of seconds.") from None
    # A floor where a tiny value would be a busy loop (the sampler starts a probe each time).
    if not (least <= seconds <= 3600 and seconds > 0):
        raise ConfigError(f"{name}={value!r} must be between {least:g} and 3600 seconds.")
    return seconds


def _window_source(value: str) -> str:
    from antidrift.evidence.choose import MODES  # the probes' own list of names

    mode = value.strip().lower() or "auto"
    if mode not in MODES:
        raise ConfigError(
            f"ANTIDRIFT_WINDOW_SOURCE={value!r} is not a window source: use one of"
            f" {', '.join(MODES)}."
        )
    return mode


def _aw_url(value: str) -> str:
    url = value.strip().rstrip("/") or DEFAULT_AW_URL
    # urlsplit quietly drops tabs and newlines and keeps spaces; http.client refuses all of
    # them at the first request, which would be a worker that fails to boot, not a sentence.
    if not url.isprintable() or any(c.isspace() for c in url):
        raise ConfigError(
            f"ANTIDRIFT_AW_URL={value!r} contains spaces or control characters: give the URL"
            " of aw-server (e.g. http://127.0.0.1:5600)."
        )
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 — a port that is no number raises here
    except ValueError:
        parts = urlsplit("")
    if parts.username is not None or parts.password is not None:
        # aw-server takes no login, and a password in this URL would reach the log.
        raise ConfigError(
            "ANTIDRIFT_AW_URL holds a user name or password: aw-server takes none; give its"
            " plain URL (e.g. http://127.0.0.1:5600)."
        )
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query:
        raise ConfigError(
            f"ANTIDRIFT_AW_URL={value!r} is not an http URL of aw-server"
            " (e.g. http://127.0.0.1:5600)."
        )
    from antidrift.evidence.activitywatch import is_loopback_host  # the probe's own rule

    if not is_loopback_host(parts.hostname):
        # Whatever answered there would become evidence, and reach the judge.
        raise ConfigError(
            f"ANTIDRIFT_AW_URL={value!r} is not on this machine: AntiDrift reads ActivityWatch"
            " over loopback only (127.0.0.1, ::1 or localhost)."
        )
    return url


def _span(env: Mapping[str, str], name: str, default: str) -> float:
    """A drift guard period: 0 to a day, in seconds."""
    value = env.get(name, default).strip() or default
    try:
        seconds = float(value)
    except ValueError:
        raise ConfigError(f"{name}={value!r} is not a number of seconds.") from None
    if not 0 <= seconds <= 86400:
        raise ConfigError(f"{name}={value!r} must be between 0 and 86400 seconds.")
    return seconds


def _count(
    env: Mapping[str, str], name: str, default: str, least: int = 1, most: int = 10000
) -> int:
    value = env.get(name, default).strip() or default
    count = whole_number(value, least, most, 5)
    if count is None:
        raise ConfigError(f"{name}={value!r} must be a whole number from {least} to {most}.")
    return count


def _regex(value: str) -> re.Pattern[str] | None:
    if not value.strip():
        return None
    try:
        return re.compile(value, re.IGNORECASE)
    except re.error as exc:
        raise ConfigError(
            f"ANTIDRIFT_EVIDENCE_EXCLUDE is not a valid regular expression: {exc}."
        ) from None
