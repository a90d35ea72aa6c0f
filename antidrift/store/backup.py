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
keeps the newest `ANTIDRIFT_BACKUPS`. `antidrift restore FILE` refuses while a server
holds the data directory, checks FILE as start-up checks a database, keeps the current
database as `antidrift.sqlite3.before-restore-<timestamp>`, then puts the copy in place.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from antidrift.core.errors import Error
from antidrift.store import check as dbcheck
from antidrift.store import datalock

log = logging.getLogger("antidrift.backup")

FOLDER = "backups"
DATABASE = "antidrift.sqlite3"
EVERY = timedelta(hours=24)
DEFAULT_KEEP = 7
_STAMP = "%Y%m%dT%H%M%SZ"
_NAME = re.compile(r"^antidrift-(\d{8}T\d{6}Z)(?:-(\d+))?\.sqlite3$")
_PARTIAL = ".partial"
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


def backups(where: Path) -> list[Backup]:
    """The backups in a folder, newest first; other files there are not ours and ignored."""
    found = []
    with contextlib.suppress(FileNotFoundError):
        for path in where.iterdir():
            match = _NAME.match(path.name)
            if match and path.is_file():
                made = datetime.strptime(match[1], _STAMP).replace(tzinfo=UTC)
                found.append((made, int(match[2] or 0), path))
    found.sort(reverse=True)
    return [Backup(path, made) for made, _, path in found]


def back_up(database: Path, where: Path, now: datetime) -> Path:
    """Write a checked backup of `database` into `where`; return its path."""
    if not database.is_file() or database.stat().st_size == 0:
        raise BackupError(f"There is no database at {database} yet: nothing to back up.")
    try:
        where.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BackupError(f"Cannot create the backup folder {where}: {exc.strerror}.") from exc
    target = _free_name(where, now)
    partial = target.with_name(target.name + _PARTIAL)
    try:
        _copy(database, partial)
        os.replace(partial, target)  # only a whole, checked copy takes a backup's name
        _sync_folder(where)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return target


def rotate(where: Path, keep: int) -> list[Path]:
    """Remove all but the newest `keep` backups (0 keeps them all); return what went."""
    if keep <= 0:
        return []
    gone = [backup.path for backup in backups(where)[keep:]]
    for path in gone:
        path.unlink(missing_ok=True)
    return gone


def _free_name(where: Path, now: datetime) -> Path:
    base = f"antidrift-{stamp(now)}"
    path, n = where / f"{base}.sqlite3", 1
    while path.exists():  # two backups within a second
        n += 1
        path = where / f"{base}-{n}.sqlite3"
    return path


def _copy(source: Path, target: Path) -> None:
    """Copy a database page by page (one backup step: one consistent snapshot), make the
    copy a single file, check it, and flush it to disk."""
    target.unlink(missing_ok=True)
    try:
        src = dbcheck.open_read_only(source, timeout=10.0)
    except sqlite3.Error as exc:
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
        return f"The disk is full: no backup of {source} was made in {target.parent}."
    return f"Cannot copy {source} to {target.parent}: {reason}."


