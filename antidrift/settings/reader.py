"""The one reader of ANTIDRIFT_* variables: default, then the saved file, then the environment.

A value a setting does not accept is a refusal in one line naming the variable (or the saved
file and key), the value and what is accepted — never a warning that runs on with something
the user did not ask for (ANTIDRIFT_DRIFT=of once kept sending window titles to the AI).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from antidrift.core.errors import Error
from antidrift.core.loopback import is_loopback
from antidrift.core.outside import Unreadable, Why, parse_json, read_file
from antidrift.settings.kinds import as_text
from antidrift.settings.row import Setting, Table
from antidrift.settings.table import BY_KEY, TABLE, Settings, default_data_dir

log = logging.getLogger("antidrift")
SAVED_NAME = "settings.json"
MAX_SAVED_BYTES = 64 * 1024  # the page's keys at their longest fill a few KiB


class SettingsError(Error, ValueError):
    """A setting refused; the message is one sentence that names it and what is accepted.

    `status` is the HTTP status the web layer answers with; `key` the setting, when one.
    """

    status = 400

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key

    @property
    def each(self) -> tuple[SettingsError, ...]:
        """Every refusal this one stands for (one: itself)."""
        return (self,)


class InvalidSetting(SettingsError):
    """A value outside what the setting accepts (or that another setting rules out)."""


class SetByEnvironment(SettingsError):
    """The environment sets this value; the Settings page cannot change it."""

    status = 409


class SettingsRefused(SettingsError):
    """Several changes refused at once: `each` says each with its key; the message says all.
    409 when every one is set by the environment, else 400."""

    def __init__(self, problems: list[SettingsError]) -> None:
        super().__init__(" ".join(p.message for p in problems))
        self.status = 409 if all(p.status == 409 for p in problems) else 400
        self._each = tuple(problems)

    @property
    def each(self) -> tuple[SettingsError, ...]:
        return self._each


class SettingsNotSaved(SettingsError):
    """The saved file could not be written; nothing changed."""

    status = 503


class SettingsUnreadable(SettingsError):
    """The saved file is there but cannot be read as settings: a Save would write over what
    the user has there, so nothing is saved until they fix or remove it."""

    status = 409


@dataclass
class Reading:
    """Every value with its source, and each problem as the one line that refuses it."""

    values: dict[str, object]
    sources: dict[str, str]
    problems: list[SettingsError] = field(default_factory=list)
    saved: dict[str, object] = field(default_factory=dict)  # the file's JSON, as read
    path: Path | None = None


def saved_path(data_dir: Path) -> Path:
    """Where the Settings page's choices are kept."""
    return data_dir / SAVED_NAME


def data_dir(env: Mapping[str, str] | None = None, flag: str | Path | None = None) -> Path:
    """The data directory alone (--data-dir, else ANTIDRIFT_DATA_DIR, else the default), for
    commands that only need to find it (status, backup) and must not refuse other settings."""
    env = os.environ if env is None else env
    chosen = flag or BY_KEY["data_dir"].given(env)
    return Path(chosen).expanduser() if chosen else default_data_dir(env)


def read(
    env: Mapping[str, str] | None = None,
    *,
    data_dir: str | Path | None = None,
    overrides: Mapping[str, object] | None = None,
    table: Table = TABLE,
) -> Reading:
    """Read every setting without raising: doctor shows the problems, load() refuses them."""
    env = os.environ if env is None else env
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    if data_dir is not None:
        overrides["data_dir"] = Path(data_dir).expanduser()
    values: dict[str, object] = {}
    sources: dict[str, str] = {}
    problems: list[SettingsError] = []

    def take(setting: Setting, saved: Mapping[str, object], path: Path | None) -> None:
        key, text = setting.key, setting.given(env)
        if text:
            # Checked even when a flag overrides it: one rule for every value given.
            try:
                values[key], sources[key] = setting.parse(text), "environment"
            except ValueError as exc:
                problems.append(InvalidSetting(_env_refusal(setting, text, exc), key))
        if key in overrides:
            values[key], sources[key] = overrides[key], "command line"
        elif key in saved and not text and setting.page:
            try:
                values[key] = setting.parse(as_text(saved[key], setting.kind))
                sources[key] = "saved"
            except (ValueError, TypeError) as exc:
                quoted = shown(saved[key], kind=setting.kind)
                message = (
                    f"{path} says {key}={quoted}, which is not accepted: use {exc}."
                    f" Fix or remove it there, or set {setting.variable}."
                )
                problems.append(InvalidSetting(message, key))

    take(table.by_key["data_dir"], {}, None)
    if "data_dir" not in values:
        values["data_dir"] = default_data_dir(env)
    path = saved_path(values["data_dir"])  # type: ignore[arg-type]
    try:
        saved = read_saved(path, table)
    except SettingsError as exc:
        problems.append(exc)
        saved = {}
    for setting in table.rows:
        if setting.key != "data_dir":
            take(setting, saved, path)
    if not problems:
        merged = {s.key: values.get(s.key, s.default) for s in table.rows}
        problems += conflicts(merged, lambda key: table.by_key[key].variable)
    return Reading(values, sources, problems, saved, path)


def load(
    env: Mapping[str, str] | None = None,
    *,
    data_dir: str | Path | None = None,
    overrides: Mapping[str, object] | None = None,
    table: Table = TABLE,
) -> Settings:
    """The Settings to run with; SettingsError (one line) for the first refused value."""
    env = os.environ if env is None else env
    reading = read(env, data_dir=data_dir, overrides=overrides, table=table)
    if reading.problems:
        raise reading.problems[0]
    return table.settings(**reading.values, env=dict(env), sources=reading.sources)


