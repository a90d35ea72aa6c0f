"""What the drift guard leaves for after the commit: a judge call to start, a nudge to show,
a window to put away; and the words of its notifications."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime

from antidrift.core.domain import Commitment, WindowSample
from antidrift.core.drift_records import Episode


@dataclass
class After:
    """Work for after the lock: start a judge call, show a nudge, put a window away."""

    start: Callable[[], None] | None = None
    nudge: tuple[str, str] | None = None
    announce: Callable[[str, str], None] | None = field(default=None, repr=False)
    put_away: Callable[[], None] | None = None

    def run(self) -> None:
        if self.start is not None:
            self.start()
        if self.nudge is not None and self.announce is not None:
            self.announce(*self.nudge)
        if self.put_away is not None:
            self.put_away()


def nudge_text(commitment: Commitment, episode: Episode) -> tuple[str, str]:
    """The drift notification: it names the next action; it adds no window title itself."""
    why = f"{episode.app}: {episode.reason}" if episode.reason else episode.app
    return "Drifting? · AntiDrift", f"Back to: {commitment.next_action}\n{why}"


def put_away_text(commitment: Commitment, app: str, how: str) -> tuple[str, str]:
    """The notification once the teeth put a window away: what was done, and the way back."""
    return "Put away · AntiDrift", f"{app}: {how}\nBack to: {commitment.next_action}"


def counted_from(last: WindowSample | None, since: datetime | None) -> WindowSample | None:
    """The window seen last, counted from `since` (None: from when it was seen): the time
    away (a pause, a review) was neither work nor drift."""
    return replace(last, at=since) if last is not None and since is not None else last
