"""Time as the app sees it: injectable so tests never sleep through a timebox."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime: ...


class SystemClock:
    """Wall-clock time, timezone-aware (UTC)."""

    def now(self) -> datetime:
        return datetime.now(UTC)
