"""The history as the pages read it: paged, one entry, where the focus went, the drift
guard's figures, the insights' totals, the CSV's rows. Read-only; `bootstrap` builds it over
the store and hands it to the web layer (the controller's lock is not needed to read)."""

from __future__ import annotations

from datetime import datetime

from antidrift.core import insights
from antidrift.core.domain import Commitment, NotFound
from antidrift.core.insights import Calibration, Ended, WindowTime
from antidrift.core.ports import Store
from antidrift.drift.policy import Episode, Window
from antidrift.drift.verdicts import Judgement, Rule


class ReadModel:
    """What the locked, review, insights and history pages read beyond the snapshot."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def history(self, limit: int | None = None, before: str | None = None) -> list[Commitment]:
        """Ended commitments, newest first; `before` (an id) pages; NotFound if it is unknown."""
        try:
            return self._store.history(limit, before)
        except KeyError:
            raise NotFound("There is no such entry in the history to page from.") from None

    def entry(self, commitment_id: str) -> Commitment:
        """One ended commitment; NotFound when the history has no such entry."""
        found = self._store.entry(commitment_id)
        if found is None:
            raise NotFound("There is no such entry in the history.")
        return found

    def window_time(self, commitment: Commitment, now: datetime, top: int = 12) -> WindowTime:
        """Where a commitment's focus went, summed by the store (fast for long ones)."""
        return self._store.window_time(commitment.id, commitment.ended_at or now, top)

    def drift_summaries(self, ids: list[str]) -> dict[str, tuple[int, float | None]]:
        """(drift_count, on_task_share) per commitment id the drift guard watched."""
        return self._store.drift_summaries(ids)

    def drift_episodes(self, commitment_id: str) -> list[Episode]:
        """The drift guard's episodes for one commitment, in order."""
        return self._store.episodes(commitment_id)

    def drift_episodes_of(self, ids: list[str]) -> dict[str, list[Episode]]:
        """The drift guard's episodes of each commitment id that has any, in order."""
        return self._store.episodes_of(ids)

    def drift_judgements(self, commitment_id: str) -> dict[Window, Judgement]:
        """What decided each window of one commitment, with what was sent, in order."""
        return self._store.judgements(commitment_id)

    def unclear_secs(self, commitment_id: str) -> float:
        """Seconds of one commitment's focus the judge called unclear."""
        return self._store.unclear_secs(commitment_id)

    def rules(self) -> list[Rule]:
        """The standing rules, oldest first."""
        return self._store.rules()

    def ended_figures(self) -> list[Ended]:
        """Planned and actual time and outcome of every ended commitment, newest first."""
        return self._store.ended_figures()

    def app_totals(self) -> dict[str, float]:
        """Seconds per app over every ended commitment."""
        return self._store.app_totals()

    def export_rows(self) -> list[tuple]:
        """Every ended commitment as the CSV's plain values (ports.EXPORT_COLUMNS order)."""
        return self._store.export_rows()

    def calibration(self) -> Calibration | None:
        """How long the user's plans really take (the planning view says it beside Minutes)."""
        return insights.calibration(self._store.ended_figures(insights.CALIBRATION_WINDOW))
