"""`doctor`'s settings section: every setting, its value and where it came from."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from antidrift.settings.reader import read
from antidrift.settings.table import SETTINGS, default_data_dir, default_of


def doctor_lines(env: Mapping[str, str], data_dir: str | Path | None = None) -> list[str]:
    """One line per setting (a secret masked), then each refused value's sentence."""
    reading = read(env, data_dir=data_dir)
    refused = {p.key for p in reading.problems if p.key}
    lines = [f"Settings (saved ones in {reading.path}):"]
    width = max(len(setting.variable) for setting in SETTINGS)  # the values in one column
    for setting in SETTINGS:
        key = setting.key
        if key in refused:
            value, source = "REFUSED", reading.sources.get(key, _refused_source(setting, env))
        else:
            if key in reading.values:
                value = reading.values[key]
            else:
                value = default_data_dir(env) if key == "data_dir" else default_of(key)
            value = getattr(setting.kind, "told", setting.kind.show)(value)  # what may print
            source = reading.sources.get(key, "default")
            if setting.secret:
                value = "(set, hidden)" if value else ""
        shown = value if isinstance(value, str) else _json_word(value)
        lines.append(f"  {setting.variable:{width}} {shown or '(empty)':30} {source}")
    lines += [f"refused: {p.message}" for p in reading.problems]
    return lines


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
