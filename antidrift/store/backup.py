"""Backups and restore: copies of the database through SQLite's online backup API.

`<data dir>/backups/antidrift-<UTC timestamp>.sqlite3`, each a whole single-file database.
A backup reads the live file through its own read-only connection: in WAL mode a reader
never blocks the server's writers, and one backup step copies every page inside one read
transaction, so the copy is the database as it stood at one moment, whatever the server
writes meanwhile. Nothing here goes through the server's connection or its lock, so no
request waits for a backup. A copy is checked (`quick_check`) before it takes its name:
a half-written or damaged copy is never a backup, and never rotates a good one out.

`antidrift backup` does it on the file directly (server running or not); the server does
it at start when the newest backup is over a day old and every day after (Scheduler), and
keeps the newest `ANTIDRIFT_BACKUPS` (0: all of them, `antidrift backup` included). A
backup named for a time after now (a clock that was wrong) is never the newest and never one
of those kept: it neither stops the daily backup nor rotates a real one out, and it is left
alone. `antidrift restore` is in restore.py.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from antidrift.core.errors import Error
from antidrift.core.files import sync_folder
from antidrift.core.terminal import say
from antidrift.store import check as dbcheck
from antidrift.store import datalock

log = logging.getLogger("antidrift.backup")

FOLDER = "backups"
DATABASE = "antidrift.sqlite3"
EVERY = timedelta(hours=24)
DEFAULT_KEEP = 7
_STAMP = "%Y%m%dT%H%M%SZ"
# ASCII digits only: `\d` alone takes any script's, which int() reads and strptime did not.
_NAME = re.compile(r"^antidrift-(\d{8}T\d{6}Z)(?:-(\d+))?\.sqlite3$", re.ASCII)
_PARTIAL = ".partial"
# What a copy cut short (a kill) leaves: the half copy, and SQLite's files beside it.
_LEFTOVER = re.compile(r"^antidrift-[\dTZ-]+\.sqlite3\.partial(?:-journal|-wal|-shm)?$")
RESTORING = ".restoring"  # restore.py's copy before it takes the database's name
# A backup that failed (a full disk) is tried again this much later, not in a loop.
RETRY = timedelta(hours=1)


class BackupError(Error):
    """A backup or a restore could not be made; the message says why, for people."""


@dataclass(frozen=True)
class Backup:
    """One backup file and when it was made (from its name)."""

    path: Path
    made: datetime


def folder(data_dir: Path) -> Path:
    """Where a data directory's backups live."""
    return Path(data_dir) / FOLDER


def stamp(when: datetime) -> str:
    """A UTC timestamp for a file name: sorts as time does, no characters a shell minds."""
    return when.astimezone(UTC).strftime(_STAMP)


def backups(where: Path, now: datetime | None = None) -> list[Backup]:
    """The backups in a folder, newest first; other files there are not ours and ignored.
    Given `now`, those named for a later time are left out (see dated_after)."""
    return [b for b in _listed(where) if now is None or b.made <= now]


def dated_after(where: Path, now: datetime) -> list[Backup]:
    """Backups named for a time after `now`: a wrong clock made them, or a hand. They are
    never the newest (the daily backup still runs) and never rotated out, nor in."""
    return [b for b in _listed(where) if b.made > now]


def _listed(where: Path) -> list[Backup]:
    found = []
    # A folder that cannot be listed (a file, no permission) has no backups to count; the
    # next backup's attempt says what is wrong with it.
    with contextlib.suppress(OSError):
        for path in where.iterdir():
            match = _NAME.match(path.name)
            if match and path.is_file():
                try:
                    made = _made(match[1])
                except ValueError:  # month 13: not a time, not a backup's name
                    continue
                found.append((made, int(match[2] or 0), path))
    found.sort(reverse=True)
    return [Backup(path, made) for made, _, path in found]


