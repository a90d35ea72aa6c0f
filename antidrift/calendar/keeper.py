"""The user's calendars kept fresh off the request path: each file re-read when its mtime
changes, each URL fetched every 15 minutes (and at once when the setting is saved), the last
good copy of a URL kept in the data directory. Pages only read what is in memory.

Each calendar is read on a thread of its own (one slow or huge calendar never delays
another), and parsed in a child process bounded in CPU, memory and time (expand.py); a
calendar removed in Settings has its work stopped at once.

The reading (ics.py, expand.py, fetch.py) is loaded by the first calendar read: a server
with no calendar set never loads it (issue 40: the footprint)."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from antidrift import process
from antidrift.calendar.agenda import Agenda, Event, agenda_of, day_end
from antidrift.calendar.sources import CalendarSource
from antidrift.core.clock import Clock
from antidrift.core.files import write_whole
from antidrift.core.outside import Unreadable, read_file

if TYPE_CHECKING:
    from antidrift.calendar.expand import Expanded

log = logging.getLogger("antidrift.calendar")

REFRESH = 15 * 60.0  # seconds between two fetches of a URL (and two expansions of a file)
LOOK = 30.0  # seconds between two looks at a file's mtime
DEADLINE = 5.0  # seconds a fetch may take in all, and so may a reading (a setting)
DOCTOR_WAIT = 6.0  # seconds `antidrift doctor` waits for the calendars


@dataclass
class _KeptCopy:
    """What one source gave last: its events, and what to compare to know it changed."""

    events: tuple[Event, ...] = ()
    stamp: tuple[int, int] | None = None  # a file's (mtime_ns, size) when read
    refreshed: float | None = None  # monotonic time of the last fetch or expansion
    problem: str | None = None
    cut: bool = False  # more occurrences than are kept: the line says so


class Calendar:
    """The calendars the settings name; `agenda(at)` is cheap and never does I/O."""

    def __init__(
        self,
        cache_dir: Path,
        clock: Clock,
        *,
        fetcher: Callable[..., bytes] | None = None,
        refresh: float = REFRESH,
        look: float = LOOK,
        deadline: float = DEADLINE,
    ) -> None:
        self.cache_dir = cache_dir
        self._clock = clock
        self._deadline = deadline
        # fetcher(url, scope=…): the body, or FetchFailed; cancelling the scope stops it
        self._fetch = fetcher or functools.partial(_fetch, timeout=deadline)
        self._refresh_every, self._look_every = refresh, look
        self._sources: tuple[CalendarSource, ...] = ()
        self._email = ""
        self._kept: dict[str, _KeptCopy] = {}
        self._events: tuple[Event, ...] = ()
        self._problem: str | None = None
        self._lock = threading.Lock()  # the kept copies, the sources being read
        self._reading: dict[str, process.CancelScope] = {}  # source text -> its reading
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = False  # started by the runtime: a thread runs while a calendar is set

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

    def events(self) -> tuple[Event, ...]:
        """Every event kept (today's and tomorrow's, sorted): the day's free minutes."""
        return self._events

    def busy(self, at: datetime) -> bool:
        """Whether an event is under way (the drift guard stands down)."""
        return any(e.starts_at <= at < e.ends_at for e in self._events)

    # -- the setting -------------------------------------------------------------------------

    def configure(self, sources: tuple[CalendarSource, ...], email: str = "") -> None:
        """The setting as saved: what is no longer named is forgotten, and the refresher
        reads every calendar at once (a URL is fetched anew: a save is also how to retry)."""
        with self._lock:
            self._sources, self._email = tuple(sources), email
            names = {s.text for s in sources}
            self._kept = {k: v for k, v in self._kept.items() if k in names}
            for text, scope in self._reading.items():
                if text not in names:  # removed: its fetch or reading stops at once
                    scope.cancel()
            for kept in self._kept.values():
                kept.refreshed, kept.stamp = None, None
            self._publish()
        self._wake.set()
        self._run_if_due()

    # -- refreshing ----------------------------------------------------------------------------

    def refresh(self, wait: float | None = None) -> list[CalendarSource]:
        """One pass over every source, each on a thread of its own: what is due is read,
        fetched, expanded. Waits for them (at most `wait` seconds: then the sources still
        being read are returned, and go on)."""
        with self._lock:
            sources, email = self._sources, self._email
        threads = []
        for source in sources:
            thread = threading.Thread(
                target=self._refresh_one, args=(source, email), daemon=True,
                name=f"antidrift-calendar-{len(threads)}",
            )  # fmt: skip
            thread.start()
            threads.append((source, thread))
        until = None if wait is None else time.monotonic() + wait
        for _, thread in threads:
            thread.join(None if until is None else max(0.0, until - time.monotonic()))
        return [source for source, thread in threads if thread.is_alive()]

    def _refresh_one(self, source: CalendarSource, email: str) -> None:
        """One source, unless it is being read already (a slow one is not asked twice)."""
        scope = process.CancelScope()
        with self._lock:
            if source.text in self._reading or self._stop.is_set():
                return
            self._reading[source.text] = scope
            kept = self._kept.setdefault(source.text, _KeptCopy())
        try:
            if source.path is not None:
                self._read_file(source, kept, email, scope)
            else:
                self._read_url(source, kept, email, scope)
        except process.RunCancelled:
            return  # removed from the setting, or the server stops: nothing to say
        except Exception:  # a calendar must never take the server down
            log.exception("reading the calendar %s failed unexpectedly", source.label)
            kept.problem = f"Calendar {source.label} failed unexpectedly; see the log."
        finally:
            with self._lock:
                if self._reading.get(source.text) is scope:
                    del self._reading[source.text]
        with self._lock:
            if source.text in self._kept:
                self._publish()

    def _due(self, kept: _KeptCopy) -> bool:
        mono = self._clock.monotonic()
        return kept.refreshed is None or mono - kept.refreshed >= self._refresh_every

    def _read_file(
        self, source: CalendarSource, kept: _KeptCopy, email: str, scope: process.CancelScope
    ) -> None:
        from antidrift.calendar.fetch import MAX_BYTES
        from antidrift.calendar.ics import UnreadableCalendar

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
            data = read_file(path, max_bytes=MAX_BYTES, what="it")
            self._take(kept, self._expand(data, email, scope))
        except Unreadable as exc:
            kept.problem = f"Calendar file {source.label}: {exc.message}."
            return
        except UnreadableCalendar as exc:
            kept.problem = f"Calendar file {source.label}: {exc}."
            return
        finally:
            kept.refreshed = self._clock.monotonic()
        kept.stamp, kept.problem = stamp, None

    def _take(self, kept: _KeptCopy, expanded: Expanded) -> None:
        kept.events, kept.cut = expanded.events, expanded.cut

    def _read_url(
        self, source: CalendarSource, kept: _KeptCopy, email: str, scope: process.CancelScope
    ) -> None:
        from antidrift.calendar.fetch import FetchFailed
        from antidrift.calendar.ics import UnreadableCalendar

        cache = self.cached(source)
        if kept.refreshed is None and not kept.events and cache.exists():
            # At start: the last good copy first, so the page has it before the fetch ends.
            with contextlib.suppress(Unreadable, UnreadableCalendar):
                self._take(kept, self._expand(self._cached(cache), email, scope))
                with self._lock:
                    if source.text in self._kept:
                        self._publish()
        if not self._due(kept):
            return
        kept.refreshed = self._clock.monotonic()
        try:
            data = self._fetch(source.url, scope=scope)
            expanded = self._expand(data, email, scope)
        except (FetchFailed, UnreadableCalendar) as exc:
            kept.problem = self._stale(source, cache, str(exc), kept, email, scope)
            log.info("calendar at %s: %s", source.label, exc)
            return
        self._take(kept, expanded)
        kept.problem = None
        try:
            write_whole(cache, data, durable=False)
        except OSError as exc:
            log.info("the calendar at %s could not be kept in %s: %s", source.label, cache, exc)

    def _stale(
        self,
        source: CalendarSource,
        cache: Path,
        why: str,
        kept: _KeptCopy,
        email: str,
        scope: process.CancelScope,
    ) -> str:
        """The line for a URL that failed: with the last good copy, when there is one."""
        from antidrift.calendar.ics import UnreadableCalendar

        line = f"Calendar at {source.label} could not be read: {why}"
        try:  # the window moves on
            self._take(kept, self._expand(self._cached(cache), email, scope))
            when = datetime.fromtimestamp(cache.stat().st_mtime).astimezone()
        except (OSError, Unreadable, UnreadableCalendar):
            return line + "."
        return (
            line
            + f"; showing the copy from {when:%H:%M}"
            + ("" if when.date() == self._clock.now().astimezone().date() else f" on {when:%d %b}")
            + "."
        )

    def _expand(self, data: bytes, email: str, scope: process.CancelScope) -> Expanded:
        """The events of the span shown, read in a child process (expand.py)."""
        from antidrift.calendar.expand import expand

        at = self._clock.now()
        start, end = at - timedelta(days=1), day_end(at) + timedelta(days=1)
        return expand(data, start, end, email, deadline=self._deadline, scope=scope)

    def _cached(self, cache: Path) -> bytes:
        """A last good copy, read back as any outside file is (it is in the data directory,
        where another program may have put something else)."""
        from antidrift.calendar.fetch import MAX_BYTES

        return read_file(cache, max_bytes=MAX_BYTES, what="its last good copy")

    def cached(self, source: CalendarSource) -> Path:
        """Where a URL's last good copy is kept."""
        name = hashlib.sha256(source.url.encode()).hexdigest()[:16]
        return self.cache_dir / f"{name}.ics"

    def _publish(self) -> None:
        """Under the lock: the events and the problem line the pages read."""
        named = [s for s in self._sources if s.text in self._kept]
        kept = [self._kept[s.text] for s in named]
        events = sorted({e for k in kept for e in k.events})
        problems = [k.problem for k in kept if k.problem]
        if cut := [s for s in named if self._kept[s.text].cut and not self._kept[s.text].problem]:
            from antidrift.calendar.ics import MAX_OCCURRENCES  # loaded by the reading

            problems += [
                f"Calendar {s.label} has more than {MAX_OCCURRENCES:,} events in the days"
                " shown: the rest were left out."
                for s in cut
            ]
        self._events = tuple(events)
        self._problem = " ".join(problems) if problems else None

    # -- doctor -----------------------------------------------------------------------------

    def doctor_lines(self) -> list[str]:
        """`antidrift doctor`'s calendar section: each calendar read now, and what it gave."""
        if not self._sources:
            return ["calendars: none (ANTIDRIFT_CALENDAR)"]
        # A fetch and a reading, each within its deadline; doctor ends within 10 s in all.
        wait = min(2 * self._deadline + 0.5, DOCTOR_WAIT)
        unfinished = {s.text for s in self.refresh(wait)}
        lines = ["calendars (ANTIDRIFT_CALENDAR):"]
        now = self._clock.now()
        today = now.astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
        ends = day_end(now)  # the copy holds a day either side too: not counted here
        for source in self._sources:
            kept = self._kept.get(source.text, _KeptCopy())
            shown = sum(1 for e in kept.events if e.ends_at > today and e.starts_at < ends)
            count = f"{shown} timed event(s) today and tomorrow"
            if source.text in unfinished:
                count = f"still being read after {wait:g} s"
            lines.append(f"  {source.label}: {kept.problem or count}")
        return lines

    # -- the refresher thread ------------------------------------------------------------------

    def start(self) -> None:
        """Refresh now and then every so often, on a daemon thread (the runtime starts it),
        from the first calendar the setting names: with none, no thread waits for nothing."""
        with self._lock:
            self._started = True
        self._run_if_due()

    def _run_if_due(self) -> None:
        """The refresher thread, once started and a calendar is set (never after a stop)."""
        with self._lock:
            if not (self._started and self._sources) or self._stop.is_set():
                return
            if self._thread is not None:
                return
            thread = self._thread = threading.Thread(
                target=self._run, name="antidrift-calendar", daemon=True
            )
        thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        self._wake.set()
        with self._lock:
            for scope in self._reading.values():
                scope.cancel()
        if self._thread is not None and self._thread.is_alive():
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            self.refresh()
            self._wake.wait(self._look_every)


def _fetch(url: str, *, scope: process.CancelScope, timeout: float) -> bytes:
    """fetch.py's fetch, loaded with the first URL fetched."""
    from antidrift.calendar.fetch import fetch

    return fetch(url, scope=scope, timeout=timeout)


def _why(exc: OSError) -> str:
    return (exc.strerror or str(exc)).lower()
