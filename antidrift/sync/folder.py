"""The sync folder's layout, and the two ways a file there is touched: written whole (a
temporary name, flushed, fsynced, renamed) and read bounded (core/outside.py), checked
against its checksum, then opened with its device's key.

    <sync_folder>/antidrift/devices/<device id>/keyparams      salt and KDF limits, in clear
                                               /manifest       sealed: the segments, each
                                                               with its SHA-256
                                               /now            sealed: what it does now
                                               /segments/<n>-<r>.seg   sealed, immutable

Everything else there is not ours to read or remove: what sync tools leave behind
(`.syncthing.*.tmp`, `*.sync-conflict-*`, `* (conflicted copy …)`, `~*`, `.~lock.*#`) is
ignored and left in place."""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
from pathlib import Path

from antidrift.core.outside import Unreadable, read_file
from antidrift.sync.errors import FileProblem, SyncFolderPlacement

ROOT, DEVICES = "antidrift", "devices"
STATE = "sync"  # in the data directory: the device id, the keyring, what this device wrote
KEYPARAMS, MANIFEST, NOW, SEGMENTS = "keyparams", "manifest", "now", "segments"
SEGMENT_NAME = re.compile(r"(\d{8})-([a-z2-7]{8})\.seg")
DEVICE_ID = re.compile(r"[a-z2-7]{26}")

# The most read of each file (bytes on disk); a segment's records unpacked, at most.
LIMITS = {KEYPARAMS: 4 << 10, MANIFEST: 1 << 20, NOW: 64 << 10, SEGMENTS: 32 << 20}
UNPACKED_MAX = 128 << 20

# What sync tools (and an editor, and our own writer mid-write) leave beside the files:
# never read, never removed.
LEFTOVERS = (
    ".syncthing.*.tmp",  # Syncthing, while receiving
    "*.sync-conflict-*",  # Syncthing, a conflict's loser
    "*(*conflicted copy*",  # Dropbox, Nextcloud: "NAME (… conflicted copy …).EXT"
    "*_conflict-*",  # older Nextcloud and ownCloud clients
    "~*",  # Office's ~$NAME, editors' backups
    ".~lock.*#",  # LibreOffice
    ".*.icloud",  # iCloud Drive: not downloaded yet
    ".antidrift-*.tmp",  # another AntiDrift mid-write
    ".st*",  # .stfolder, .stignore, .stversions
    ".DS_Store",
    "desktop.ini",
    "Thumbs.db",
)


def devices_dir(sync_folder: Path) -> Path:
    return Path(sync_folder) / ROOT / DEVICES


def device_dir(sync_folder: Path, device: str) -> Path:
    return devices_dir(sync_folder) / device


def relative(device: str, name: str) -> str:
    """A file's name as the `skipped` list says it: `devices/<id>/<name>`."""
    return f"{DEVICES}/{device}/{name}"


def is_leftover(name: str) -> bool:
    """Whether `name` is what a sync tool or an editor leaves: ignored, never removed."""
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in LEFTOVERS)


def segment_number(name: str) -> int | None:
    """A segment file's sequence number, or None for a name that is not a segment's."""
    match = SEGMENT_NAME.fullmatch(name)
    return int(match[1]) if match else None


def other_devices(sync_folder: Path, own: str) -> list[str]:
    """The device ids with a folder in the sync folder, this device's own left out; names
    that are not a device id (a sync tool's leftover, a stray file) are passed over."""
    try:
        entries = list(os.scandir(devices_dir(sync_folder)))
    except (FileNotFoundError, NotADirectoryError):
        return []
    return sorted(
        e.name
        for e in entries
        if e.name != own and DEVICE_ID.fullmatch(e.name) and e.is_dir(follow_symlinks=True)
    )


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_bounded(path: Path, what: str, limit: int) -> bytes:
    """The file's bytes through core/outside.py's one bounded reader; a FileProblem saying
    why (a missing file "has not arrived yet") otherwise."""
    try:
        return read_file(path, max_bytes=limit, what=what)
    except Unreadable as exc:
        why = exc.message.removeprefix(what).strip()
        raise FileProblem(what, "has not arrived yet" if why == "does not exist" else why) from None


def open_sealed(
    sync_folder: Path, device: str, name: str, key: bytes, *, sha: str | None = None
) -> tuple[bytes, str]:
    """A device's sealed file, read bounded, checked against `sha` (the manifest's SHA-256)
    when given, then opened with the device's key under its own name: (plaintext, SHA-256
    of the file). A FileProblem (NotAuthentic for a key or a name that does not fit)."""
    from antidrift.sync.crypto import unseal  # the device id's check needs none of crypto

    what = relative(device, name)
    limit = LIMITS[name.split("/", 1)[0]]
    data = read_bounded(device_dir(sync_folder, device) / name, what, limit)
    digest = sha256(data)
    if sha is not None and digest != sha:
        raise FileProblem(what, "is not complete yet, or was changed (its checksum differs)")
    try:
        return unseal(key, data, device, name), digest
    except FileProblem as exc:
        raise type(exc)(what, exc.why) from None


def check_apart(sync_folder: str | Path, data_dir: str | Path) -> None:
    """Refuse a sync folder inside the data directory, the data directory inside the sync
    folder, or the two the same (links and `~` resolved): SyncFolderPlacement, a sentence."""
    try:
        sync = Path(sync_folder).expanduser().resolve()
        data = Path(data_dir).expanduser().resolve()
    except (RuntimeError, OSError):  # a link that loops, a home that is not there
        raise SyncFolderPlacement(
            "The sync folder cannot be found from its path (a link that loops back?): choose"
            " a plain folder."
        ) from None
    if sync == data:
        raise SyncFolderPlacement(
            "The sync folder cannot be the data directory: choose a folder of its own that "
            "your sync tool carries."
        )
    if sync.is_relative_to(data):
        raise SyncFolderPlacement(
            "The sync folder cannot be inside the data directory (the live database is "
            "never synced): choose a folder outside it."
        )
    if data.is_relative_to(sync):
        raise SyncFolderPlacement(
            "The data directory cannot be inside the sync folder (a sync tool would carry "
            "the live database and damage it): choose a sync folder outside it."
        )