def _made(stamp: str) -> datetime:
    """The time of a name's stamp (_STAMP: eight digits, T, six, Z), or ValueError for one
    that is no time (month 13). Read by hand: strptime loads _strptime (and its ~100 names)
    into a server whose start lists the backups (issue 40: the footprint)."""
    d, t = stamp[:8], stamp[9:15]
    return datetime(
        int(d[:4]), int(d[4:6]), int(d[6:]), int(t[:2]), int(t[2:4]), int(t[4:]), tzinfo=UTC
    )


def clear_leftovers(data_dir: Path) -> list[Path]:
    """Remove what a backup or a restore that was killed left: a half copy (and SQLite's
    journal beside it) never took a backup's or the database's name, so nothing is lost.
    Only while holding the data directory (a server's start, a restore)."""
    data_dir = Path(data_dir)
    found = [
        *(data_dir / f"{DATABASE}{RESTORING}{s}" for s in ("", "-journal", "-wal", "-shm")),
    ]
    with contextlib.suppress(OSError):
        found += [p for p in folder(data_dir).iterdir() if _LEFTOVER.match(p.name)]
    gone = []
    for path in found:
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        except OSError as exc:
            log.info("could not remove %s, left by a backup or restore cut short: %s", path, exc)
            continue
        gone.append(path)
    if gone:
        log.info("removed %d file(s) left by a backup or restore cut short", len(gone))
    return gone


def back_up(database: Path, where: Path, now: datetime) -> Path:
    """Write a checked backup of `database` into `where`; return its path."""
    _require_database(database)
    try:
        where.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise BackupError(
            f"{where} is a file, not a folder: no backup was made. Move it aside, and backups"
            " are made there again."
        ) from None
    except OSError as exc:
        raise BackupError(_os_failed(database, where, exc)) from None
    if not os.access(where, os.W_OK):  # a read-only file system says so even to root
        raise BackupError(_os_failed(database, where, OSError(errno.EACCES, "")))
    target = _free_name(where, now)
    partial = target.with_name(target.name + _PARTIAL)
    try:
        copy_checked(database, partial)
        os.replace(partial, target)  # only a whole, checked copy takes a backup's name
        sync_folder(where)
    except OSError as exc:
        _remove_partial(partial)
        raise BackupError(_os_failed(database, where, exc)) from None
    except BaseException:
        _remove_partial(partial)
        raise
    return target


def _remove_partial(partial: Path) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        with contextlib.suppress(OSError):
            Path(f"{partial}{suffix}").unlink()


def _os_failed(database: Path, where: Path, exc: OSError) -> str:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"The disk is full: no backup of {database} was made in {where}."
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return (
            f"The backup folder {where} is not writable: no backup was made. Fix its"
            " permissions, or move it aside."
        )
    return f"Cannot write a backup in {where} ({exc.strerror or exc}): no backup was made."


def rotate(where: Path, keep: int, *, now: datetime) -> list[Path]:
    """Remove all but the newest `keep` backups dated up to `now` (0 keeps them all);
    return what went. BackupError when one cannot be removed (the rest are)."""
    if keep <= 0:
        return []
    gone, failed = [], None
    for backup in backups(where, now)[keep:]:
        try:
            backup.path.unlink(missing_ok=True)
        except OSError as exc:
            failed = f"Cannot remove the old backup {backup.path} ({exc.strerror}): it is kept."
            continue
        gone.append(backup.path)
    if failed:
        raise BackupError(failed)
    return gone


def _free_name(where: Path, now: datetime) -> Path:
    base = f"antidrift-{stamp(now)}"
    path, n = where / f"{base}.sqlite3", 1
    while path.exists():  # two backups within a second
        n += 1
        path = where / f"{base}-{n}.sqlite3"
    return path


