"""Sync's shared settings (a part of session/syncing.py's Syncing): those whose row says
`shared` go to the other machines through the outbox, and theirs are saved here as the
Settings page saves them — the later change winning, a variable set here still winning here,
never sent back as this machine's own."""

from __future__ import annotations

from collections.abc import Iterable

from antidrift.core.ports import SETTING
from antidrift.settings import SettingsError
from antidrift.sync import Skipped, SyncRecord


class SharedSettings:
    """Mixed into Syncing: it provides the store, the unit of work, the clock and the
    settings holder."""

    def _saved_shared(self) -> list[str]:
        if self._settings is None:
            return []
        current = self._settings.current()
        return [
            row.key
            for row in current.table.rows
            if row.shared and current.source(row.key) == "saved"
        ]

    def settings_changed(self, keys: Iterable[str]) -> None:
        """Settings saved here (the Settings page): those shared with the other machines
        wait in the outbox, in one change. Not while one from another machine is saved."""
        if not self.on or self.applying or self._settings is None:
            return
        table = self._settings.current().table
        shared = [k for k in keys if k in table.by_key and table.by_key[k].shared]
        if shared:
            with self._work:
                for key in shared:
                    self._store.sync_setting_changed(key)
            self.wake()

    def _setting_record(self, key: str) -> SyncRecord:
        """A shared setting as it stands here: its value, or None when it went back to its
        default (the others forget theirs too)."""
        assert self._clock is not None
        value = None
        if self._settings is not None:
            current = self._settings.current()
            if current.source(key) == "saved":
                value = current.shown(key)
        body = {"key": key, "value": value}
        return SyncRecord(self.me, f"{SETTING}:{key}", self._clock.now(), SETTING, body)

    def _take_settings(self, device: str, records: list[SyncRecord]) -> None:
        """Shared settings from another machine, each newer than the one kept: saved here
        (settings.json, as the page saves) unless this machine's environment sets it."""
        for record in records:
            kept = self._store.sync_stamp(record.id)
            if kept is not None and kept >= str(record.hlc):
                continue
            body = record.body if isinstance(record.body, dict) else {}
            key, value = body.get("key"), body.get("value")
            table = self._settings.current().table if self._settings else None
            row = table.by_key.get(key) if table and isinstance(key, str) else None
            if row is None or not row.shared or record.id != f"{SETTING}:{key}":
                self._skipped.append(
                    Skipped(f"devices/{device}", "holds a setting that is not shared")
                )
                continue
            assert self._settings is not None
            if self._settings.current().source(row.key) != "environment":
                self.applying = True
                try:
                    self._settings.update({row.key: value})
                except SettingsError:
                    self._skipped.append(
                        Skipped(f"devices/{device}", f"holds a value of {row.key} refused here")
                    )
                    continue
                finally:
                    self.applying = False
            with self._work:
                self._store.sync_sent(0, [(record.id, str(record.hlc))])
