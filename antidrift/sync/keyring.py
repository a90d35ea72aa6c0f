"""The derived keys, kept in the data directory (`sync/keyring.json`, mode 0600, replaced
whole), so a restart needs no passphrase: device id → its salt, KDF limits and key. The
passphrase itself is never kept.

`unlock` is where a passphrase is used: it makes this device's key the first time, and
derives the key of every other device whose folder is there, all or nothing — a passphrase
that does not open one of them changes nothing and raises WrongPassphrase."""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from antidrift.core.files import write_whole
from antidrift.core.outside import parse_json
from antidrift.sync.crypto import KeyParams, b64, new_key, open_key, params_for, unb64
from antidrift.sync.errors import FileProblem, Malformed
from antidrift.sync.folder import (
    KEYPARAMS,
    LIMITS,
    STATE,
    device_dir,
    other_devices,
    read_bounded,
    relative,
)

KEYRING = "keyring.json"
KEYRING_MAX_BYTES = 1 << 20


@dataclass(frozen=True)
class KeyEntry:
    """One device's key and the parameters it was derived with."""

    salt: bytes
    opslimit: int
    memlimit: int
    key: bytes

    def params(self, device: str) -> KeyParams:
        """The keyparams file for `device`'s folder (the check bound to its id)."""
        return params_for(self.key, self.salt, self.opslimit, self.memlimit, device)

    def fits(self, params: KeyParams) -> bool:
        """Whether this key was derived with those parameters (same salt and limits)."""
        return (params.salt, params.opslimit, params.memlimit) == (
            self.salt,
            self.opslimit,
            self.memlimit,
        )


class Keyring:
    """The keys this machine has derived, in `<data_dir>/sync/keyring.json` (0600)."""

    def __init__(self, data_dir: str | Path) -> None:
        self.path = Path(data_dir) / STATE / KEYRING
        self._lock = threading.Lock()
        self._stat = _stat(self.path)
        self._entries = self._load()

    def refresh(self) -> None:
        """Read the file again if another process (`antidrift sync join`) replaced it."""
        with self._lock:
            if (now := _stat(self.path)) != self._stat:
                self._entries, self._stat = self._load(), now

    def get(self, device: str) -> KeyEntry | None:
        with self._lock:
            return self._entries.get(device)

    def devices(self) -> list[str]:
        with self._lock:
            return sorted(self._entries)

    def put(self, entries: dict[str, KeyEntry]) -> None:
        """Add or replace these devices' keys, and write the keyring whole."""
        with self._lock:
            if (now := _stat(self.path)) != self._stat:  # another process wrote it meanwhile
                self._entries, self._stat = self._load(), now
            merged = {**self._entries, **entries}
            self._write(merged)
            self._entries, self._stat = merged, _stat(self.path)

    def _load(self) -> dict[str, KeyEntry]:
        if not self.path.exists():
            return {}
        what = "the sync keyring in the data directory"
        try:
            value = parse_json(read_bounded(self.path, what, KEYRING_MAX_BYTES), what=what)
            keys = value["keys"] if isinstance(value, dict) else None
            return {
                device: KeyEntry(
                    unb64(k["salt"]), int(k["opslimit"]), int(k["memlimit"]), unb64(k["key"])
                )
                for device, k in keys.items()
            }
        except (KeyError, TypeError, ValueError, AttributeError):
            raise Malformed(
                what, "is damaged: delete it and enter the sync passphrase again"
            ) from None

    def _write(self, entries: dict[str, KeyEntry]) -> None:
        keys = {
            device: {
                "salt": b64(e.salt),
                "opslimit": e.opslimit,
                "memlimit": e.memlimit,
                "key": b64(e.key),
            }
            for device, e in sorted(entries.items())
        }
        data = json.dumps({"format": 1, "keys": keys}, indent=1).encode()
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_whole(self.path, data, mode=0o600)


def unlock(
    keyring: Keyring,
    sync_folder: Path,
    device: str,
    passphrase: str,
    *,
    fast: bool = False,
    peers: bool = True,
) -> list[str]:
    """Use the passphrase: this device's key made if it has none (`fast`: cheap limits, for
    tests), and every other device's key derived from its keyparams, then kept. All or
    nothing: WrongPassphrase if it opens one of them not, and then nothing is kept. The
    device ids whose keys were derived now (this one's included when new). `peers` False:
    this device's own key alone (a machine written with another passphrase must not keep
    this one from syncing with the rest)."""
    found: dict[str, KeyEntry] = {}
    if keyring.get(device) is None:
        params, key = new_key(passphrase, device, fast=fast)
        found[device] = KeyEntry(params.salt, params.opslimit, params.memlimit, key)
    for other in other_devices(sync_folder, device) if peers else ():
        try:
            params = read_keyparams(sync_folder, other)
        except FileProblem:  # not arrived yet, or not readable: the reader will say so
            continue
        known = keyring.get(other)
        if known is not None and known.fits(params):
            continue
        key = open_key(passphrase, other, params)
        found[other] = KeyEntry(params.salt, params.opslimit, params.memlimit, key)
    if found:
        keyring.put(found)
    return sorted(found)


def read_keyparams(sync_folder: Path, device: str) -> KeyParams:
    """A device's keyparams file, read bounded and checked (a FileProblem otherwise)."""
    what = relative(device, KEYPARAMS)
    data = read_bounded(device_dir(sync_folder, device) / KEYPARAMS, what, LIMITS[KEYPARAMS])
    return KeyParams.from_bytes(data, what)


def _stat(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)
