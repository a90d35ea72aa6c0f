"""Sync through a folder another tool carries (Syncthing, Nextcloud, Dropbox, a share): the
files and their format. No store, session or web here; the wing imports only core.

Setting up (the settings give `sync_folder`, `device_name`, the passphrase and `fast` for
`ANTIDRIFT_SYNC_KDF=fast`):

    check_apart(sync_folder, data_dir)        # SyncFolderPlacement: a sentence
    me = device_id(data_dir)                  # random, made once, kept in <data_dir>/sync/
    keys = Keyring(data_dir)                  # <data_dir>/sync/keyring.json, 0600
    unlock(keys, sync_folder, me, passphrase, fast=fast)   # only when a passphrase is given:
                                              # WrongPassphrase (and nothing kept)
    new_id(data_dir)                          # `antidrift sync new-id`

Writing (this device's folder only; every write first checks that no other machine wrote
there: SharedDeviceId):

    clock = HybridClock(me, last=<the greatest stamp kept>)
    writer = DeviceWriter(sync_folder, data_dir, me, keys.get(me), name=device_name)
    writer.append([SyncRecord(me, "commitment:…", clock.now(), "commitment", {...}), ...])
    writer.append([SyncRecord(me, "rule:…", clock.now(), "rule", None)])   # a tombstone
    writer.publish({"state": "active", ...}, clock.now())                  # `now`
    writer.compact()                                # the older segments merged into one

Reading the others (poll at most every 5 s):

    reader = FolderReader(sync_folder, data_dir, me, keys)
    if reader.changed():                            # a few stats, no file opened
        found = reader.read(imported=<SHA-256s of the segments imported before>)
        for segment in found.arrived:               # verified; import each in one batch,
            ... segment.records ... segment.sha256  # keyed by record.key, later hlc wins,
                                                    # then keep segment.sha256
        found.elsewhere  # Elsewhere(device, name, hlc, body, seen_at): each device's `now`
        found.peers      # Peer(id, name, last_seen, segments, records)
        found.skipped    # Skipped(file, why): .to_json() is {"file", "why"}
    clock.merge(record.hlc)                         # for each record taken

Errors (all core.errors.Error, a sentence each): WrongPassphrase, SharedDeviceId,
SyncFolderPlacement; FileProblem (NotAuthentic, Malformed) for a file not taken, which the
reader turns into a `skipped` entry rather than raising.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from antidrift.sync.errors import (
        FileProblem,
        Malformed,
        NotAuthentic,
        SharedDeviceId,
        SyncFolderPlacement,
        WrongPassphrase,
    )
    from antidrift.sync.folder import check_apart, is_leftover
    from antidrift.sync.hlc import HybridClock, Stamp
    from antidrift.sync.identity import device_id, new_id
    from antidrift.sync.keyring import KeyEntry, Keyring, unlock
    from antidrift.sync.reader import Arrived, Elsewhere, FolderReader, Found, Peer, Skipped
    from antidrift.sync.records import SyncRecord, newest
    from antidrift.sync.writer import DeviceWriter

# Each name is its module's, loaded at its first use (PEP 562): a server with no sync folder
# needs only this machine's identity (identity.py, folder.py), never the reader, the writer,
# the records or the keys (issue 40: the footprint). Each import is spelled out (no module
# is loaded by a name in a string: tests/unit/test_imports.py).
_ERRORS = frozenset(
    {"FileProblem", "Malformed", "NotAuthentic", "SharedDeviceId", "SyncFolderPlacement"}
    | {"WrongPassphrase"}
)
_READER = frozenset({"Arrived", "Elsewhere", "FolderReader", "Found", "Peer", "Skipped"})


def __getattr__(name: str) -> Any:
    if name in _ERRORS:
        from antidrift.sync import errors as module
    elif name in ("check_apart", "is_leftover"):
        from antidrift.sync import folder as module
    elif name in ("HybridClock", "Stamp"):
        from antidrift.sync import hlc as module
    elif name in ("device_id", "new_id"):
        from antidrift.sync import identity as module
    elif name in ("KeyEntry", "Keyring", "unlock"):
        from antidrift.sync import keyring as module
    elif name in _READER:
        from antidrift.sync import reader as module
    elif name in ("SyncRecord", "newest"):
        from antidrift.sync import records as module
    elif name == "DeviceWriter":
        from antidrift.sync import writer as module
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(module, name)
    return value


__all__ = [
    "Arrived",
    "DeviceWriter",
    "Elsewhere",
    "FileProblem",
    "FolderReader",
    "Found",
    "HybridClock",
    "KeyEntry",
    "Keyring",
    "Malformed",
    "NotAuthentic",
    "Peer",
    "SharedDeviceId",
    "Skipped",
    "Stamp",
    "SyncFolderPlacement",
    "SyncRecord",
    "WrongPassphrase",
    "check_apart",
    "device_id",
    "is_leftover",
    "new_id",
    "newest",
    "unlock",
]
