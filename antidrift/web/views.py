"""View models: the data each template renders, built from a snapshot before rendering.

The renderer only turns these into HTML; nothing here renders, and nothing in the renderer
reads the controller. Whole views are `PageModel`s (page_model.py); the pushed widgets inside
them are in antidrift/web/widgets.py (how to add one is written there).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from antidrift.core.day import DayItem
from antidrift.core.device_evidence import DeviceEvidence
from antidrift.core.domain import Commitment, RuntimeState
from antidrift.core.insights import Calibration, WindowTime
from antidrift.drift.policy import Episode, Judgement, Window
from antidrift.session.snapshot import CoachInfo, CoachStatus, DriftInfo, Snapshot
from antidrift.tasks import Board
from antidrift.tasks import Listing as Listing  # the task list's view data, for the renderer

if TYPE_CHECKING:  # the widgets, their words and the whole view load with the first page (40)
    from antidrift.web.page_model import PageModel
    from antidrift.web.review_evidence import ReviewEvidences
    from antidrift.web.widgets import Widget

HISTORY_ON_PAGE = 20
CLI_RECHECK = 5.0  # seconds a "CLI found on PATH" answer is trusted while planning


@dataclass(frozen=True)
class Shows:
    """What one page shows: the state, its commitment, the proposal it has applied, and the
    words of a running commitment's next action (`wording`, a digest: changed while it runs,
    the page gets the new words in its heading, and in its editor only while that is closed:
    web/push.py)."""

    state: str | None = None
    commitment_id: str = ""
    proposal_id: str = ""
    wording: str = ""

    @classmethod
    def of(cls, snap: Snapshot) -> Shows:
        coach = snap.coach
        applied = coach.proposal_id if coach and coach.status == CoachStatus.READY else ""
        c = snap.commitment
        words = c.next_action if c is not None and snap.state is RuntimeState.ACTIVE else ""
        wording = hashlib.sha256(words.encode()).hexdigest()[:12] if words else ""
        return cls(view_of(snap), c.id if c else "", applied or "", wording)

    def params(self) -> dict[str, str]:
        """The socket URL's query (_ws.html): what the page shows."""
        return {"view": self.state or "", "c": self.commitment_id, "p": self.proposal_id} | (
            {"n": self.wording} if self.wording else {}
        )


def view_of(snap: Snapshot) -> str:
    """Which view the page shows: the state's, or "break" while locked on a break."""
    return "break" if snap.rest is not None else snap.state.value


# -- whole views (page_model.py's PageModel, built by Views.page) -------------------------------


class Reader(Protocol):
    """What the planning, locked and review views read beyond the snapshot (the read model)."""

    def history(self, limit: int | None = None) -> list[Commitment]: ...

    def window_time(self, commitment: Commitment, now: datetime) -> WindowTime: ...

    def drift_summaries(self, ids: list[str]) -> dict[str, tuple[int, float | None]]: ...

    def drift_episodes(self, commitment_id: str) -> list[Episode]: ...

    def drift_judgements(self, commitment_id: str) -> dict[Window, Judgement]: ...

    def unclear_secs(self, commitment_id: str) -> float: ...

    def device_evidence(self, commitment_id: str) -> list[DeviceEvidence]: ...

    def evidence_stamps(self, commitment_id: str) -> tuple[tuple[str, str], ...]: ...

    def calibration(self) -> Calibration | None: ...

    def day_queue(self) -> list[DayItem]: ...


class Views:
    """Builds view models from snapshots; the only place the web layer asks for more data."""

    def __init__(
        self,
        coach: CoachInfo,
        reader: Reader,
        *,
        recheck: float = CLI_RECHECK,
        monotonic: Callable[[], float] = time.monotonic,
        drift: DriftInfo | None = None,
        tasks: Board | None = None,
    ) -> None:
        self.coach = coach
        self.tasks = tasks or Board(tuple)
        self.drift = drift or DriftInfo(False, why_off="it is not configured")
        self._reader = reader
        self._recheck, self._monotonic = recheck, monotonic
        self._lock = threading.Lock()
        self._found: bool | None = None
        self._looked_at = 0.0
        self._was: RuntimeState | None = None
        self._looked_for: CoachInfo | None = None  # Settings may change the coach
        self._review: ReviewEvidences | None = None  # read again only when its key moves
        # The user's other machines (sync): /state's `elsewhere`, as the runtime reads it
        # (None: sync is off, and the views have no line for it).
        self.elsewhere: Callable[[], list[dict[str, object]] | None] = lambda: None
        # How many of the others' changes of the day's queue were taken in (sync): /day's
        # list is pushed when it moves (web/day_items.py).
        self.day_taken: Callable[[], int] = lambda: 0

    def _cli_found(self, snap: Snapshot) -> bool:
        """Whether the coach's CLI (the drift guard's judge too) is on PATH: looked up on
        entering planning or active, then at most every few seconds (someone may install or
        remove it while the page is open), never per tick. So the coach's line and the
        guard's say what the CLI does now, not what the last planning found."""
        with self._lock:
            now = self._monotonic()
            looks = snap.state in (RuntimeState.PLANNING, RuntimeState.ACTIVE)
            entered, self._was = snap.state is not self._was, snap.state
            new = self.coach is not self._looked_for
            if looks and (new or entered or now - self._looked_at >= self._recheck):
                self._found = self.coach.binary_found()
                self._looked_at, self._looked_for = now, self.coach
            return bool(self._found)

    def widgets(self, snap: Snapshot) -> tuple[Widget, ...]:
        """The pushed widgets of the snapshot's view (parents before their children), then
        those outside the view."""
        from antidrift.web import page_model  # with the first page (issue 40: the footprint)

        return page_model.widgets_of(self, snap)

    def day_items(self, snap: Snapshot) -> tuple[Widget, ...]:
        """/day's list of items, for its socket: once another machine's change of the queue
        was taken in, and again at each such change (none before: nothing to follow)."""
        from antidrift.web import page_model

        return page_model.day_items_of(self, snap)

    def page(self, snap: Snapshot, widgets: tuple[Widget, ...] | None = None) -> PageModel:
        """The whole view: its widgets (the review's focus evidence is one), and the history
        or summary it lists."""
        from antidrift.web import page_model

        return page_model.page_of(self, snap, widgets)
