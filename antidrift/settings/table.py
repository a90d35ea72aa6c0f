"""The one table of settings, and the frozen Settings the app receives.

Each setting is listed once: its key (the Settings page's name), its ANTIDRIFT_* variable,
what it accepts, and a line in plain words. Its default is the Settings field's default.

Not settings, so not here: ANTIDRIFT_REQUIRE_REAL and _BROWSER (tests/support/require.py:
CI fails rather than skips without a real component), ANTIDRIFT_CLI_CACHE and _AXE_CACHE
(where scripts/install-clis and scripts/install-axe keep downloads) are test and build
hooks, read where they are used and never by the app.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from antidrift.ai.backends import names as backend_names
from antidrift.ai.backends.ollama import DEFAULT_URL as DEFAULT_OLLAMA_URL
from antidrift.evidence.activitywatch import DEFAULT_URL as DEFAULT_AW_URL
from antidrift.evidence.choose import MODES as WINDOW_SOURCES
from antidrift.notify import NOTIFY_MODES
from antidrift.settings.kinds import (
    Calendars,
    Choice,
    Command,
    Flag,
    Folder,
    Model,
    Names,
    Number,
    Pattern,
    PrivatePattern,
    Tasks,
    Text,
    Url,
)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7717
# The closed sets an adapter's registry owns are its own words, not restated here.
BACKENDS = backend_names()
EFFORTS = ("low", "medium", "high", "default")
SOURCES = ("default", "saved", "environment", "command line")
# No setting needs more (a path, a pattern, a command line); a longer one is a paste gone
# wrong, or an attempt to fill the log and the page.
MAX_VALUE = 2000


@dataclass(frozen=True)
class Setting:
    """One row of the table. `page`: changeable on the Settings page (and saved)."""

    key: str
    variable: str
    kind: object  # a kind from settings.kinds: accepted, parse(text), show(value)
    about: str
    page: bool = False
    secret: bool = False

    @property
    def accepted(self) -> str:
        return self.kind.accepted

    def parse(self, text: str) -> object:
        """The typed value of a text (an environment value, a form field, the saved file's);
        ValueError with what is accepted."""
        if len(text) > MAX_VALUE:
            raise ValueError(f"{self.accepted} (at most {MAX_VALUE:,} characters)")
        return self.kind.parse(text)

    def given(self, env: Mapping[str, str]) -> str:
        """What the environment sets it to: its variable's text, stripped ("" when unset)."""
        return (env.get(self.variable) or "").strip()


SETTINGS: tuple[Setting, ...] = (
    # -- the server --
    Setting(
        "data_dir",
        "ANTIDRIFT_DATA_DIR",
        Folder(),
        "Where the database, backups and saved settings live.",
    ),
    Setting(
        "host",
        "ANTIDRIFT_HOST",
        Text("a host name or IP address", r"[A-Za-z0-9._:\[\]-]{1,253}"),
        "The address the server listens on (loopback unless serve gets --allow-remote).",
    ),
    Setting(
        "port",
        "ANTIDRIFT_PORT",
        Number(1, 65535, whole=True),
        "The port the server listens on (--port wins).",
    ),
    Setting(
        "allowed_hosts",
        "ANTIDRIFT_ALLOWED_HOSTS",
        Names(),
        "More host names the page may be opened under, besides loopback and localhost.",
    ),
    Setting(
        "backups",
        "ANTIDRIFT_BACKUPS",
        Number(0, 1000, whole=True),
        "How many daily database backups to keep; 0 turns backups off.",
    ),
    # -- the AI --
    Setting(
        "ai_backend",
        "ANTIDRIFT_AI_BACKEND",
        Choice(BACKENDS),
        "Which AI coaches, judges drift and reflects.",
        page=True,
    ),
    Setting(
        "ai_model",
        "ANTIDRIFT_AI_MODEL",
        Model(),
        "The model to ask; empty: the backend's usual one (claude: haiku);"
        " default: the CLI's own choice.",
        page=True,
    ),
    Setting(
        "ai_effort",
        "ANTIDRIFT_AI_EFFORT",
        Choice(EFFORTS),
        "How hard the model thinks; default leaves it to the CLI.",
        page=True,
    ),
    Setting(
        "ai_timeout",
        "ANTIDRIFT_AI_TIMEOUT",
        Number(0, 3600, above=True),
        "How long one AI call may take, in seconds.",
    ),
    Setting(
        "ai_command",
        "ANTIDRIFT_AI_COMMAND",
        Command("llm -m gpt-4o-mini"),
        "The command the 'command' backend runs, prompt on its input.",
    ),
    Setting(
        "claude_bin",
        "ANTIDRIFT_CLAUDE_BIN",
        Text(),
        "The claude program to run, when it is not the one on PATH.",
    ),
    Setting(
        "codex_bin",
        "ANTIDRIFT_CODEX_BIN",
        Text(),
        "The codex program to run, when it is not the one on PATH.",
    ),
    Setting(
        "ai_warm",
        "ANTIDRIFT_AI_WARM",
        Flag(),
        "Keep one claude started while planning, so Sharpen answers at once (costs memory).",
    ),
    Setting(
        "ai_url",
        "ANTIDRIFT_AI_URL",
        Url("http://127.0.0.1:8080/v1"),
        "The address of the ollama or OpenAI-compatible server (ollama: http://127.0.0.1:11434).",
        page=True,
    ),
    Setting(
        "ai_key",
        "ANTIDRIFT_AI_KEY",
        Text(),
        "The key sent to the OpenAI-compatible server, if it wants one.",
        secret=True,
    ),
    Setting(
        "ai_allow_remote",
        "ANTIDRIFT_AI_ALLOW_REMOTE",
        Flag(),
        "Allow an AI URL on another machine (what you plan and window titles go there).",
    ),
    # -- the drift guard --
    Setting(
        "drift",
        "ANTIDRIFT_DRIFT",
        Choice(("ai", "off")),
        "Whether the AI judges if the focused window fits your commitment.",
        page=True,
    ),
    Setting(
        "drift_grace",
        "ANTIDRIFT_DRIFT_GRACE",
        Number(0, 86400),
        "Seconds off task before a nudge.",
        page=True,
    ),
    Setting(
        "drift_cooldown",
        "ANTIDRIFT_DRIFT_COOLDOWN",
        Number(0, 86400),
        "Seconds between two nudges.",
    ),
    Setting(
        "drift_max_calls",
        "ANTIDRIFT_DRIFT_MAX_CALLS",
        Number(1, 10000, whole=True),
        "At most this many drift judgements an hour.",
    ),
    Setting(
        "enforce",
        "ANTIDRIFT_ENFORCE",
        Choice(("off", "minimize")),
        "Put an off-task window away after an unanswered nudge.",
        page=True,
    ),
    Setting(
        "enforce_after",
        "ANTIDRIFT_ENFORCE_AFTER",
        Number(1, 600, whole=True),
        "Seconds after an unanswered nudge before the window is put away.",
        page=True,
    ),
    # -- notifications --
    Setting(
        "notify",
        "ANTIDRIFT_NOTIFY",
        Choice(NOTIFY_MODES),
        "Desktop notifications: the desktop's own, none, or your command.",
        page=True,
    ),
    Setting(
        "notify_command",
        "ANTIDRIFT_NOTIFY_COMMAND",
        Command("notify-send -a AntiDrift --"),
        "The command that shows a notification (title and text come last).",
        page=True,
    ),
    # -- evidence --
    Setting(
        "window_source",
        "ANTIDRIFT_WINDOW_SOURCE",
        Choice(WINDOW_SOURCES),
        "Where the focused window is read from; auto finds your desktop's.",
        page=True,
    ),
    Setting(
        "evidence_exclude",
        "ANTIDRIFT_EVIDENCE_EXCLUDE",
        Pattern(),
        "Window titles, and apps, matching this pattern are never stored or sent.",
        page=True,
    ),
    Setting(
        "aw_url",
        "ANTIDRIFT_AW_URL",
        Url("http://127.0.0.1:5600", loopback=True),
        "Where ActivityWatch's server answers, on this machine.",
    ),
    Setting(
        "away_after",
        "ANTIDRIFT_AWAY_AFTER",
        Number(0, 240, whole=True),
        "Minutes without keyboard or mouse input before you count as away; 0 turns it off.",
        page=True,
    ),
    Setting(
        "sample_interval",
        "ANTIDRIFT_SAMPLE_INTERVAL",
        Number(0.1, 3600),
        "Seconds between two looks at the focused window.",
    ),
    # -- breaks --
    Setting(
        "break_minutes",
        "ANTIDRIFT_BREAK_MINUTES",
        Number(1, 120, whole=True),
        "The break the closure offers once an outcome is recorded.",
        page=True,
    ),
    Setting(
        "long_break_minutes",
        "ANTIDRIFT_LONG_BREAK_MINUTES",
        Number(1, 120, whole=True),
        "Taken instead after every few met commitments (below).",
        page=True,
    ),
    Setting(
        "long_break_every",
        "ANTIDRIFT_LONG_BREAK_EVERY",
        Number(1, 100, whole=True),
        "Met commitments of a day between two long breaks.",
        page=True,
    ),
    Setting(
        "auto_break",
        "ANTIDRIFT_AUTO_BREAK",
        Flag(),
        "Recording an outcome starts the break, without a click.",
        page=True,
    ),
    # -- tasks --
    Setting("tasks", "ANTIDRIFT_TASKS", Tasks(), "Where planning finds your tasks.", page=True),
    # -- the calendar --
    Setting(
        "calendar",
        "ANTIDRIFT_CALENDAR",
        Calendars(),
        "Calendars to plan around: .ics files or https:// addresses (fetched every 15 min).",
        page=True,
    ),
    Setting(
        "calendar_email",
        "ANTIDRIFT_CALENDAR_EMAIL",
        Text("an email address", r"[^\s@,]+@[^\s@,]+"),
        "Your address in the calendar: events you declined there are not planned around.",
        page=True,
    ),
    # -- outside data --
    Setting(
        "read_deadline",
        "ANTIDRIFT_READ_DEADLINE",
        Number(0.1, 60),
        "Seconds a read of outside data may take in all (a calendar's fetch, its reading).",
    ),
)
BY_KEY: dict[str, Setting] = {s.key: s for s in SETTINGS}
PAGE_KEYS: tuple[str, ...] = tuple(s.key for s in SETTINGS if s.page)


def default_data_dir(env: Mapping[str, str] = os.environ, platform: str = sys.platform) -> Path:
    """The user's data directory: XDG on Linux, Application Support on macOS."""
    home = Path(env.get("HOME") or Path.home())
    if platform == "darwin":
        return home / "Library" / "Application Support" / "AntiDrift"
    if platform.startswith("win"):
        return Path(env.get("APPDATA") or home) / "AntiDrift"
    return Path(env.get("XDG_DATA_HOME") or home / ".local" / "share") / "antidrift"


@dataclass(frozen=True)
class Settings:
    """Every setting's value (the fields are the table's keys) and where each came from."""

    data_dir: Path
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    allowed_hosts: tuple[str, ...] = ()
    backups: int = 7
    ai_backend: str = "claude"
    ai_model: str = ""
    ai_effort: str = "low"
    ai_timeout: float = 60.0
    ai_command: str = ""
    claude_bin: str = ""
    codex_bin: str = ""
    ai_warm: bool = False
    ai_url: str = ""
    ai_key: str = field(default="", repr=False)
    ai_allow_remote: bool = False
    drift: str = "ai"
    drift_grace: float = 60.0
    drift_cooldown: float = 300.0
    drift_max_calls: int = 30
    enforce: str = "off"
    enforce_after: int = 30
    notify: str = "auto"
    notify_command: str = ""
    window_source: str = "auto"
    evidence_exclude: PrivatePattern | None = None
    aw_url: str = DEFAULT_AW_URL
    away_after: int = 3
    sample_interval: float = 5.0
    break_minutes: int = 5
    long_break_minutes: int = 15
    long_break_every: int = 4
    auto_break: bool = False
    tasks: tuple[str, ...] = ()
    calendar: tuple[str, ...] = ()
    calendar_email: str = ""
    read_deadline: float = 5.0
    # The process environment, for what the desktop tells its programs (PATH, DISPLAY, …).
    env: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)
    # key → default | saved | environment | command line; a key not in it is a default.
    sources: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)

    @property
    def database(self) -> Path:
        return self.data_dir / "antidrift.sqlite3"

    @property
    def ai_endpoint(self) -> str:
        """The AI server's URL: ANTIDRIFT_AI_URL, or ollama's own default address."""
        if not self.ai_url and self.ai_backend == "ollama":
            return DEFAULT_OLLAMA_URL
        return self.ai_url

    def source(self, key: str) -> str:
        """Where the value of `key` came from."""
        return self.sources.get(key, "default")

    def shown(self, key: str) -> object:
        """The value of `key` as JSON shows it (a secret is never shown)."""
        setting = BY_KEY[key]
        value = getattr(self, key)
        if setting.secret:
            return "(set, hidden)" if value else ""
        return setting.kind.show(value)

    def replace(self, **changes: object) -> Settings:
        """A copy with some values changed (sources as given in `sources`, if any)."""
        return dataclasses.replace(self, **changes)


def default_of(key: str) -> object:
    """The default value of a setting (data_dir: computed from the environment)."""
    for f in dataclasses.fields(Settings):
        if f.name == key:
            return f.default
    raise KeyError(key)
