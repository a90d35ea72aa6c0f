"""Two devices over one sync folder in a temp dir: A writes, B reads (cheap KDF limits)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from antidrift.sync import (
    DeviceWriter,
    FolderReader,
    HybridClock,
    Keyring,
    SyncRecord,
    device_id,
    unlock,
)
from antidrift.sync.folder import device_dir

PASSPHRASE = "correct horse battery staple"


@dataclass
class Machine:
    """One device: its data dir, id, keyring and clock."""

    data_dir: Path
    id: str
    keys: Keyring
    clock: HybridClock

    def writer(self, sync_folder: Path, name: str = "") -> DeviceWriter:
        return DeviceWriter(sync_folder, self.data_dir, self.id, self.keys.get(self.id), name)

    def reader(self, sync_folder: Path) -> FolderReader:
        return FolderReader(sync_folder, self.data_dir, self.id, self.keys)

    def record(self, ident: str, body: dict | None, kind: str = "commitment") -> SyncRecord:
        return SyncRecord(self.id, ident, self.clock.now(), kind, body)


def machine(data_dir: Path) -> Machine:
    me = device_id(data_dir)
    return Machine(data_dir, me, Keyring(data_dir), HybridClock(me))


@dataclass
class Pair:
    folder: Path
    a: Machine
    b: Machine
    writer: DeviceWriter
    reader: FolderReader

    @property
    def a_dir(self) -> Path:
        """A's device folder in the sync folder."""
        return device_dir(self.folder, self.a.id)


@pytest.fixture
def passphrase() -> str:
    """The pair's passphrase."""
    return PASSPHRASE


@pytest.fixture
def make_machine():
    """make_machine(data_dir): a device with its own id, keyring and clock."""
    return machine


@pytest.fixture
def pair(tmp_path) -> Pair:
    """A (unlocked, a writer named "laptop") and B (unlocked after A's keyparams exist)."""
    folder = tmp_path / "Sync"
    a, b = machine(tmp_path / "a-data"), machine(tmp_path / "b-data")
    unlock(a.keys, folder, a.id, PASSPHRASE, fast=True)
    writer = a.writer(folder, "laptop")
    writer.check()
    writer.publish({"state": "locked"}, a.clock.now())  # keyparams and `now` are there
    unlock(b.keys, folder, b.id, PASSPHRASE, fast=True)
    return Pair(folder, a, b, writer, b.reader(folder))
