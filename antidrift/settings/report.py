"""What is said about the settings, from the table's rows: `doctor`'s section (every setting,
its value and where it came from), the start's log line and the README's table."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from antidrift.settings.reader import read
from antidrift.settings.row import Table
from antidrift.settings.table import SETTINGS, TABLE, Settings, default_data_dir, default_of


def doctor_lines(
    env: Mapping[str, str], data_dir: str | Path | None = None, table: Table = TABLE
) -> list[str]:
    """One line per setting (a secret masked), then each refused value's sentence."""
    reading = read(env, data_dir=data_dir, table=table)
    refused = {p.key for p in reading.problems if p.key}
    lines = [f"Settings (saved ones in {reading.path}):"]
    width = max(len(setting.variable) for setting in table.rows)  # the values in one column
    for setting in table.rows:
        key = setting.key
        if key in refused:
            value, source = "REFUSED", reading.sources.get(key, _refused_source(setting, env))
        else:
            if key in reading.values:
                value = reading.values[key]
            else:
                value = default_data_dir(env) if key == "data_dir" else setting.default
            value = getattr(setting.kind, "told", setting.kind.show)(value)  # what may print
            source = reading.sources.get(key, "default")
            if setting.secret:
                value = "(set, hidden)" if value else ""
        shown = value if isinstance(value, str) else _json_word(value)
        lines.append(f"  {setting.variable:{width}} {shown or '(empty)':30} {source}")
    lines += [f"refused: {p.message}" for p in reading.problems]
    return lines


def start_line(settings: Settings) -> str:
    """The start's log line: each setting not at its default, with where it came from (a
    secret as set; the data directory and address have their own line)."""
    said = []
    for setting in settings.table.rows:
        source = settings.source(setting.key)
        if source == "default" or setting.key in ("data_dir", "host", "port"):
            continue
        value = "(set)" if setting.secret else _said(setting, getattr(settings, setting.key))
        said.append(f"{setting.key}={value} ({source})")
    return "settings: " + ("; ".join(said) if said else "all at their defaults")


def _said(setting, value: object) -> str:
    shown = getattr(setting.kind, "told", setting.kind.show)(value)
    return shown if isinstance(shown, str) else _json_word(shown)


def _refused_source(setting, env: Mapping[str, str]) -> str:
    return "environment" if setting.given(env) else "saved"


def _json_word(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return f"{value:g}" if isinstance(value, float) else str(value)


def markdown_table() -> str:
    """The README's settings table, made from the one table (a test holds them equal)."""
    rows = [
        "| Variable | Settings page | Default | Accepted | What it does |",
        "|---|---|---|---|---|",
    ]
    for setting in SETTINGS:
        if setting.key == "data_dir":
            default = "`~/.local/share/antidrift` (XDG; macOS: Application Support)"
        else:
            shown = setting.kind.show(default_of(setting.key))
            default = f"`{_json_word(shown)}`" if shown not in ("", ()) else "(empty)"
        page = f"`{setting.key}`" if setting.page else ""
        accepted = setting.accepted.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
        rows.append(f"| `{setting.variable}` | {page} | {default} | {accepted} | {setting.about} |")
    return "\n".join(rows)
