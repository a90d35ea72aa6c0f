"""The teeth's timing (pure): when an ignored nudge puts the off-task window away.

After an episode's nudge, if the banner is not answered and focus stays on that same window
(the exact one the probe identified when it sampled: a sway container, an X11 window id, a
Hyprland address, …) for `after`, the window is put away, once per episode. The drift policy
owns one `Teeth` per commitment that asked for them and feeds it every sample; it decides what
the window is (never a window on task, unclear, counted off task only by churn, decided on
task by a rule or by the user) and this module decides when. A window the probe could not
identify exactly, and AntiDrift's own page, never start the clock: they stop it.

No I/O and no clock: every time comes in. The adapters that act are the desktops' (evidence/),
run by antidrift/drift/put_away.py off the controller's lock.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from datetime import datetime, timedelta

from antidrift.core.domain import ValidationError
from antidrift.core.errors import Error

MINIMIZE = "minimize"
TEETH_OFF = "off"
CHOICES = (TEETH_OFF, MINIMIZE)  # ANTIDRIFT_ENFORCE's words, and the commitment's


# Which window exactly, as the probe saw it when it sampled (evidence.probe.WindowHandle):
# opaque here, only compared and handed back to the adapter. Never stored, never shown.
WindowHandle = Hashable


class CouldNotPutAway(Error):
    """An adapter failed; the message is a sentence for people (never a window title)."""


# Runs a desktop's adapter on the exact window: how it was put away ("moved to the
# scratchpad"), or CouldNotPutAway. antidrift/drift/put_away.py makes the real one.
Enforcer = Callable[[WindowHandle], str]


@dataclass(frozen=True)
class PutAway:
    """The effect: put this exact window away for this episode (once)."""

    episode: int
    window: WindowHandle
    app: str


def parse_enforce(value: object, default: str) -> bool:
    """POST /commitment's `enforce` (minimize|off; a checkbox sends "minimize" or nothing):
    whether this commitment has teeth. Absent: the setting decides."""
    if value is None or value == "":
        return default == MINIMIZE
    if value in CHOICES:
        return value == MINIMIZE
    raise ValidationError("enforce must be minimize or off.", "enforce")


class Teeth:
    """One commitment's teeth: which exact window has had focus since when, which episode's
    nudge found which window, and which episodes were put away already (or tried)."""

    def __init__(self, after: timedelta, done: tuple[int, ...] = ()) -> None:
        self.after = after
        self.focus: WindowHandle | None = None  # the window of the newest sample, if exact
        self.focus_since: datetime | None = None
        self._target: tuple[int, WindowHandle, datetime] | None = None  # episode, window, nudge
        self._done: set[int] = set(done)  # a restart keeps them: never twice for one episode

    def copy(self) -> Teeth:
        """A copy that changes apart from this one (a change's memento)."""
        copied = Teeth(self.after, tuple(self._done))
        copied.focus, copied.focus_since = self.focus, self.focus_since
        copied._target = self._target
        return copied

    def seen(self, window: WindowHandle | None, now: datetime) -> None:
        """A sample: the focused window exactly (None: not identified, or AntiDrift's page)."""
        if window is None or window != self.focus:
            self.focus, self.focus_since = window, now

    def nudged(self, episode: int, at: datetime) -> None:
        """An episode's nudge went out while focus was on `self.focus`: the window to watch."""
        self._target = (episode, self.focus, at) if self.focus is not None else None

    def due(
        self, episode: int | None, app: str, now: datetime, *, off_task: bool
    ) -> PutAway | None:
        """After a sample: the window to put away now, when the open `episode`'s nudge has gone
        unanswered while focus stayed on its window for `after` since the nudge (or since focus
        came back to it). `off_task`: the caller found the focused window off task by the
        judge, a rule or the user (never by title churn alone)."""
        target = self._target
        if episode is None or target is None or target[0] != episode or episode in self._done:
            return None
        _, window, nudged_at = target
        if not off_task or self.focus != window or self.focus_since is None:
            return None
        if now - max(self.focus_since, nudged_at) < self.after:
            return None
        self._done.add(episode)
        return PutAway(episode, window, app)
