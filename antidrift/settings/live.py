"""The running server's settings: the current Settings, and the Settings page's changes.

`update()` validates every change first (nothing is saved when one is refused), refuses a key
the environment sets, writes the saved file atomically, then swaps the current Settings and
tells each subscriber — the runtime takes the new values up for the next commitment.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

from antidrift.core.files import write_whole
from antidrift.settings.kinds import as_text
from antidrift.settings.reader import (
    InvalidSetting,
    SetByEnvironment,
    SettingsError,
    SettingsNotSaved,
    SettingsRefused,
    SettingsUnreadable,
    conflicts,
    read_saved,
    saved_path,
    shown,
)
from antidrift.settings.row import Setting
from antidrift.settings.table import Settings

log = logging.getLogger("antidrift")
Subscriber = Callable[[Settings], None]


class LiveSettings:
    """The Settings a server runs with now, changed only through `update()`. Thread-safe."""

    def __init__(self, settings: Settings, path: Path | None = None) -> None:
        self._settings = settings
        self.path = path or saved_path(settings.data_dir)
        self._subscribers: list[Subscriber] = []
        self._lock = threading.Lock()

    def current(self) -> Settings:
        """The Settings in force now (frozen: hold on to it for a whole commitment)."""
        return self._settings

    def describe(self) -> dict[str, dict[str, object]]:
        """The Settings page's keys: `{key: {"value": …, "source": …}}` (GET /settings.json)."""
        settings = self._settings
        keys = settings.table.page_keys
        return {k: {"value": settings.shown(k), "source": settings.source(k)} for k in keys}

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call `callback(new_settings)` after each update; returns the unsubscribe."""
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock, contextlib.suppress(ValueError):
                self._subscribers.remove(callback)

        return unsubscribe

    def update(self, changes: Mapping[str, object]) -> Settings:
        """Validate, save and apply changes (Settings page keys; None forgets a saved value).

        Every refused change is found at once: InvalidSetting (400) for an unknown key or a
        refused value, SetByEnvironment (409) for a key the environment sets, and more than one
        as SettingsRefused (its `each`); SettingsNotSaved (503) when the file cannot be
        written. In each case nothing is saved and nothing changes.
        """
        with self._lock:
            after, values, forgotten = self._checked(changes)
            self._save(after, changed=set(values) - set(forgotten), forgotten=forgotten)
            self._settings = after
            subscribers = list(self._subscribers)
        for callback in subscribers:
            try:
                callback(after)
            except Exception:  # one subscriber's fault must not hide the change from others
                log.exception("a settings subscriber failed")
        return after

    def check(self, changes: Mapping[str, object]) -> None:
        """What update() would refuse, refused the same way, with nothing saved or changed
        (a Save that does more than save settings checks them first)."""
        with self._lock:
            self._checked(changes)

    def _checked(self, changes: Mapping[str, object]) -> tuple[Settings, dict, set[str]]:
        """The Settings after `changes`, the values parsed and the keys forgotten; every
        refusal raised at once (under the lock)."""
        before = self._settings
        values, forgotten, problems = self._parse(before, changes)
        sources = dict(before.sources)
        for key in values:
            sources[key] = "saved"
        table = before.table
        for key in forgotten:
            values[key] = table.default_of(key)
            sources.pop(key, None)
        after = before.replace(**values, sources=sources)
        merged = {s.key: getattr(after, s.key) for s in table.rows}
        refused = {p.key for p in problems}
        problems += [
            conflict
            for conflict in conflicts(merged, lambda key: _page_label(table.by_key[key]))
            if conflict.key not in refused
        ]
        if problems:
            raise problems[0] if len(problems) == 1 else SettingsRefused(problems)
        return after, values, forgotten

    def _parse(
        self, before: Settings, changes: Mapping[str, object]
    ) -> tuple[dict[str, object], set[str], list[SettingsError]]:
        """The values to save, the keys to forget, and each refusal (one per key)."""
        values: dict[str, object] = {}
        forgotten: set[str] = set()
        problems: list[SettingsError] = []
        table = before.table
        for key, raw in changes.items():
            setting = table.by_key.get(key)
            if setting is None or not setting.page:
                problems.append(
                    InvalidSetting(
                        f"There is no setting {key!r} to change here; these are:"
                        f" {', '.join(table.page_keys)}.",
                        key,
                    )
                )
            elif before.source(key) == "environment":
                problems.append(
                    SetByEnvironment(
                        f"{key} is set by {setting.variable} in the server's environment, which"
                        f" wins over this page: change or unset {setting.variable} and restart.",
                        key,
                    )
                )
            elif raw is None:
                forgotten.add(key)
            else:
                try:
                    values[key] = setting.parse(as_text(raw, setting.kind))
                except (ValueError, TypeError) as exc:
                    message = f"{key}: {shown(raw, kind=setting.kind)} is not accepted; use {exc}."
                    problems.append(InvalidSetting(message, key))
        return values, forgotten, problems

    def _save(self, after: Settings, *, changed: set[str], forgotten: set[str]) -> None:
        """Write the file atomically: a crash leaves the old file or the new, never half.

        A file that cannot be read as settings is the user's to fix: refused (409), left
        byte for byte. A link is written through (the file it names is replaced), never
        replaced by a file of its own."""
        target = Path(os.path.realpath(self.path)) if self.path.is_symlink() else self.path
        try:
            data = read_saved(self.path, after.table)
            if target.exists() and not target.is_file():  # changed since it was read
                raise InvalidSetting(f"{target} is not a regular file: remove it.")
        except InvalidSetting as exc:
            raise SettingsUnreadable(
                f"Nothing was saved: {exc.message[0].lower()}{exc.message[1:]}"
            ) from None
        for key in changed:
            data[key] = after.shown(key)
        for key in forgotten:
            data.pop(key, None)
        text = json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
        try:
            write_atomically(target, text)
        except OSError as exc:
            raise SettingsNotSaved(
                f"The settings could not be saved in {target.parent} ({exc.strerror or exc});"
                " nothing changed."
            ) from None


def write_atomically(path: Path, text: str) -> None:
    """settings.json replaced whole (core/files.py), readable by its owner alone."""
    write_whole(path, text.encode("utf-8"), mode=0o600)


def _page_label(setting: Setting) -> str:
    """A setting as the Settings page names it (one it cannot change: by its variable)."""
    return setting.key if setting.page else setting.variable
