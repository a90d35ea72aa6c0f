"""What this device wrote into its own folder, remembered in the data directory
(`sync/written.json`), so a file there that it did not write is caught: the sign of a second
machine with the same device id (a copied data directory), which is never trusted.

Each file has the SHA-256s it may hold (the one written; while a replacement is under way,
that one too, noted before the write, so a crash mid-way is no false alarm) and its stat
after the write, which spares hashing it again while it is unchanged."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from antidrift.core.files import write_whole
from antidrift.core.outside import parse_json
from antidrift.sync.errors import FileProblem, SharedDeviceId
from antidrift.sync.folder import (
    KEYPARAMS,
    LIMITS,
    MANIFEST,
    NOW,
    SEGMENTS,
    STATE,
    device_dir,
    read_bounded,
    relative,
    segment_number,
    sha256,
)

WRITTEN = "written.json"
WRITTEN_MAX_BYTES = 4 << 20


def _stat_key(st: os.stat_result) -> list[int]:
    return [st.st_size, st.st_mtime_ns, st.st_ino]


class WrittenLog:
    """The files this device wrote in its own folder (`<data_dir>/sync/written.json`)."""

    def __init__(self, data_dir: str | Path, device: str) -> None:
        self.path = Path(data_dir) / STATE / WRITTEN
        self.device = device
        self._lock = threading.Lock()
        self.files: dict[str, dict] = self._load()

    def expect(self, name: str, digest: str) -> None:
        """Note, before writing it, that `name` is about to hold `digest`."""
        with self._lock:
            entry = self.files.setdefault(name, {"sha256": [], "stat": None})
            entry["sha256"] = [*entry["sha256"][-1:], digest]
            self._save()

    def settle(self, name: str, digest: str, st: os.stat_result) -> None:
        """`name` now holds `digest` alone, with this stat."""
        with self._lock:
            self.files[name] = {"sha256": [digest], "stat": _stat_key(st)}
            self._save(durable=False)  # lost in a crash: the two digests noted still hold

    def forget(self, names: list[str]) -> None:
        """These files were removed by this device (compacted)."""
        with self._lock:
            for name in names:
                self.files.pop(name, None)
            self._save(durable=False)  # lost in a crash: a file noted but gone is let be

    def _load(self) -> dict[str, dict]:
        if not self.path.exists():
            return {}
        what = "the sync log in the data directory"
        value = parse_json(read_bounded(self.path, what, WRITTEN_MAX_BYTES), what=what)
        if not isinstance(value, dict) or value.get("device") != self.device:
            return {}  # another id's log (a new id was given): this one wrote nothing yet
        files = value.get("files")
        return files if isinstance(files, dict) else {}

    def _save(self, durable: bool = True) -> None:
        data = json.dumps({"format": 1, "device": self.device, "files": self.files})
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_whole(self.path, data.encode(), mode=0o600, durable=durable)


class OwnFolder:
    """The check of this device's own folder against what it wrote (SharedDeviceId)."""

    def __init__(self, sync_folder: Path, data_dir: str | Path, device: str) -> None:
        self.folder = device_dir(sync_folder, device)
        self.data_dir = data_dir
        self.device = device
        self._verified: dict[str, list[int]] = {}  # name -> the stat it was last found good

    def check(self, log: WrittenLog | None = None) -> None:
        """Raise SharedDeviceId for a file of AntiDrift's name in this device's folder that
        this device did not write; sync tools' leftovers and other names are let be."""
        present = self._present()
        if not present:
            return
        files = (log or WrittenLog(self.data_dir, self.device)).files
        for name in present:
            entry = files.get(name)
            if not isinstance(entry, dict):
                raise SharedDeviceId(relative(self.device, name))
            try:
                st = os.stat(self.folder / name)
            except FileNotFoundError:
                continue  # removed meanwhile (compacted)
            if _stat_key(st) in (entry.get("stat"), self._verified.get(name)):
                continue
            limit = LIMITS[name.split("/", 1)[0]]
            try:
                digest = sha256(
                    read_bounded(self.folder / name, relative(self.device, name), limit)
                )
            except FileProblem:
                raise SharedDeviceId(relative(self.device, name)) from None
            if digest not in entry.get("sha256", ()):
                raise SharedDeviceId(relative(self.device, name))
            self._verified[name] = _stat_key(st)

    def _present(self) -> list[str]:
        names = [n for n in (KEYPARAMS, MANIFEST, NOW) if (self.folder / n).is_file()]
        try:
            segments = os.listdir(self.folder / SEGMENTS)
        except (FileNotFoundError, NotADirectoryError):
            segments = []
        names += [f"{SEGMENTS}/{n}" for n in sorted(segments) if segment_number(n) is not None]
        return names
