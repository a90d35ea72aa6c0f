"""Sync's shared settings (held by session/syncing.py's Syncing): those whose row says
`shared` go to the other machines through the outbox, and theirs are saved here as the
Settings page saves them — the later change winning, a variable set here still winning here,
never sent back as this machine's own."""

from __future__ import annotations

from collections.abc import Iterable

from antidrift.core.ports import SETTING
from antidrift.settings import LiveSettings, SettingsError
from antidrift.sync import Skipped, Stamp, SyncRecord


class SharedSettings:
    """The shared settings' side of sync, over the store, the unit of work and the settings
    holder (None: none to share)."""

    def __init__(self, store, work, settings: LiveSettings | None) -> None:
        self._store, self._work, self._settings = store, work, settings
        self.applying = False  # a shared setting from another machine is being saved here

    def saved(self) -> list[str]:
        """The shared settings chosen here (saved, not defaults nor variables)."""
        if self._settings is None:
            return []
        current = self._settings.current()
        return [
            row.key
            for row in current.table.rows
            if row.shared and current.source(row.key) == "saved"
        ]

    def changed(self, keys: Iterable[str]) -> bool:
        """Settings saved here (the Settings page): those shared with the other machines
        wait in the outbox, in one change (not while one from another machine is saved).
        Whether any did."""
        if self.applying or self._settings is None:
            return False
        table = self._settings.current().table
        shared = [k for k in keys if k in table.by_key and table.by_key[k].shared]
        if shared:
            with self._work:
                for key in shared:
                    self._store.sync_setting_changed(key)
        return bool(shared)

    def record(self, key: str, device: str, stamp: Stamp) -> SyncRecord:
        """A shared setting as it stands here: its value, or None when it went back to its
        default (the others forget theirs too)."""
        value = None
        if self._settings is not None:
            current = self._settings.current()
            if current.source(key) == "saved":
                value = current.shown(key)
        body = {"key": key, "value": value}
        return SyncRecord(device, f"{SETTING}:{key}", stamp, SETTING, body)

    def take(self, device: str, records: list[SyncRecord]) -> list[Skipped]:
        """Shared settings from another machine, each newer than the one kept: saved here
        (settings.json, as the page saves) unless this machine's environment sets it. What
        was refused, said."""
        skipped = []
        for record in records:
            kept = self._store.sync_stamp(record.id)
            if kept is not None and kept >= str(record.hlc):
                continue
            body = record.body if isinstance(record.body, dict) else {}
            key, value = body.get("key"), body.get("value")
            table = self._settings.current().table if self._settings else None
            row = table.by_key.get(key) if table and isinstance(key, str) else None
            if row is None or not row.shared or record.id != f"{SETTING}:{key}":
                skipped.append(Skipped(f"devices/{device}", "holds a setting that is not shared"))
                continue
            assert self._settings is not None
            if self._settings.current().source(row.key) != "environment":
                self.applying = True
                try:
                    self._settings.update({row.key: value})
                except SettingsError:
                    skipped.append(
                        Skipped(f"devices/{device}", f"holds a value of {row.key} refused here")
                    )
                    continue
                finally:
                    self.applying = False
            with self._work:
                self._store.sync_sent(0, [(record.id, str(record.hlc))])
        return skipped
