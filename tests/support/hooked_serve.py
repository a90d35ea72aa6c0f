"""`antidrift serve` with test hooks: `python -m tests.support.hooked_serve [--clock FILE]
[--header-timeout SECONDS] serve --port …`. The hooks live here, in the tests, so no user
can reach them by accident; `RunningServer(test_clock=True, header_timeout=…)` uses them.

--clock FILE: FILE holds seconds to add to the system clock (both faces, wall and monotonic,
as when time really passes); a test writes a bigger number (`TestClock.advance`) to jump to
the end of a timebox instead of sleeping through it.
--header-timeout S: the deadline for a request head (antidrift.server.httpworker), so a slow-client
test waits a second, not ten.
"""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path


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


def _use_clock(path: Path) -> None:
    # Patched on the class: every clock the server builds reads the offset, however its
    # modules imported the name.
    from antidrift.core import clock

    real_now, real_monotonic = clock.SystemClock.now, clock.SystemClock.monotonic
    clock.SystemClock.now = lambda self: real_now(self) + timedelta(seconds=_offset(path))
    clock.SystemClock.monotonic = lambda self: real_monotonic(self) + _offset(path)


def _use_header_timeout(seconds: float) -> None:
    from antidrift.server import httpworker

    assert hasattr(httpworker, "HEADER_TIMEOUT"), "the hook no longer reaches the worker"
    httpworker.HEADER_TIMEOUT = seconds


def main(argv: list[str]) -> int:
    argv = list(argv)
    while argv and argv[0].startswith("--"):
        option, value = argv.pop(0), argv.pop(0)
        if option == "--clock":
            _use_clock(Path(value))
        elif option == "--header-timeout":
            _use_header_timeout(float(value))
        else:
            raise SystemExit(f"hooked_serve: unknown option {option}")
    from antidrift.server.commands import main as antidrift

    return antidrift(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
