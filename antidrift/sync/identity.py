"""This machine's identity in the sync folder: a random id (128 bits, base32, lower case: 26
letters and digits a file system of any case keeps apart) made at the first start and kept
in the data directory (`sync/device-id`), never derived from the host name. `new_id` gives
this machine a new one, for when a copied data directory made two machines share one."""

from __future__ import annotations

import base64
import os
from pathlib import Path

from antidrift.core.files import write_whole
from antidrift.sync.errors import Malformed
from antidrift.sync.folder import DEVICE_ID, STATE, read_bounded

ID_FILE = "device-id"


def make_id() -> str:
    """A new random device id."""
    return base64.b32encode(os.urandom(16)).decode("ascii").rstrip("=").lower()


def device_id(data_dir: str | Path) -> str:
    """This machine's device id, made and kept the first time it is asked for."""
    path = Path(data_dir) / STATE / ID_FILE
    if not path.exists():
        return _keep(path, make_id())
    what = "the device id in the data directory"
    text = read_bounded(path, what, 256).decode("ascii", errors="replace").strip()
    if not DEVICE_ID.fullmatch(text):
        raise Malformed(what, "is damaged: run `antidrift sync new-id` to make a new one")
    return text


def new_id(data_dir: str | Path) -> str:
    """Give this machine a new device id and return it. Its key stays (the same salt and
    limits, under the new id: no passphrase needed); what it wrote under the old id is the
    other machine's from now on, and read as another device's."""
    from antidrift.sync.keyring import Keyring  # the keys only here: device_id runs at every
    from antidrift.sync.written import WRITTEN  # start, with no sync folder too

    state = Path(data_dir) / STATE
    old = device_id(data_dir) if (state / ID_FILE).exists() else None
    keyring = Keyring(data_dir)
    fresh = make_id()
    entry = keyring.get(old) if old else None
    if entry is not None:
        keyring.put({fresh: entry})
    _keep(state / ID_FILE, fresh)
    (state / WRITTEN).unlink(missing_ok=True)  # the new id has written nothing yet
    return fresh


def _keep(path: Path, device: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_whole(path, (device + "\n").encode("ascii"), mode=0o644)
    return device
