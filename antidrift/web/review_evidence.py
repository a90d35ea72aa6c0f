"""The review's focus evidence (id="review-evidence"), a pushed widget: where the focus went,
by device, and the drift guard's section (templates/_review_evidence.html).

Another machine's evidence for the commitment (Guard here too) mostly arrives after the
review opened: the laptop sends what it saw when its guarding ends, that is when the
commitment ends here. The section is then swapped in place on an open review, and nothing
else: the form below it keeps what is typed, and the focus stays.

Its change key is cheap, read at every refresh: the commitment, when it ended, and the stamp
of each other machine's evidence record taken for it (a few rows of an index). What the
section shows is read from the store only when that key moves (`ReviewEvidences`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from antidrift.core.device_evidence import DeviceEvidence
from antidrift.core.drift_records import Episode, Judgement, Window
from antidrift.core.insights import WindowTime
from antidrift.drift.policy import GUARD_OFF
from antidrift.session.snapshot import Snapshot
from antidrift.web.by_device import (
    ReviewRow,
    episodes_by_device,
    review_rows,
    verdicts_by_device,
)
from antidrift.web.widgets import Widget

if TYPE_CHECKING:
    from antidrift.web.views import Reader


@dataclass(frozen=True)
class DriftReview:
    """The drift guard's evidence for one commitment in review."""

    count: int
    on_task_share: float | None
    episodes: tuple[Episode, ...]
    unclear_secs: float = 0.0  # time the judge could not tell about, counted apart
    # What decided each window, with what was sent where and what came back, in order.
    verdicts: tuple[tuple[Window, Judgement], ...] = ()


Stamps = tuple[tuple[str, str], ...]  # (evidence record id, its clock stamp), by record id


@dataclass(frozen=True)
class ReviewEvidence(Widget):
    """What the section shows, keyed by what says it changed: the evidence itself is left
    out of the comparison (and the hash), read again only when the key moves."""

    name = "review_evidence"
    commitment_id: str
    ended_at: datetime | None
    stamps: Stamps  # the other machines' evidence records taken for it
    focus: WindowTime = field(compare=False)
    drift: DriftReview | None = field(compare=False)  # None: the guard did not watch it
    by_device: tuple[DeviceEvidence, ...] = field(compare=False)  # what other machines watched
    now: datetime = field(compare=False)  # when it was read (an episode still open ends here)

    @property
    def marks(self) -> dict[tuple[str, str], Judgement]:
        """What decided each window of its own, so each row of the table says it."""
        return {(w.app, w.title): j for w, j in self.drift.verdicts} if self.drift else {}

    @property
    def rows(self) -> tuple[ReviewRow, ...]:
        return review_rows(self.focus, self.marks, self.by_device)

    @property
    def episodes_shown(self) -> tuple[tuple[Episode, str | None], ...]:
        """The episodes of every machine."""
        return episodes_by_device(self.drift.episodes, self.by_device) if self.drift else ()

    @property
    def verdicts_shown(self) -> tuple[tuple[Window, Judgement, str | None], ...]:
        """The verdicts of every machine."""
        return verdicts_by_device(self.drift.verdicts, self.by_device) if self.drift else ()


class ReviewEvidences:
    """The section of the commitment in review: read anew only when its key moved."""

    def __init__(self, reader: Reader) -> None:
        self._reader = reader
        self._lock = threading.Lock()
        self._kept: ReviewEvidence | None = None

    def of(self, snap: Snapshot) -> ReviewEvidence:
        c = snap.commitment
        assert c is not None
        key = (c.id, c.ended_at, tuple(self._reader.evidence_stamps(c.id)))
        with self._lock:
            kept = self._kept
        if kept is not None and (kept.commitment_id, kept.ended_at, kept.stamps) == key:
            return kept
        shown = ReviewEvidence(
            *key,
            focus=self._reader.window_time(c, snap.now),  # summed by the store: fast
            drift=self._drift_review(c.id),
            by_device=tuple(self._reader.device_evidence(c.id)),
            now=snap.now,
        )
        with self._lock:
            self._kept = shown
        return shown

    def _drift_review(self, commitment_id: str) -> DriftReview | None:
        """None when the guard did not watch this commitment (off, or an older one)."""
        reader = self._reader
        summary = reader.drift_summaries([commitment_id]).get(commitment_id)
        if summary is None:
            return None
        episodes = tuple(reader.drift_episodes(commitment_id))
        verdicts = tuple(
            (window, judgement)
            for window, judgement in reader.drift_judgements(commitment_id).items()
            if window != GUARD_OFF
        )
        unclear = reader.unclear_secs(commitment_id)
        return DriftReview(summary[0], summary[1], episodes, unclear, verdicts)
