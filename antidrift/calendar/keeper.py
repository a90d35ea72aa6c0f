"""The user's calendars kept fresh off the request path: each file re-read when its mtime
changes, each URL fetched every 15 minutes (and at once when the setting is saved), the last
good copy of a URL kept in the data directory. Pages only read what is in memory."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import stat
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from antidrift.calendar.agenda import Agenda, Event, agenda_of, day_end
from antidrift.calendar.fetch import MAX_BYTES, FetchFailed, fetch
from antidrift.calendar.ics import UnreadableCalendar, events_between
from antidrift.calendar.sources import Source
from antidrift.core.clock import Clock

log = logging.getLogger("antidrift.calendar")

REFRESH = 15 * 60.0  # seconds between two fetches of a URL (and two expansions of a file)
LOOK = 30.0  # seconds between two looks at a file's mtime


@dataclass
class _Kept:
    """What one source gave last: its events, and what to compare to know it changed."""

    events: tuple[Event, ...] = ()
    stamp: tuple[int, int] | None = None  # a file's (mtime_ns, size) when read
    refreshed: float | None = None  # monotonic time of the last fetch or expansion
    problem: str | None = None


class Calendar:
    """The calendars the settings name; `agenda(at)` is cheap and never does I/O."""

    def __init__(
        self,
        cache_dir: Path,
        clock: Clock,
        *,
        fetcher: Callable[[str], bytes] = fetch,
        refresh: float = REFRESH,
        look: float = LOOK,
    ) -> None:
        self.cache_dir = cache_dir
        self._clock = clock
        self._fetch = fetcher
        self._refresh_every, self._look_every = refresh, look
        self._sources: tuple[Source, ...] = ()
        self._email = ""
        self._kept: dict[str, _Kept] = {}
        self._events: tuple[Event, ...] = ()
        self._problem: str | None = None
        self._lock = threading.Lock()  # the kept copies; one refresh at a time
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- what the pages read -------------------------------------------------------------------

    @property
    def configured(self) -> bool:
        return bool(self._sources)

    def agenda(self, at: datetime) -> Agenda:
        """The event under way and the next one at `at`, and a problem line if any."""
        return agenda_of(self._events, at, self._problem)

    def free_minutes(self, at: datetime) -> int | None:
        """Minutes free before the next event (the coach's one word of the calendar)."""
        return self.agenda(at).free_minutes(at)

    def busy(self, at: datetime) -> bool:
        """Whether an event is under way (the drift guard stands down)."""
        return any(e.starts_at <= at < e.ends_at for e in self._events)

    # -- the setting -------------------------------------------------------------------------

    def configure(self, sources: tuple[Source, ...], email: str = "") -> None:
        """The setting as saved: what is no longer named is forgotten, and the refresher
        reads every calendar at once (a URL is fetched anew: a save is also how to retry)."""
        with self._lock:
            self._sources, self._email = tuple(sources), email
            names = {s.text for s in sources}
            self._kept = {k: v for k, v in self._kept.items() if k in names}
            for kept in self._kept.values():
                kept.refreshed, kept.stamp = None, None
            self._publish()
        self._wake.set()

    # -- refreshing ----------------------------------------------------------------------------

    def refresh(self) -> None:
        """One pass over every source: what is due is read, fetched, expanded."""
        with self._lock:
            sources, email = self._sources, self._email
        for source in sources:
            if self._stop.is_set():
                return
            with self._lock:
                kept = self._kept.setdefault(source.text, _Kept())
            try:
                if source.path is not None:
                    self._read_file(source, kept, email)
                else:
                    self._read_url(source, kept, email)
            except Exception:  # a calendar must never take the server down
                log.exception("reading the calendar %s failed unexpectedly", source.label)
                kept.problem = f"Calendar {source.label} failed unexpectedly; see the log."
            with self._lock:
                if source.text in self._kept:
                    self._publish()

    def _due(self, kept: _Kept) -> bool:
        mono = self._clock.monotonic()
        return kept.refreshed is None or mono - kept.refreshed >= self._refresh_every

    def _read_file(self, source: Source, kept: _Kept, email: str) -> None:
        path = source.path
        try:
            st = path.stat()
        except OSError as exc:
            kept.problem = f"Calendar file {source.label} cannot be read ({_why(exc)})."
            return
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp == kept.stamp and not self._due(kept):
            return
        try:
            data = _read_regular(path)
            kept.events = self._expand(data, email)
        except OSError as exc:
            kept.problem = f"Calendar file {source.label} cannot be read ({_why(exc)})."
            return
        except UnreadableCalendar as exc:
            kept.problem = f"Calendar file {source.label}: {exc}."
            return
        finally:
            kept.refreshed = self._clock.monotonic()
        kept.stamp, kept.problem = stamp, None

    def _read_url(self, source: Source, kept: _Kept, email: str) -> None:
        cache = self.cached(source)
        if kept.refreshed is None and not kept.events and cache.exists():
            # At start: the last good copy first, so the page has it before the fetch ends.
            with contextlib.suppress(OSError, UnreadableCalendar):
                kept.events = self._expand(cache.read_bytes(), email)
                with self._lock:
                    if source.text in self._kept:
                        self._publish()
        if not self._due(kept):
            return
        kept.refreshed = self._clock.monotonic()
        try:
            data = self._fetch(source.url)
            events = self._expand(data, email)
        except (FetchFailed, UnreadableCalendar) as exc:
            kept.problem = self._stale(source, cache, str(exc), kept, email)
            log.info("calendar at %s: %s", source.label, exc)
            return
        kept.events, kept.problem = events, None
        try:
            _write(cache, data)
        except OSError as exc:
            log.info("the calendar at %s could not be kept in %s: %s", source.label, cache, exc)

    def _stale(self, source: Source, cache: Path, why: str, kept: _Kept, email: str) -> str:
        """The line for a URL that failed: with the last good copy, when there is one."""
        line = f"Calendar at {source.label} could not be read: {why}"
        try:
            kept.events = self._expand(cache.read_bytes(), email)  # the window moves on
            when = datetime.fromtimestamp(cache.stat().st_mtime).astimezone()
        except (OSError, UnreadableCalendar):
            return line + "."
        return (
            line
            + f"; showing the copy from {when:%H:%M}"
            + ("" if when.date() == self._clock.now().astimezone().date() else f" on {when:%d %b}")
            + "."
        )

    def _expand(self, data: bytes, email: str) -> tuple[Event, ...]:
        at = self._clock.now()
        start = at - timedelta(days=1)
        return tuple(events_between(data, start, day_end(at) + timedelta(days=1), email))

    def cached(self, source: Source) -> Path:
        """Where a URL's last good copy is kept."""
        name = hashlib.sha256(source.url.encode()).hexdigest()[:16]
        return self.cache_dir / f"{name}.ics"

    def _publish(self) -> None:
        """Under the lock: the events and the problem line the pages read."""
        kept = [self._kept[s.text] for s in self._sources if s.text in self._kept]
        events = sorted({e for k in kept for e in k.events})
        problems = [k.problem for k in kept if k.problem]
        self._events = tuple(events)
        self._problem = " ".join(problems) if problems else None

    # -- doctor -----------------------------------------------------------------------------

    def doctor_lines(self) -> list[str]:
        """`antidrift doctor`'s calendar section: each calendar read now, and what it gave."""
        if not self._sources:
            return ["calendars: none (ANTIDRIFT_CALENDAR)"]
        self.refresh()
        lines = ["calendars (ANTIDRIFT_CALENDAR):"]
        for source in self._sources:
            kept = self._kept.get(source.text, _Kept())
            count = f"{len(kept.events)} timed event(s) today and tomorrow"
            lines.append(f"  {source.label}: {kept.problem or count}")
        return lines

    # -- the refresher thread ------------------------------------------------------------------

    def start(self) -> None:
        """Refresh now and then every so often, on a daemon thread (the runtime starts it)."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="antidrift-calendar", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None and self._thread.is_alive():
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            self.refresh()
            self._wake.wait(self._look_every)


def _read_regular(path: Path) -> bytes:
    """A regular file's bytes, at most MAX_BYTES (as a fetched calendar): a FIFO or a device
    named as a calendar is never read (O_NONBLOCK: not even blocked on at open)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    if not stat.S_ISREG(path.stat().st_mode):
        raise UnreadableCalendar("it is not a regular file")
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced between the look and the open
            raise UnreadableCalendar("it is not a regular file")
        data = b""
        while len(data) <= MAX_BYTES:
            chunk = os.read(fd, MAX_BYTES + 1 - len(data))
            if not chunk:
                return data
            data += chunk
        raise UnreadableCalendar(f"it is larger than {MAX_BYTES // 2**20} MB")
    finally:
        os.close(fd)


def _write(path: Path, data: bytes) -> None:
    """The last good copy, replaced whole (a crash leaves the old one or the new one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _why(exc: OSError) -> str:
    return (exc.strerror or str(exc)).lower()