def copy_checked(source: Path, target: Path) -> None:
    """Copy a database page by page (one backup step: one consistent snapshot), make the
    copy a single file, check it, and flush it to disk."""
    target.unlink(missing_ok=True)
    try:
        src = dbcheck.open_read_only(source, timeout=10.0)
    except (sqlite3.Error, OSError) as exc:
        raise BackupError(f"Cannot read the database {source}: {exc}.") from exc
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)
            # The copy carries the source's WAL flag: a backup is one file, so it goes.
            dst.execute("PRAGMA journal_mode=DELETE")
            problems = [row[0] for row in dst.execute("PRAGMA quick_check(5)")]
        finally:
            dst.close()
    except sqlite3.Error as exc:
        raise BackupError(_failed(source, target, str(exc))) from exc
    finally:
        src.close()
    if problems != ["ok"]:
        raise BackupError(f"The copy of {source} is damaged ({problems[0]}): no backup made.")
    with open(target, "rb+") as copy:
        os.fsync(copy.fileno())


def _failed(source: Path, target: Path, reason: str) -> str:
    if "full" in reason:
        return f"The disk is full: no copy of {source} was made in {target.parent}."
    if "malformed" in reason or "not a database" in reason:  # SQLITE_CORRUPT, SQLITE_NOTADB
        return f"The database {source} is damaged ({reason}): no backup made."
    return f"Cannot copy {source} to {target.parent}: {reason}."


# -- the server's daily backup ------------------------------------------------------------------


