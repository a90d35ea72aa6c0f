"""`antidrift serve` whose clock a test moves forward: `python -m tests.support.clocked_serve
CLOCK_FILE serve --port …`. The test hook lives here, in the tests, so no user can reach it.

CLOCK_FILE holds the seconds to add to the system clock (both faces, wall and monotonic, as
when time really passes). A test writes a bigger number to jump ahead, e.g. to the end of a
one-minute timebox, instead of sleeping through it; see `TestClock` below and
`RunningServer(test_clock=True)`.
"""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path

# Patched on the class before anything else runs: every clock the server builds (however its
# modules imported the name) reads the offset.
from antidrift import clock

_real_now = clock.SystemClock.now
_real_monotonic = clock.SystemClock.monotonic


class TestClock:
    """The file a test writes its clock offset to (in seconds; it only ever grows)."""

    __test__ = False  # not a pytest class

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.offset = 0.0
        self.path.write_text("0")

    def advance(self, seconds: float) -> None:
        """Let `seconds` pass on the server's clock at once."""
        self.offset += seconds
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(repr(self.offset))
        tmp.replace(self.path)  # never read half written


def _offset(path: Path) -> float:
    try:
        return float(path.read_text() or 0)
    except (OSError, ValueError):
        return 0.0


def main(argv: list[str]) -> int:
    path = Path(argv[0])
    clock.SystemClock.now = lambda self: _real_now(self) + timedelta(seconds=_offset(path))
    clock.SystemClock.monotonic = lambda self: _real_monotonic(self) + _offset(path)
    from antidrift.serve import main as serve

    return serve(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
