"""A hybrid logical clock (Kulkarni et al., 2014): a stamp is this machine's wall time in
milliseconds, a counter for events within one millisecond (or while another machine's clock
runs ahead), and the device id that breaks the last tie. Stamps of all devices are totally
ordered, a device's own stamps only ever grow, and a stamp made after seeing another is
greater than it, whatever the machines' clocks say.

Its text form (`str(stamp)`) sorts as the stamps do, so it can be compared, indexed and kept
as text: `000001718000000000-000000-<device>`."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from antidrift.core.errors import ValidationError

MS_DIGITS, COUNTER_DIGITS = 18, 6
COUNTER_MAX = 10**COUNTER_DIGITS - 1
MS_MAX = 10**MS_DIGITS - 1
DEVICE = r"[a-z0-9]{1,64}"
_DEVICE = re.compile(DEVICE)
_TEXT = re.compile(rf"(\d{{{MS_DIGITS}}})-(\d{{{COUNTER_DIGITS}}})-({DEVICE})")
_new, _set = object.__new__, object.__setattr__


@dataclass(frozen=True, order=True)
class Stamp:
    """One moment of the hybrid clock; ordered by (ms, counter, device)."""

    ms: int
    counter: int
    device: str

    def __post_init__(self) -> None:
        if not (0 <= self.ms <= MS_MAX and 0 <= self.counter <= COUNTER_MAX):
            raise ValidationError("A clock stamp is out of range.", "hlc")
        if not _DEVICE.fullmatch(self.device):
            raise ValidationError("A clock stamp names no device.", "hlc")

    def __str__(self) -> str:
        text = getattr(self, "_text", None)  # a parsed stamp's own text: the same
        if text is None:
            text = f"{self.ms:0{MS_DIGITS}d}-{self.counter:0{COUNTER_DIGITS}d}-{self.device}"
        return text

    @classmethod
    def parse(cls, text: object) -> Stamp:
        """The stamp written as `text`; ValidationError (quoting nothing) when it is none."""
        match = _TEXT.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise ValidationError("A clock stamp is not in the expected form.", "hlc")
        # Its form holds it in range (18 and 6 digits, a device's letters): made as the
        # frozen dataclass makes one, without checking that again (one a record, S2). Its
        # text in ASCII digits is what str() gives (the widths are fixed): kept, for the
        # store compares stamps as text.
        stamp = _new(cls)
        _set(stamp, "ms", int(match[1]))
        _set(stamp, "counter", int(match[2]))
        _set(stamp, "device", match[3])
        if match[0].isascii():  # \d also matches other scripts' digits
            _set(stamp, "_text", match[0])
        return stamp

    def after(self, ms: int, counter: int) -> Stamp:
        """(ms, counter) on this stamp's device; a counter past its width carries into ms."""
        if counter > COUNTER_MAX:
            ms, counter = ms + 1, 0
        return Stamp(ms, counter, self.device)


def wall_ms() -> int:
    """This machine's wall clock in milliseconds since the epoch."""
    return time.time_ns() // 1_000_000


class HybridClock:
    """The clock of one device: `now()` for a local event (a change made here, a file
    written), `merge(seen)` for a stamp read from another device. Thread-safe."""

    def __init__(
        self, device: str, wall: Callable[[], int] = wall_ms, last: Stamp | None = None
    ) -> None:
        self._wall = wall
        self._last = Stamp(0, 0, device) if last is None else Stamp(last.ms, last.counter, device)
        self._lock = threading.Lock()

    @property
    def device(self) -> str:
        return self._last.device

    @property
    def last(self) -> Stamp:
        """The greatest stamp this clock has given (keep it to seed the next start)."""
        return self._last

    def now(self) -> Stamp:
        """A stamp for a local event: greater than every stamp given or merged before."""
        with self._lock:
            last, physical = self._last, self._wall()
            if physical > last.ms:
                stamp = last.after(physical, 0)
            else:
                stamp = last.after(last.ms, last.counter + 1)
            self._last = stamp
            return stamp

    def merge(self, seen: Stamp) -> Stamp:
        """A stamp for having seen `seen` (another device's): greater than it and than every
        stamp this clock gave before."""
        with self._lock:
            last, physical = self._last, self._wall()
            ms = max(last.ms, seen.ms, physical)
            if ms == last.ms == seen.ms:
                counter = max(last.counter, seen.counter) + 1
            elif ms == last.ms:
                counter = last.counter + 1
            elif ms == seen.ms:
                counter = seen.counter + 1
            else:
                counter = 0
            stamp = last.after(ms, counter)
            self._last = stamp
            return stamp