class Scheduler:
    """Backs the database up when the newest backup is over a day old, on its own thread:
    at start, then whenever a day has passed; keeps the newest `keep`."""

    def __init__(
        self,
        database: Path,
        keep: int = DEFAULT_KEEP,
        *,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        every: timedelta = EVERY,
    ) -> None:
        self.database, self.keep, self.every = Path(database), keep, every
        self.where = folder(self.database.parent)
        self._now = now
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._retry_at: datetime | None = None
        self._logged: str | None = None
        self._said_after: set[str] = set()  # backups dated after now, each said once

    def due_in(self) -> timedelta:
        """How long until the next backup is due (zero or less: now)."""
        now = self._now()
        if self._retry_at is not None:
            return self._retry_at - now
        newest = next(iter(backups(self.where, now)), None)  # one dated after now is none
        if newest is None:
            return timedelta(0)
        return newest.made + self.every - now

    def tick(self) -> Path | None:
        """Make a backup if one is due (and rotate); return it. Never raises."""
        self._say_dated_after()
        if self.due_in() > timedelta(0):
            return None
        began = time.monotonic()
        try:
            made = back_up(self.database, self.where, self._now())
            size = made.stat().st_size
        except (BackupError, OSError, sqlite3.Error) as exc:
            self._retry_at = self._now() + RETRY
            self._say_once(f"backup failed (tried again in an hour): {exc}")
            return None
        self._retry_at, self._logged = None, None
        try:
            gone = rotate(self.where, self.keep, now=self._now())
        except BackupError as exc:
            gone = []
            self._say_once(str(exc))
        log.info(
            "backup written: %s (%.1f MB in %.1f s%s)",
            made,
            size / 1e6,
            time.monotonic() - began,
            f"; {len(gone)} older removed" if gone else "",
        )
        return made

    def _say_once(self, text: str) -> None:
        if text != self._logged:  # a full disk is said once, not every hour
            self._logged = text
            log.warning("%s", text)

    def _say_dated_after(self) -> None:
        for backup in dated_after(self.where, self._now()):
            if backup.path.name not in self._said_after:
                self._said_after.add(backup.path.name)
                log.warning(
                    "%s is named for a time after now (was the clock wrong?): it is not"
                    " counted as the newest backup and never rotated out; remove it if you"
                    " do not need it",
                    backup.path,
                )

    def start(self) -> None:
        """Start the thread (its first tick runs at once)."""
        if self._thread is not None:
            return
        clear_leftovers(self.database.parent)  # a copy cut short by a stop (a no-op after one)
        self._thread = threading.Thread(target=self._run, name="antidrift-backup", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread; a copy under way finishes on its own (its connection is its own)."""
        self._stop.set()

    def _run(self) -> None:
        _background_priority()
        while not self._stop.is_set():
            self.tick()
            # Woken at least hourly: a wall clock that jumped, or a suspended machine, is
            # noticed within the hour.
            wait = min(max(self.due_in().total_seconds(), 60.0), 3600.0)
            self._stop.wait(wait)


def _background_priority() -> None:
    """Let the request threads go first when CPU is short: this thread's nice value goes to
    10 (Linux gives each thread its own; elsewhere nothing changes)."""
    if not sys.platform.startswith("linux"):
        return  # PRIO_PROCESS with a thread id means a thread only on Linux
    with contextlib.suppress(OSError):
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, max(os.getpriority(os.PRIO_PROCESS, tid), 10))


# -- the command line -----------------------------------------------------------------------------


def backup_command(parser):  # noqa: ANN001, ANN201 — argparse in, a runner out (commands.py)
    """`antidrift backup [--data-dir DIR]`."""
    parser.add_argument("--data-dir", help="where the database lives (ANTIDRIFT_DATA_DIR)")
    return _backup_now


def data_settings(args) -> tuple[Path, int]:  # noqa: ANN001
    """The data directory and ANTIDRIFT_BACKUPS, from the one settings reader. Only their
    own refusals stop a backup or a restore: a bad AI setting must not keep a user from
    their history."""
    from antidrift.settings.reader import read
    from antidrift.settings.table import default_of

    reading = read(data_dir=args.data_dir)
    for problem in reading.problems:
        if problem.key in ("data_dir", "backups"):
            raise BackupError(str(problem))
    return Path(reading.values["data_dir"]), int(
        reading.values.get("backups", default_of("backups"))
    )


def _backup_now(args) -> int:  # noqa: ANN001
    _background_priority()  # a server on the same machine goes first
    stop_on_sigterm()
    try:
        data_dir, keep = data_settings(args)
        database = data_dir / DATABASE
        made = _back_up_held(database)
        say(f"Backed up {database} to {made} ({made.stat().st_size / 1e6:.1f} MB).")
        now = datetime.now(UTC)
        for later in dated_after(made.parent, now):
            say(f"Not counted, never rotated out: {later.path} is named for a later time.")
        gone = rotate(made.parent, keep, now=now)
    except (BackupError, datalock.StoreError) as exc:
        say(f"antidrift: {exc}", err=True)
        return 1
    except KeyboardInterrupt:
        say("antidrift: stopped; no half copy is left.", err=True)
        return 130
    except OSError as exc:
        say(f"antidrift: {exc.strerror or exc}: {exc.filename or 'the backup'}.", err=True)
        return 1
    if gone:
        say(f"Removed {len(gone)} older backup(s): the newest {keep} are kept.")
    return 0


def stop_on_sigterm() -> None:
    """A command that copies a database stops on SIGTERM as on Ctrl-C: its half copy is
    removed on the way out (Python's default SIGTERM leaves it)."""
    import signal

    def stop(_signum, _frame) -> None:  # noqa: ANN001
        raise KeyboardInterrupt

    with contextlib.suppress(ValueError):  # not the main thread: nothing to set
        signal.signal(signal.SIGTERM, stop)


def _require_database(database: Path) -> None:
    if not database.is_file() or database.stat().st_size == 0:
        raise BackupError(f"There is no database at {database} yet: nothing to back up.")


def _back_up_held(database: Path) -> Path:
    """A backup while a server runs (its WAL beside the file), or with the data directory
    held for the copy's few seconds, so no server starts writing under an immutable read."""
    _require_database(database)  # first: holding the directory would make it (a typo too)
    try:
        lock = datalock.acquire(database.parent)
    except datalock.AlreadyRunning:
        return back_up(database, folder(database.parent), datetime.now(UTC))
    try:
        clear_leftovers(database.parent)  # held: no other copy is under way
        return back_up(database, folder(database.parent), datetime.now(UTC))
    finally:
        lock.release()
