"""A sync tool that misbehaves, between two machines' own sync folders (issue 42): it carries
one device's files (`antidrift/devices/<id>/…`) from the folder where that device writes to
another machine's folder, the way a flaky engine does — a file torn (half of it now, the
whole at a later round), a file delivered twice, a newer file before an older one (a manifest
before its segments, `now` before the segment it names, an old manifest after a newer one),
and, beside the real files, the conflict copies and temporaries sync tools leave.

Deliveries are by hand, so a test says which misbehaviour happens when; nothing here reads
what the files hold (they are sealed), only their bytes."""

from __future__ import annotations

import os
from pathlib import Path

from antidrift.sync.folder import device_dir, is_leftover

# What the leftovers are called, beside a real file NAME (its directory kept).
LEFTOVER_NAMES = (
    ".syncthing.{name}.tmp",  # Syncthing, receiving: left by a crash mid-copy
    "{name}.sync-conflict-20261205-101010-ABCDEFG",  # Syncthing, a conflict's loser
    "{name} (conflicted copy 2026-12-05)",  # Dropbox
    "{name} (laptop's conflicted copy 2026-12-05)",  # Dropbox, another wording
)


class Copier:
    """Carries device `device`'s files from `source` (a sync folder) to `target` (another)."""

    def __init__(self, source: Path, target: Path, device: str) -> None:
        self.source = device_dir(source, device)
        self.target = device_dir(target, device)
        self.delivered: list[str] = []  # every delivery, in order, duplicates included

    def files(self) -> list[str]:
        """The device's files at the source (names relative to its folder), leftovers and
        temporaries passed over, oldest segment first, then keyparams, manifest, now."""
        names = []
        for path in sorted(self.source.rglob("*")):
            if path.is_file() and not is_leftover(path.name):
                names.append(path.relative_to(self.source).as_posix())
        return sorted(names, key=lambda n: (not n.startswith("segments/"), n))

    def changed(self) -> list[str]:
        """The files whose bytes differ at the target (or are not there yet)."""
        return [n for n in self.files() if self._at(self.target / n) != self.read(n)]

    def segments(self) -> list[str]:
        return [n for n in self.files() if n.startswith("segments/")]

    def read(self, name: str) -> bytes:
        """A file's bytes at the source now (kept by a test to deliver late)."""
        return (self.source / name).read_bytes()

    def deliver(self, name: str, data: bytes | None = None) -> None:
        """`name` whole at the target as Syncthing writes it (a temporary, then a rename):
        the source's bytes now, or `data` (bytes read before: a late delivery)."""
        data = self.read(name) if data is None else data
        path = self.target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".syncthing.{path.name}.tmp")
        temporary.write_bytes(data)
        os.replace(temporary, path)
        self.delivered.append(name)

    def tear(self, name: str) -> None:
        """Half of `name` at the target, written in place (a tool that copies without a
        temporary, caught mid-copy); a later `deliver` writes it whole."""
        data = self.read(name)
        path = self.target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data[: len(data) // 2])

    def carry(self, *names: str, twice: bool = False) -> list[str]:
        """Deliver `names` (all that changed, when none are given), in order; `twice`:
        each delivered a second time (a duplicate). What was delivered."""
        names = names or tuple(self.changed())
        for name in names:
            self.deliver(name)
            if twice:
                self.deliver(name)
        return list(names)

    def leave_leftovers(self) -> dict[Path, bytes]:
        """Beside each of the device's files at the target, the conflict copies and
        temporaries a sync tool leaves (copies of the real bytes, and a half of them);
        {path: bytes} of what was written, to check they are left as they were."""
        left: dict[Path, bytes] = {}
        for name in self.files():
            real = self.target / name
            if not real.is_file():
                continue
            data = real.read_bytes()
            for index, pattern in enumerate(LEFTOVER_NAMES):
                path = real.with_name(pattern.format(name=real.name))
                body = data[: len(data) // 2] if index == 0 else data
                path.write_bytes(body)
                left[path] = body
        return left

    @staticmethod
    def _at(path: Path) -> bytes | None:
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None


def leftovers_beside(folder: Path, device: str) -> dict[Path, bytes]:
    """Conflict copies and a temporary in a device's folder as it is at `folder` (this
    machine's own, say): {path: bytes}."""
    at = device_dir(folder, device)
    left: dict[Path, bytes] = {}
    for name in ("now", "manifest"):
        real = at / name
        if real.is_file():
            for pattern in LEFTOVER_NAMES:
                path = real.with_name(pattern.format(name=name))
                path.write_bytes(real.read_bytes())
                left[path] = real.read_bytes()
    return left


def disturbed(left: dict[Path, bytes]) -> list[Path]:
    """The leftovers that are gone or changed (none, when every one was left alone)."""
    return [path for path, data in left.items() if Copier._at(path) != data]
