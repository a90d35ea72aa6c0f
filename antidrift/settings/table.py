"""The one table of settings, and the frozen Settings the app receives.

Each setting is one row (settings/row.py says what a row holds): the Settings class, the
Settings page, the saved file's keys, `doctor`, the README's table, the start's log and what
a change retunes live are all derived from these rows, and from nothing else.

Not settings, so not here: ANTIDRIFT_REQUIRE_REAL and _BROWSER (tests/support/require.py:
CI fails rather than skips without a real component), ANTIDRIFT_CLI_CACHE and _AXE_CACHE
(where scripts/install-clis and scripts/install-axe keep downloads) are test and build
hooks, read where they are used and never by the app.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from antidrift.core.choices import (
    AI_BACKENDS,
    AW_URL,
    DAY_ENDS,
    NOTIFY_MODES,
    WINDOW_SOURCES,
)
from antidrift.core.choices import OLLAMA_URL as DEFAULT_OLLAMA_URL
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
    Tasks,
    Text,
    TimeOfDay,
    Url,
)
from antidrift.settings.row import Setting, SettingsValues, Table

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7717
# The closed sets of the adapters' words are core/choices.py's, where their registries take
# them too: gunicorn's arbiter reads this table at every start, and loads no adapter for it.
BACKENDS = AI_BACKENDS
EFFORTS = ("low", "medium", "high", "default")
SOURCES = ("default", "saved", "environment", "command line")
SERVER, AI, GUARD, NOTIFY = "The server", "The AI", "The drift guard", "Notifications"
WINDOWS, BREAKS, TASKS, CALENDAR = "Windows and privacy", "Breaks", "Tasks", "The calendar"
SYNC, DAY = "Every machine", "The day"

SETTINGS: tuple[Setting, ...] = (
    Setting(
        "data_dir", "ANTIDRIFT_DATA_DIR", Folder(),
        "Where the database, backups and saved settings live.",
        group=SERVER,
    ),
    Setting(
        "host", "ANTIDRIFT_HOST", Text("a host name or IP address", r"[A-Za-z0-9._:\[\]-]{1,253}"),
        "The address the server listens on (loopback unless serve gets --allow-remote).",
        default=DEFAULT_HOST, group=SERVER,
    ),
    Setting(
        "port", "ANTIDRIFT_PORT", Number(1, 65535, whole=True),
        "The port the server listens on (--port wins).",
        default=DEFAULT_PORT, group=SERVER,
    ),
    Setting(
        "allowed_hosts", "ANTIDRIFT_ALLOWED_HOSTS", Names(),
        "More host names the page may be opened under, besides loopback and localhost.",
        default=(), group=SERVER,
    ),
    Setting(
        "backups", "ANTIDRIFT_BACKUPS", Number(0, 1000, whole=True),
        "How many daily database backups to keep; 0 turns backups off.",
        default=7, group=SERVER,
    ),
    Setting(
        "ai_backend", "ANTIDRIFT_AI_BACKEND", Choice(BACKENDS),
        "Which AI coaches, judges drift and reflects.",
        default="claude", group=AI, label="Which AI", live="coach",
        help="Coaches your plans, judges drift and reflects on a review.",
    ),
    Setting(
        "ai_model", "ANTIDRIFT_AI_MODEL", Model(),
        "The model to ask; empty: the backend's usual one (claude: haiku);"
        " default: the CLI's own choice.",
        default="", group=AI, label="Model", live="coach",
        help="Empty: the backend's usual one (claude: haiku); default: the CLI's own choice.",
    ),
    Setting(
        "ai_effort", "ANTIDRIFT_AI_EFFORT", Choice(EFFORTS),
        "How hard the model thinks; default leaves it to the CLI.",
        default="low", group=AI, label="Effort", live="coach",
    ),
    Setting(
        "ai_timeout", "ANTIDRIFT_AI_TIMEOUT", Number(0, 3600, above=True),
        "How long one AI call may take, in seconds.",
        default=60.0, group=AI,
    ),
    Setting(
        "ai_command", "ANTIDRIFT_AI_COMMAND", Command("llm -m gpt-4o-mini"),
        "The command the 'command' backend runs, prompt on its input.",
        default="", group=AI,
    ),
    Setting(
        "claude_bin", "ANTIDRIFT_CLAUDE_BIN", Text(),
        "The claude program to run, when it is not the one on PATH.",
        default="", group=AI,
    ),
    Setting(
        "codex_bin", "ANTIDRIFT_CODEX_BIN", Text(),
        "The codex program to run, when it is not the one on PATH.",
        default="", group=AI,
    ),
    Setting(
        "ai_warm", "ANTIDRIFT_AI_WARM", Flag(),
        "Keep one claude started while planning, so Sharpen answers at once (costs memory).",
        default=False, group=AI,
    ),
    Setting(
        "ai_url", "ANTIDRIFT_AI_URL", Url("http://127.0.0.1:8080/v1"),
        "The address of the ollama or OpenAI-compatible server (ollama: http://127.0.0.1:11434).",
        default="", group=AI, label="Address of the AI server", live="coach",
        help="Ollama or an OpenAI-compatible server, e.g. http://127.0.0.1:11434 for ollama."
        " Use a model of 3B or more: a smaller one cannot judge drift (it calls everything"
        " on task).",
        applies=lambda v: v("ai_backend") in served_backends(),
    ),
    Setting(
        "ai_key", "ANTIDRIFT_AI_KEY", Text(),
        "The key sent to the OpenAI-compatible server, if it wants one.",
        default="", group=AI, secret=True,
    ),
    Setting(
        "ai_allow_remote", "ANTIDRIFT_AI_ALLOW_REMOTE", Flag(),
        "Allow an AI URL on another machine (what you plan and window titles go there).",
        default=False, group=AI,
    ),
    Setting(
        "drift", "ANTIDRIFT_DRIFT", Choice(("ai", "off")),
        "Whether the AI judges if the focused window fits your commitment.",
        default="ai", group=GUARD, label="Drift guard", live="drift guard",
        # Short: a drop-down cannot wrap, and its help line already says what "On" does.
        words={"ai": "On", "off": "Off"},
    ),
    Setting(
        "drift_grace", "ANTIDRIFT_DRIFT_GRACE", Number(0, 86400),
        "Seconds off task before a nudge.",
        default=60.0, group=GUARD, label="Seconds off task before a nudge", live="drift guard",
        help="A short look elsewhere is no drift; 0 nudges at once.",
        applies=lambda v: v("drift") == "ai",
    ),
    Setting(
        "drift_cooldown", "ANTIDRIFT_DRIFT_COOLDOWN", Number(0, 86400),
        "Seconds between two nudges.",
        default=300.0, group=GUARD,
    ),
    Setting(
        "drift_max_calls", "ANTIDRIFT_DRIFT_MAX_CALLS", Number(1, 10000, whole=True),
        "At most this many drift judgements an hour.",
        default=30, group=GUARD,
    ),
    Setting(
        "enforce", "ANTIDRIFT_ENFORCE", Choice(("off", "minimize")),
        "Put an off-task window away after an unanswered nudge.",
        default="off", group=GUARD, label="After an unanswered nudge", live="drift guard",
        help="Put away: the off-task window is minimized.",
        applies=lambda v: v("drift") == "ai",
        words={"off": "Leave it", "minimize": "Put the window away"},
    ),
    Setting(
        "enforce_after", "ANTIDRIFT_ENFORCE_AFTER", Number(1, 600, whole=True),
        "Seconds after an unanswered nudge before the window is put away.",
        default=30, group=GUARD, label="Seconds before the window is put away",
        live="drift guard", help="Counted from a nudge left unanswered.",
        applies=lambda v: v("drift") == "ai" and v("enforce") == "minimize",
    ),
    Setting(
        "notify", "ANTIDRIFT_NOTIFY", Choice(NOTIFY_MODES),
        "Desktop notifications: the desktop's own, none, or your command.",
        default="auto", group=NOTIFY, label="Notifications", live="notifications",
        help="For a nudge, and when the time is up.",
        words={"auto": "The desktop's own", "off": "None", "command": "My command"},
    ),
    Setting(
        "notify_command", "ANTIDRIFT_NOTIFY_COMMAND", Command("notify-send -a AntiDrift --"),
        "The command that shows a notification (title and text come last).",
        default="", group=NOTIFY, label="Notification command", live="notifications",
        help="The title and text are added at its end, e.g. notify-send -a AntiDrift --",
        applies=lambda v: v("notify") == "command",
    ),
    Setting(
        "window_source", "ANTIDRIFT_WINDOW_SOURCE", Choice(WINDOW_SOURCES),
        "Where the focused window is read from; auto finds your desktop's.",
        default="auto", group=WINDOWS, label="Where the focused window is read from",
        live="window source", help="Auto finds your desktop's.",
    ),
    Setting(
        "evidence_exclude", "ANTIDRIFT_EVIDENCE_EXCLUDE", Pattern(),
        "Window titles, and apps, matching this pattern are never stored or sent.",
        default=None, group=WINDOWS, label="Private window titles", live="private titles",
        help="A pattern, e.g. bank|Passwords: a matching title or app is never stored or sent.",
        shared=True,
    ),
    Setting(
        "aw_url", "ANTIDRIFT_AW_URL", Url("http://127.0.0.1:5600", loopback=True),
        "Where ActivityWatch's server answers, on this machine.",
        default=AW_URL, group=WINDOWS,
    ),
    Setting(
        "away_after", "ANTIDRIFT_AWAY_AFTER", Number(0, 240, whole=True),
        "Minutes without keyboard or mouse input before you count as away; 0 turns it off.",
        default=3, group=WINDOWS, live="away", shared=True,
        label="Minutes without input before you count as away (0: never)",
    ),
    Setting(
        "sample_interval", "ANTIDRIFT_SAMPLE_INTERVAL", Number(0.1, 3600),
        "Seconds between two looks at the focused window.",
        default=5.0, group=WINDOWS,
    ),
    Setting(
        "break_minutes", "ANTIDRIFT_BREAK_MINUTES", Number(1, 120, whole=True),
        "The break the closure offers once an outcome is recorded.",
        default=5, group=BREAKS, label="Break, in minutes", live="breaks", shared=True,
    ),
    Setting(
        "long_break_minutes", "ANTIDRIFT_LONG_BREAK_MINUTES", Number(1, 120, whole=True),
        "Taken instead after every few met commitments (below).",
        default=15, group=BREAKS, label="Long break, in minutes", live="breaks", shared=True,
    ),
    Setting(
        "long_break_every", "ANTIDRIFT_LONG_BREAK_EVERY", Number(1, 100, whole=True),
        "Met commitments of a day between two long breaks.",
        default=4, group=BREAKS, label="Long break after", live="breaks", shared=True,
    ),
    Setting(
        "auto_break", "ANTIDRIFT_AUTO_BREAK", Flag(),
        "Recording an outcome starts the break, without a click.",
        default=False, group=BREAKS, label="Start breaks by themselves", live="breaks",
        shared=True,
    ),
    Setting(
        "tasks", "ANTIDRIFT_TASKS", Tasks(),
        "Where planning finds your tasks.",
        default=(), group=TASKS, label="Task lists to plan from", live="tasks",
        help="Separated by commas, e.g. markdown:/home/you/notes/todo.md, taskwarrior, github"
        " (also todotxt:<path>).",
    ),
    Setting(
        "calendar", "ANTIDRIFT_CALENDAR", Calendars(),
        "Calendars to plan around: .ics files or https:// addresses (fetched every 15 min).",
        default=(), group=CALENDAR, label="Calendars to plan around", live="calendar",
        help=".ics files or https:// addresses, separated by commas; fetched every 15 min.",
    ),
    Setting(
        "calendar_email", "ANTIDRIFT_CALENDAR_EMAIL",
        Text("an email address", r"[^\s@,]+@[^\s@,]+"),
        "Your address in the calendar: events you declined there are not planned around.",
        default="", group=CALENDAR, label="Your address in them", live="calendar",
        help="Events you declined there are left out.",
        applies=lambda v: bool(v("calendar")),
    ),
    Setting(
        "day_ends", "ANTIDRIFT_DAY_ENDS", TimeOfDay(),
        "When your working day ends: the day's queue counts its free minutes until then.",
        default=DAY_ENDS, group=DAY, label="Your day ends", live="day",
        help="The day's queue counts the free minutes until then, the calendar's events left out.",
    ),
    Setting(
        "sync_folder", "ANTIDRIFT_SYNC_FOLDER", Folder(optional=True),
        "A folder Syncthing, Nextcloud, Dropbox, iCloud Drive or a share carries between your"
        " machines; empty: sync is off. Never inside the data directory, nor around it.",
        default=None, group=SYNC, label="Sync folder", live="sync",
        help="A folder another tool carries between your machines (Syncthing, Nextcloud,"
        " Dropbox, a share); empty: off. What goes there is encrypted.",
    ),
    Setting(
        "device_name", "ANTIDRIFT_DEVICE_NAME",
        Text("a name of at most 64 characters", r"[^\x00-\x1f\x7f-\x9f]{1,64}"),
        "What your other machines call this one; empty: its host name.",
        default="", group=SYNC, label="This machine's name", live="sync",
        help="Empty: its host name. Only a name: the machine is told apart by a random id.",
        applies=lambda v: bool(v("sync_folder")),
    ),
    Setting(
        "sync_passphrase_file", "ANTIDRIFT_SYNC_PASSPHRASE_FILE", Text(),
        "A file holding the sync passphrase, read at start and never stored.",
        default="", group=SYNC,
    ),
    Setting(
        "sync_kdf", "ANTIDRIFT_SYNC_KDF", Choice(("normal", "fast")),
        "How the sync key is derived from the passphrase; fast is for tests only.",
        default="normal", group=SYNC,
    ),
    Setting(
        "read_deadline", "ANTIDRIFT_READ_DEADLINE", Number(0.1, 60),
        "Seconds a read of outside data may take in all (a calendar's fetch, its reading).",
        default=5.0, group="Outside data",
    ),
)  # fmt: skip


def served_backends() -> tuple[str, ...]:
    """The backends that ask a model server at ai_url (the AI registry's word, asked when a
    page shows whether that setting applies: never at a start)."""
    from antidrift.ai.backends import served

    return served()


class SettingsBase(SettingsValues):
    """What the app's Settings answers beside its values."""

    @property
    def database(self) -> Path:
        return self.data_dir / "antidrift.sqlite3"  # type: ignore[attr-defined]

    @property
    def ai_endpoint(self) -> str:
        """The AI server's URL: ANTIDRIFT_AI_URL, or ollama's own default address."""
        url, backend = self.ai_url, self.ai_backend  # type: ignore[attr-defined]
        if not url and backend == "ollama":
            return DEFAULT_OLLAMA_URL
        return url


TABLE = Table(SETTINGS, base=SettingsBase)
BY_KEY: dict[str, Setting] = TABLE.by_key
PAGE_KEYS: tuple[str, ...] = TABLE.page_keys
Settings = TABLE.settings  # the frozen values: one field per row, then env and sources
default_of = TABLE.default_of


def default_data_dir(env: Mapping[str, str] = os.environ, platform: str = sys.platform) -> Path:
    """The user's data directory: XDG on Linux, Application Support on macOS."""
    home = Path(env.get("HOME") or Path.home())
    if platform == "darwin":
        return home / "Library" / "Application Support" / "AntiDrift"
    if platform.startswith("win"):
        return Path(env.get("APPDATA") or home) / "AntiDrift"
    return Path(env.get("XDG_DATA_HOME") or home / ".local" / "share") / "antidrift"