def _sync_folder(where: Path) -> None:
    with contextlib.suppress(OSError):  # not every file system lets a folder be synced
        fd = os.open(where, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


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

    def due_in(self) -> timedelta:
        """How long until the next backup is due (zero or less: now)."""
        now = self._now()
        if self._retry_at is not None:
            return self._retry_at - now
        newest = next(iter(backups(self.where)), None)
        if newest is None or newest.made > now + self.every:  # none, or the clock went back
            return timedelta(0)
        return newest.made + self.every - now

    def tick(self) -> Path | None:
        """Make a backup if one is due (and rotate); return it. Never raises."""
        if self.due_in() > timedelta(0):
            return None
        began = time.monotonic()
        try:
            made = back_up(self.database, self.where, self._now())
        except (BackupError, OSError, sqlite3.Error) as exc:
            self._retry_at = self._now() + RETRY
            if str(exc) != self._logged:  # a full disk is said once, not every hour
                self._logged = str(exc)
                log.warning("backup failed (tried again in an hour): %s", exc)
            return None
        self._retry_at, self._logged = None, None
        gone = rotate(self.where, self.keep)
        log.info(
            "backup written: %s (%.1f MB in %.1f s%s)",
            made,
            made.stat().st_size / 1e6,
            time.monotonic() - began,
            f"; {len(gone)} older removed" if gone else "",
        )
        return made

    def start(self) -> None:
        """Start the thread (its first tick runs at once)."""
        if self._thread is not None:
            return
        for stale in self.where.glob("*" + _PARTIAL):  # a copy cut short by a stop
            stale.unlink(missing_ok=True)
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


# -- restore --------------------------------------------------------------------------------------


def restore(file: Path, data_dir: Path, now: datetime) -> Path | None:
    """Put a copy of `file` in place of the data directory's database; return where the
    database it replaced is kept (None: there was none). Refuses while a server runs."""
    try:
        lock = datalock.acquire(data_dir)
    except datalock.AlreadyRunning as exc:
        running = str(exc).partition(" Use that one")[0]  # its advice is for a server
        raise BackupError(f"{running} Stop it first: nothing was restored.") from None
    try:
        return _restore(Path(file), Path(data_dir), now)
    finally:
        lock.release()


def _restore(file: Path, data_dir: Path, now: datetime) -> Path | None:
    from antidrift.store.migrations import MIGRATIONS

    database = data_dir / DATABASE
    if not file.is_file():
        raise BackupError(f"{file} is not a file: nothing was restored.")
    if file.stat().st_size == 0:
        raise BackupError(f"{file} is empty: nothing was restored.")
    if database.exists() and file.samefile(database):
        raise BackupError(f"{file} is the database itself: nothing was restored.")
    try:
        dbcheck.inspect(file, [version for version, _, _ in MIGRATIONS], writable=False)
    except dbcheck.UnusableDatabase as exc:
        raise BackupError(f"Nothing was restored. {exc}") from None
    copy = data_dir / f"{DATABASE}.restoring"
    try:
        _copy(file, copy)
    except BaseException:
        copy.unlink(missing_ok=True)
        raise
    kept = data_dir / f"{DATABASE}.before-restore-{stamp(now)}"
    # A WAL or journal left by a killed server belongs to the old database: it goes aside
    # with it, never to be applied to the restored one.
    for suffix in ("-wal", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.replace(f"{database}{suffix}", f"{kept}{suffix}")
    Path(f"{database}-shm").unlink(missing_ok=True)
    had = database.exists()
    if had:
        try:
            os.link(database, kept)  # the old file stays in place until the new one replaces it
        except OSError:
            shutil.copy2(database, kept)
    os.replace(copy, database)
    _sync_folder(data_dir)
    return kept if had else None


# -- the command line -----------------------------------------------------------------------------


def backup_command(parser):  # noqa: ANN001, ANN201 — argparse in, a runner out (commands.py)
    """`antidrift backup [--data-dir DIR]`."""
    parser.add_argument("--data-dir", help="where the database lives (ANTIDRIFT_DATA_DIR)")
    return _backup_now


def restore_command(parser):  # noqa: ANN001, ANN201
    """`antidrift restore FILE [--data-dir DIR]`."""
    parser.add_argument("file", help="the backup to restore (e.g. from <data dir>/backups/)")
    parser.add_argument("--data-dir", help="where the database lives (ANTIDRIFT_DATA_DIR)")
    return _restore_now


def _where(args) -> tuple[Path, int]:  # noqa: ANN001
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
    try:
        data_dir, keep = _where(args)
        database = data_dir / DATABASE
        made = _back_up_held(database)
    except (BackupError, datalock.StoreError) as exc:
        print(f"antidrift: {exc}", file=sys.stderr)
        return 1
    gone = rotate(made.parent, keep)
    print(f"Backed up {database} to {made} ({made.stat().st_size / 1e6:.1f} MB).")
    if gone:
        print(f"Removed {len(gone)} older backup(s): the newest {keep} are kept.")
    return 0


def _back_up_held(database: Path) -> Path:
    """A backup while a server runs (its WAL beside the file), or with the data directory
    held for the copy's few seconds, so no server starts writing under an immutable read."""
    try:
        lock = datalock.acquire(database.parent)
    except datalock.AlreadyRunning:
        return back_up(database, folder(database.parent), datetime.now(UTC))
    try:
        return back_up(database, folder(database.parent), datetime.now(UTC))
    finally:
        lock.release()


def _restore_now(args) -> int:  # noqa: ANN001
    try:
        data_dir, _ = _where(args)
        kept = restore(Path(args.file), data_dir, datetime.now(UTC))
    except (BackupError, datalock.StoreError) as exc:
        print(f"antidrift: {exc}", file=sys.stderr)
        return 2
    print(f"Restored {args.file} into {data_dir / DATABASE}.")
    print(
        f"The database it replaced is kept as {kept}." if kept else "There was no database before."
    )
    return 0
