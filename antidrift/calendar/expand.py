"""A calendar read in a child process, never in the server's: spawned (not forked) through
the one subprocess seam, with a CPU-time limit, an address-space limit and a deadline at
which its process group is killed; a cancel scope stops it at once (the calendar removed in
Settings, the server stopping). What comes back is checked as any outside data is."""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
from dataclasses import dataclass
from datetime import datetime

from antidrift import process
from antidrift.calendar.agenda import Event
from antidrift.calendar.ics import (
    MAX_OCCURRENCES,
    TITLE_MAX,
    UnreadableCalendar,
    decode,
    is_calendar,
)
from antidrift.core.isotime import from_iso, iso

log = logging.getLogger("antidrift.calendar")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CPU_SECS = 5  # of work for one calendar: a real 45,000-event file needs well under 2
MEMORY = 512 << 20  # address space of the child: Python and the libraries start in ~100 MiB
# What the answer may weigh: every occurrence kept, at its longest.
MAX_ANSWER = MAX_OCCURRENCES * (2 * 40 + TITLE_MAX * 4 + 16) + 1024


@dataclass(frozen=True)
class Expanded:
    """The events a calendar gave in the span asked for, and whether it was cut short."""

    events: tuple[Event, ...]
    cut: bool = False


def expand(
    data: bytes,
    start: datetime,
    end: datetime,
    email: str = "",
    *,
    deadline: float,
    scope: process.CancelScope | None = None,
    limit: int = MAX_OCCURRENCES,
    cpu_secs: int = CPU_SECS,
    memory: int = MEMORY,
) -> Expanded:
    """The counted events of `data` (an .ics file's bytes) overlapping start..end.
    UnreadableCalendar says why not, in words that quote nothing of the file;
    process.RunCancelled when the scope was cancelled meanwhile."""
    text = decode(data)
    if not is_calendar(text):  # said at once, without a child for it
        raise UnreadableCalendar("it is not an iCalendar file (no BEGIN:VCALENDAR)")
    request = {
        "text": text,
        "start": iso(start),
        "end": iso(end),
        "email": email,
        "limit": limit,
        "cpu": cpu_secs,
        "memory": memory,
    }
    argv = [sys.executable, "-m", "antidrift.calendar.child"]
    try:
        done = process.run(
            argv,
            json.dumps(request),
            timeout=deadline,
            scope=scope,
            max_output=MAX_ANSWER,
            env=_child_env(),
            cwd=ROOT,
            name="calendar reader",
        )
    except process.TimedOut:
        raise UnreadableCalendar(f"reading it took longer than {deadline:g} s") from None
    except process.TooLarge:
        raise UnreadableCalendar("it gave more than a calendar may") from None
    except process.RunCancelled:
        raise
    except process.ProcessError as exc:
        raise UnreadableCalendar(f"it could not be read ({exc})") from None
    if done.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        raise UnreadableCalendar(f"reading it takes more than {cpu_secs} s of work")
    if done.returncode != 0 and not done.stdout:
        if "memory" in done.stderr.lower():  # the limit refused it (MemoryError, or earlier)
            raise UnreadableCalendar("it needs more memory to read than a calendar may take")
        log.warning("the calendar reader exited with %s and said nothing", done.returncode)
        raise UnreadableCalendar("its reader failed; see the log")
    return _answer(done.stdout)


def _answer(text: str) -> Expanded:
    """The child's JSON, checked: anything else is a calendar that could not be read."""
    try:
        answer = json.loads(text)
        if "problem" in answer:
            problem = answer["problem"]
            if not isinstance(problem, str):
                raise TypeError(problem)
            raise UnreadableCalendar(problem[:200])
        events = tuple(
            Event(_aware(s), _aware(e), str(t)[:TITLE_MAX]) for s, e, t in answer["events"]
        )
        return Expanded(events, answer["cut"] is True)
    except UnreadableCalendar:
        raise
    except (ValueError, TypeError, KeyError, AttributeError):
        raise UnreadableCalendar("it could not be read (its reader failed)") from None


def _aware(text: str) -> datetime:
    found = from_iso(text)
    if found is None or found.tzinfo is None:
        raise ValueError(text)
    return found


def _child_env() -> dict[str, str]:
    """The child's environment: the package's place and the time zone, nothing else."""
    paths = [ROOT, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = {"PYTHONPATH": os.pathsep.join(paths), "PATH": os.environ.get("PATH", "")}
    for name in ("TZ", "LANG", "LC_ALL", "HOME"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env
