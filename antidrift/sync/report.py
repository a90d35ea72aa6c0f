"""`antidrift doctor`'s sync section: the folder, this machine's id and key, the others and
whether their keys are kept. It changes nothing (no id is made, no file written)."""

from __future__ import annotations

from pathlib import Path

from antidrift.core.errors import Error
from antidrift.sync.errors import FileProblem
from antidrift.sync.folder import DEVICE_ID, STATE, check_apart, devices_dir, read_bounded
from antidrift.sync.identity import ID_FILE
from antidrift.sync.keyring import Keyring


def doctor_lines(sync_folder: Path | None, data_dir: Path) -> list[str]:
    if sync_folder is None:
        return ["sync: off (ANTIDRIFT_SYNC_FOLDER, or the Settings page)"]
    lines = [f"sync folder {sync_folder}:"]
    try:
        check_apart(sync_folder, data_dir)
    except Error as exc:
        return [*lines, f"  refused: {exc.message}"]
    id_file = data_dir / STATE / ID_FILE
    try:  # through the bounded reader, as every file from outside the program
        me = read_bounded(id_file, "the device id", 256).decode("ascii", "replace").strip()
    except FileProblem:
        me = ""
    keys = Keyring(data_dir)
    if not DEVICE_ID.fullmatch(me):
        lines.append("  this machine: no id yet (the first start makes one)")
    else:
        key = "key kept" if keys.get(me) else "no key yet: antidrift sync join"
        lines.append(f"  this machine: {me}, {key}")
    try:
        others = sorted(
            p.name for p in devices_dir(sync_folder).iterdir() if DEVICE_ID.fullmatch(p.name)
        )
    except OSError:
        others = []
    others = [d for d in others if d != me]
    for device in others:
        key = "key kept" if keys.get(device) else "no key: antidrift sync join"
        lines.append(f"  another machine: {device}, {key}")
    if not others:
        lines.append("  no other machine has written here yet")
    return lines
