"""Restore: a checked copy of a backup put in the database's place, the one it replaces kept.

`antidrift restore FILE` refuses while a server holds the data directory, and refuses a FILE
that start-up would not open or whose schema is not whole (check.inspect_restorable): the
live file is then unchanged, byte for byte. The copy is checked again before it takes the
database's name. The database it replaces is kept as
`antidrift.sqlite3.before-restore-<timestamp>` (`-2`, `-3`… within one second: a kept name is
never written over), with its WAL, before anything moves. A restore killed half-way leaves
its copy as `antidrift.sqlite3.restoring`, which the next start or restore removes.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from antidrift.core.files import sync_folder
from antidrift.core.terminal import say
from antidrift.store import check as dbcheck
from antidrift.store import datalock
from antidrift.store.backup import (
    DATABASE,
    RESTORING,
    BackupError,
    clear_leftovers,
    copy_checked,
    data_settings,
    stamp,
    stop_on_sigterm,
)

_WITH = ("-wal", "-journal")  # what belongs to a database beside it (-shm is rebuilt)


def restore(file: Path, data_dir: Path, now: datetime, done: dict | None = None) -> Path | None:
    """Put a copy of `file` in place of the data directory's database; return where the
    database it replaced is kept (None: there was none). Refuses while a server runs.
    `done["swapped"]` turns true once the copy has the database's name."""
    try:
        lock = datalock.acquire(data_dir)
    except datalock.AlreadyRunning as exc:
        running = str(exc).partition(" Use that one")[0]  # its advice is for a server
        raise BackupError(f"{running} Stop it first: nothing was restored.") from None
    try:
        clear_leftovers(data_dir)  # a restore or backup killed before this one
        return _restore(Path(file), Path(data_dir), now, {} if done is None else done)
    finally:
        lock.release()


def _restore(file: Path, data_dir: Path, now: datetime, done: dict) -> Path | None:
    from antidrift.store.migrations import MIGRATIONS

    database = data_dir / DATABASE
    if not file.is_file():
        raise BackupError(f"{file} is not a file: nothing was restored.")
    if file.stat().st_size == 0:
        raise BackupError(f"{file} is empty: nothing was restored.")
    if database.exists() and file.samefile(database):
        raise BackupError(f"{file} is the database itself: nothing was restored.")
    copy = data_dir / f"{DATABASE}{RESTORING}"
    try:
        dbcheck.inspect_restorable(file, MIGRATIONS)
        copy_checked(file, copy)
        dbcheck.inspect_restorable(copy, MIGRATIONS)  # what goes in place, not what was read
    except dbcheck.UnusableDatabase as exc:
        clear_leftovers(data_dir)
        raise BackupError(f"Nothing was restored. {exc}") from None
    except OSError as exc:
        clear_leftovers(data_dir)
        why = exc.strerror or str(exc)
        raise BackupError(f"Cannot copy {file} ({why}): nothing was restored.") from None
    except BaseException:
        clear_leftovers(data_dir)
        raise
    with _no_stop():  # Ctrl-C or SIGTERM waits for these few renames
        try:
            kept = _keep(database, now) if database.exists() else None
        except OSError as exc:
            clear_leftovers(data_dir)
            why = "the disk is full" if exc.errno == errno.ENOSPC else exc.strerror or str(exc)
            raise BackupError(
                f"Cannot keep a copy of {database} ({why}): nothing was restored."
            ) from None
        # A WAL or journal left by a killed server belongs to the old database (kept with it
        # now): never to be applied to the restored one.
        for suffix in (*_WITH, "-shm"):
            Path(f"{database}{suffix}").unlink(missing_ok=True)
        os.replace(copy, database)
        done["swapped"] = True
        sync_folder(data_dir)
    return kept


def _keep(database: Path, now: datetime) -> Path:
    """The current database (and its WAL) under a name no file has: linked, else copied;
    never written over, so two restores in one second both keep what they replaced."""
    base, n = f"{database}.before-restore-{stamp(now)}", 1
    while True:
        kept = Path(base if n == 1 else f"{base}-{n}")
        n += 1
        if any(Path(f"{kept}{s}").exists() for s in ("", *_WITH, "-shm")):
            continue
        try:
            _link_or_copy(database, kept)
        except FileExistsError:
            continue  # taken meanwhile: the next name
        made = [kept]
        try:
            for suffix in _WITH:
                if Path(f"{database}{suffix}").exists():
                    _link_or_copy(Path(f"{database}{suffix}"), Path(f"{kept}{suffix}"))
                    made.append(Path(f"{kept}{suffix}"))
        except OSError:
            for path in made:  # links to (or copies of) what stays in place: nothing lost
                path.unlink(missing_ok=True)
            raise
        return kept


def _link_or_copy(source: Path, target: Path) -> None:
    """A hard link (the old file stays in place until the new one replaces it), else a copy
    made with O_EXCL; FileExistsError when the name is taken, never an overwrite."""
    try:
        os.link(source, target)
        return
    except FileExistsError:
        raise
    except OSError:
        pass  # a file system without hard links
    try:
        with open(source, "rb") as src, open(target, "xb") as dst:
            shutil.copyfileobj(src, dst)
            dst.flush()
            os.fsync(dst.fileno())
    except FileExistsError:
        raise
    except BaseException:
        target.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def _no_stop() -> Iterator[None]:
    """SIGINT and SIGTERM held back for the block (delivered after it)."""
    stops = {signal.SIGINT, signal.SIGTERM}
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


# -- the command line -----------------------------------------------------------------------------


def restore_command(parser):  # noqa: ANN001, ANN201
    """`antidrift restore FILE [--data-dir DIR]`."""
    parser.add_argument("file", help="the backup to restore (e.g. from <data dir>/backups/)")
    parser.add_argument("--data-dir", help="where the database lives (ANTIDRIFT_DATA_DIR)")
    return _restore_now


def _restore_now(args) -> int:  # noqa: ANN001
    stop_on_sigterm()
    done: dict = {}
    try:
        data_dir, _ = data_settings(args)
        kept = restore(Path(args.file), data_dir, datetime.now(UTC), done)
    except (BackupError, datalock.StoreError) as exc:
        say(f"antidrift: {exc}", err=True)
        return 2
    except KeyboardInterrupt:
        if done.get("swapped"):
            say(f"antidrift: stopped, after {args.file} was restored.", err=True)
        else:
            say("antidrift: stopped: nothing was restored, no half copy left.", err=True)
        return 130
    say(f"Restored {args.file} into {data_dir / DATABASE}.")
    say(f"The database it replaced is kept as {kept}." if kept else "There was no database before.")
    return 0