def read_saved(path: Path, table: Table = TABLE) -> dict[str, object]:
    """The saved file's settings (none when it does not exist); SettingsError if unreadable.

    Never waits and never reads without bound: opened non-blocking (a FIFO answers at once),
    a regular file only (not /dev/zero behind a link), at most MAX_SAVED_BYTES, and JSON
    nested too deep for the parser is a refusal, not a crash."""
    text = _read_regular(path)
    if text is None:
        return {}
    try:
        data = parse_json(text, what="it")
    except Unreadable as exc:  # "it holds no JSON", "it is nested too deep"
        raise InvalidSetting(
            f"{path} cannot be read as saved settings ({exc.message}): fix it or remove it."
        ) from None
    if not isinstance(data, dict):
        raise InvalidSetting(f"{path} is not a JSON object of settings: fix it or remove it.")
    for key in data:
        if key not in table.page_keys:
            # A newer version's setting, or a hand edit: kept in the file, not used.
            log.warning("%s: %r is not a setting saved from the Settings page; ignored", path, key)
    return data


def _read_regular(path: Path) -> str | None:
    """The text of a regular file of at most MAX_SAVED_BYTES (None: no file), through the one
    bounded reader (core/outside.py); else refused with what to do."""
    try:
        raw = read_file(path, max_bytes=MAX_SAVED_BYTES, what=str(path))
    except Unreadable as exc:
        if exc.why is Why.MISSING:
            if os.path.islink(path):
                raise InvalidSetting(
                    f"{path} is a link to {os.readlink(path)}, which is not there: fix the link"
                    " or remove it."
                ) from None
            return None
        if exc.why is Why.DENIED:
            if not os.access(path.parent, os.X_OK):
                return None  # the data directory itself is unusable: the store's check says
            raise InvalidSetting(
                f"{path} cannot be read: fix its permissions or remove it."
            ) from None
        if exc.why is Why.NOT_REGULAR:
            raise InvalidSetting(
                f"{exc.message}: settings are read only from a file; remove it."
            ) from None
        if exc.why is Why.TOO_LARGE:
            raise InvalidSetting(
                f"{path} is larger than {MAX_SAVED_BYTES // 1024} KiB, more than saved"
                " settings ever are: fix it or remove it."
            ) from None
        raise InvalidSetting(f"{exc.message}: fix it or remove it.") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidSetting(f"{path} is not UTF-8 text: fix it or remove it.") from None


def shown(value: object, limit: int = 60, kind: object = None) -> str:
    """A refused value as a message quotes it: its repr (or its kind's own quote: a calendar
    address by its host), cut short."""
    text = getattr(kind, "quoted", repr)(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def conflicts(values: Mapping[str, object], label: Callable[[str], str]) -> list[InvalidSetting]:
    """Values that are fine alone and refused together; `label` names a setting in the
    words of where it was set (a variable at start-up, a key on the Settings page)."""
    found = []
    backend, model, url = values["ai_backend"], values["ai_model"], values["ai_url"]
    if backend == "ollama" and model in ("", "default"):
        found.append(
            ("ai_model", f"{label('ai_backend')}=ollama needs {label('ai_model')}: the name of"
             " a model ollama has pulled, e.g. llama3.2.")
        )  # fmt: skip
    if backend == "openai" and not url:
        found.append(
            ("ai_url", f"{label('ai_backend')}=openai needs {label('ai_url')}: the server's"
             " address, e.g. http://127.0.0.1:8080/v1.")
        )  # fmt: skip
    if backend == "command" and not values["ai_command"]:
        found.append(
            ("ai_command", f"{label('ai_backend')}=command needs {label('ai_command')}: the"
             " command to run, e.g. llm -m gpt-4o-mini.")
        )  # fmt: skip
    if values["notify"] == "command" and not values["notify_command"]:
        found.append(
            ("notify_command", f"{label('notify')}=command needs {label('notify_command')}:"
             " the command that shows a notification, e.g. notify-send -a AntiDrift --.")
        )  # fmt: skip
    host = urlsplit(str(url)).hostname if url else None
    if host and not is_loopback(host) and not values["ai_allow_remote"]:
        found.append(
            ("ai_url", f"{label('ai_url')}={url!r} is not on this machine: refused, because what"
             f" you plan and your window titles would go there (set {label('ai_allow_remote')}=1"
             " if you mean it).")
        )  # fmt: skip
    folder, data = values.get("sync_folder"), values.get("data_dir")
    if folder is not None and data is not None:
        # Here, not at the top: the sync wing loads only where a sync folder is set, never
        # into gunicorn's arbiter at a start without one (the footprint, issue 40).
        from antidrift.sync import SyncFolderPlacement, check_apart

        try:
            check_apart(Path(str(folder)), Path(str(data)))
        except SyncFolderPlacement as exc:
            found.append(("sync_folder", f"{label('sync_folder')}: {exc.message}"))
    return [InvalidSetting(message, key) for key, message in found]


def _env_refusal(setting: Setting, text: str, exc: Exception) -> str:
    quoted = "(hidden)" if setting.secret else shown(text, kind=setting.kind)
    return f"{setting.variable}={quoted} is not accepted: use {exc}."
