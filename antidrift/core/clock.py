"""Time as the app sees it: injectable so tests never sleep through a timebox.

A clock has two faces. The wall clock says what time it is and can jump (NTP, a VM resumed,
someone setting the date); the monotonic clock only measures how much time has passed.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime: ...
    def monotonic(self) -> float: ...


# CLOCK_BOOTTIME keeps counting while the machine sleeps (a timebox runs out during a
# suspended lid, as the user expects); CLOCK_MONOTONIC would pause. Neither is ever set.
_MONOTONIC_ID = getattr(time, "CLOCK_BOOTTIME", None)


class SystemClock:
    """Wall-clock time, timezone-aware (UTC), and seconds from a clock nobody can set."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        if _MONOTONIC_ID is not None:
            return time.clock_gettime(_MONOTONIC_ID)
        return time.monotonic()


class SteadyClock:
    """Wall time read once, then carried forward by the monotonic clock: it never jumps.

    `resync()` reads the wall clock again (the controller does so whenever no timebox runs,
    so a long-running server follows a corrected clock between commitments).
    """

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._resync_lock = threading.Lock()
        self._anchor = (clock.now(), clock.monotonic())  # one tuple: read atomically

    def resync(self, not_before: datetime | None = None) -> None:
        """Take the wall clock again (or `not_before`, if the wall clock is earlier)."""
        with self._resync_lock:
            wall = self._clock.now()
            if not_before is not None and wall < not_before:
                wall = not_before
            self._anchor = (wall, self._clock.monotonic())

    def now(self) -> datetime:
        wall, mono = self._anchor
        return wall + timedelta(seconds=max(0.0, self._clock.monotonic() - mono))

    def monotonic(self) -> float:
        return self._clock.monotonic()
