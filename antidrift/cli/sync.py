"""`antidrift sync join | new-id | status`: this machine and the sync folder, from a terminal.

`join` asks for the passphrase (twice, the first time any machine uses the folder) and keeps
the keys it derives in the data directory (never the passphrase): a running server takes them
up at its next look. `new-id` gives this machine a new random id (a copied data directory made
two share one). `status` says what the folder holds. Each reads the settings as a start does.
"""

from __future__ import annotations

import argparse
import getpass
from pathlib import Path

from antidrift.core.terminal import say
from antidrift.settings import load
from antidrift.sync import Keyring, check_apart, device_id, new_id, unlock
from antidrift.sync.crypto import MIN_PASSPHRASE


def sync_command(parser: argparse.ArgumentParser):  # noqa: ANN201 — a runner (commands.py)
    parser.add_argument("action", choices=("join", "new-id", "status"), help="what to do")
    parser.add_argument("--data-dir", help="where the database lives (ANTIDRIFT_DATA_DIR)")
    return run


def run(args: argparse.Namespace, ask=None) -> int:
    """A refusal (a setting, a wrong passphrase, a copied id) is an Error: the command table
    says it and picks the exit code."""
    settings = load(data_dir=args.data_dir)
    data_dir = Path(settings.data_dir)
    if args.action == "new-id":
        fresh = new_id(data_dir)
        say(f"This machine's sync id is now {fresh}; restart the server to use it.")
        return 0
    folder = settings.sync_folder
    if folder is None:
        say("Sync is off: set the sync folder in Settings (or ANTIDRIFT_SYNC_FOLDER).", err=True)
        return 2
    check_apart(folder, data_dir)
    me = device_id(data_dir)
    keys = Keyring(data_dir)
    if args.action == "status":
        return _status(folder, me, keys)
    return _join(folder, me, keys, ask or getpass.getpass, fast=settings.sync_kdf == "fast")


def _join(folder: Path, me: str, keys: Keyring, ask, *, fast: bool) -> int:
    others = _devices(folder) - {me}
    first = not others and keys.get(me) is None
    passphrase = ask("Sync passphrase: ")
    if len(passphrase) < MIN_PASSPHRASE:
        say(f"antidrift: a passphrase of at least {MIN_PASSPHRASE} characters, please.", err=True)
        return 2
    if first and ask("Once more: ") != passphrase:
        say("antidrift: the two passphrases differ; nothing was kept.", err=True)
        return 2
    derived = unlock(keys, folder, me, passphrase, fast=fast)
    known = len([d for d in keys.devices() if d != me])
    say(f"Joined: this machine's key is kept, and the keys of {known} other machine(s).")
    if derived:
        say("A running AntiDrift takes them up within seconds.")
    return 0


def _status(folder: Path, me: str, keys: Keyring) -> int:
    others = sorted(_devices(folder) - {me})
    say(f"Sync folder: {folder}")
    say(f"This machine: {me}{' (no key yet: antidrift sync join)' if keys.get(me) is None else ''}")
    for device in others:
        state = "key kept" if keys.get(device) else "no key (antidrift sync join)"
        say(f"  another machine: {device}: {state}")
    if not others:
        say("  no other machine has written here yet")
    return 0


def _devices(folder: Path) -> set[str]:
    try:
        return {p.name for p in (folder / "antidrift" / "devices").iterdir() if p.is_dir()}
    except OSError:
        return set()
