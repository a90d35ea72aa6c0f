"""Every ANTIDRIFT_* setting: one table, one reader, one frozen Settings, three sources.

`load()` reads them at start-up (default < saved < environment) and refuses a value outside
what a setting accepts with a SettingsError of one line; `LiveSettings` holds the running
server's Settings and applies the Settings page's changes. Nothing else reads ANTIDRIFT_*.
"""

from antidrift.settings.live import LiveSettings, write_atomically
from antidrift.settings.reader import (
    SAVED_NAME,
    InvalidSetting,
    Reading,
    SetByEnvironment,
    SettingsError,
    SettingsNotSaved,
    SettingsRefused,
    SettingsUnreadable,
    data_dir,
    load,
    read,
    saved_path,
)
from antidrift.settings.report import doctor_lines, start_line
from antidrift.settings.row import LIVE_PARTS, Table
from antidrift.settings.table import (
    BACKENDS,
    BY_KEY,
    DEFAULT_HOST,
    DEFAULT_OLLAMA_URL,
    DEFAULT_PORT,
    EFFORTS,
    PAGE_KEYS,
    SETTINGS,
    TABLE,
    Setting,
    Settings,
    default_data_dir,
)

__all__ = [
    "BACKENDS",
    "BY_KEY",
    "DEFAULT_HOST",
    "DEFAULT_OLLAMA_URL",
    "DEFAULT_PORT",
    "EFFORTS",
    "LIVE_PARTS",
    "PAGE_KEYS",
    "SAVED_NAME",
    "SETTINGS",
    "TABLE",
    "InvalidSetting",
    "LiveSettings",
    "Reading",
    "SetByEnvironment",
    "Setting",
    "Settings",
    "SettingsError",
    "SettingsNotSaved",
    "SettingsRefused",
    "SettingsUnreadable",
    "Table",
    "data_dir",
    "default_data_dir",
    "doctor_lines",
    "load",
    "read",
    "saved_path",
    "start_line",
    "write_atomically",
]
