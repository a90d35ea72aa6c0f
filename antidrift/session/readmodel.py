"""The history as the pages read it: paged, one entry, where the focus went, the drift
guard's figures, the insights' totals, the week, the CSV's rows. Read-only; `bootstrap`
builds it over the store and hands it to the web layer (the controller's lock is not needed
to read)."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import TYPE_CHECKING

from antidrift.core import insights
from antidrift.core.day import DayItem, tallies
from antidrift.core.device_evidence import DeviceEvidence, combined
from antidrift.core.domain import COUNTED, Commitment, NotFound
from antidrift.core.drift_records import Episode, Judgement, Rule, Window
from antidrift.core.insights import Calibration, Ended, WindowTime
from antidrift.core.ports import EXPORT_COLUMNS, History
from antidrift.drift.window_key import window_of

if TYPE_CHECKING:
    from antidrift.core.week import Week


class ReadModel:
    """What the locked, review, insights and history pages read beyond the snapshot."""

    def __init__(self, store: History) -> None:
        self._store = store

    def history(self, limit: int | None = None, before: str | None = None) -> list[Commitment]:
        """Ended commitments, newest first; `before` (an id) pages; NotFound if it is unknown."""
        try:
            return self._store.history(limit, before)
        except KeyError:
            raise NotFound("There is no such entry in the history to page from.") from None

    def day_queue(self) -> list[DayItem]:
        """The day's queue, items not started, first to last (the locked view's Next up)."""
        return self._store.day_queue()

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
        """(drift_count, on_task_share) per commitment id a drift guard watched: its own,
        and the user's other machines' for it (combined as core/device_evidence.py says)."""
        found = self._store.drift_summaries(ids)
        for cid, others in self._store.device_figures_of(ids).items():
            own = found.get(cid)
            weight = self._store.judged_secs(cid) if own is not None else 0.0
            both = combined(own, weight, [e.figures for e in others])
            if both is not None:
                found[cid] = both
        return found

    def device_evidence(self, commitment_id: str) -> list[DeviceEvidence]:
        """What the user's other machines watched for one commitment (this one's too, when
        it guarded another's), by machine."""
        return self._store.device_evidence_of([commitment_id]).get(commitment_id, [])

    def evidence_stamps(self, commitment_id: str) -> tuple[tuple[str, str], ...]:
        """The stamps of the other machines' evidence records taken for one commitment: new
        ones, new evidence (an open review follows them; one indexed read)."""
        return self._store.device_evidence_stamps(commitment_id)

    def by_device(self, ids: list[str]) -> dict[str, list[DeviceEvidence]]:
        """Each other machine's figures for these commitments (no rows), by machine."""
        return self._store.device_figures_of(ids)

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
        """Seconds of one commitment's focus the judge called unclear (on every machine)."""
        others = self._store.device_figures_of([commitment_id]).get(commitment_id, [])
        return self._store.unclear_secs(commitment_id) + sum(e.figures.unclear_secs for e in others)

    def rules(self) -> list[Rule]:
        """The standing rules, oldest first."""
        return self._store.rules()

    def ended_figures(self) -> list[Ended]:
        """Planned and actual time and outcome of every ended commitment, newest first."""
        return self._store.ended_figures()

    def app_totals(self) -> dict[str, float]:
        """Seconds per app over every ended commitment."""
        return self._store.app_totals()

    def top_sites(self, ids: list[str]) -> dict[str, str]:
        """The site most of each commitment's browser samples were on (ids without none)."""
        return self._store.top_sites(ids)

    def export_rows(self) -> list[tuple]:
        """Every ended commitment as the CSV's plain values (ports.EXPORT_COLUMNS order), its
        drift figures with the other machines' in, as /history gives them."""
        rows = self._store.export_rows()
        watched = set(self._store.device_figures_of([row[0] for row in rows]))
        if not watched:
            return rows
        figures = self.drift_summaries(sorted(watched))
        count, share = EXPORT_COLUMNS.index("drift_count"), EXPORT_COLUMNS.index("on_task_share")
        for n, row in enumerate(rows):
            if row[0] in figures:
                fixed = list(row)
                fixed[count], found = figures[row[0]]
                fixed[share] = None if found is None else round(min(max(found, 0.0), 1.0), 4)
                rows[n] = tuple(fixed)
        return rows

    def calibration(self) -> Calibration | None:
        """How long the user's plans really take (the planning view says it beside Minutes)."""
        return insights.calibration(self._store.ended_figures(insights.CALIBRATION_WINDOW))

    def week(self, now: datetime) -> Week:
        """The last seven local days up to `now`'s, the weekly streak, the week's distractions."""
        # Here, with the week's page: a start never reads the week (issue 40: the footprint).
        from antidrift.core.week import (
            DAYS,
            Week,
            days,
            met_weeks,
            top_distractions,
            week_of,
            week_streak,
        )

        today = now.astimezone().date()
        # Local midnight of the first day, in the offset that day has (a DST change between).
        since = datetime.combine(today - timedelta(days=DAYS - 1), time()).astimezone()
        ended = [c for c in self._store.ended_since(since) if c.outcome in COUNTED]
        weeks = met_weeks(t.astimezone().date() for t in self._store.met_times())
        queued = tallies(self._store.day_records(since.date()), today)
        return Week(
            days(
                ((c.ended_at.astimezone().date(), c.outcome, c.actual_secs) for c in ended),
                today,
                {d: (t.planned, t.done) for d, t in queued.items()},
            ),
            week_streak(weeks, today),
            top_distractions(self._off_task_secs(ended)),
            this_week_met=week_of(today) in weeks,
        )

    def _off_task_secs(self, ended: list[Commitment]) -> dict[str, float]:
        """Seconds per place the drift guard judged off task, as its review figures count
        them: each window's time under the verdict stored for it (keyed as the guard keys
        it), a browser's per site (insights.place_of; a private page has none and stays the
        browser's), any other app's under its name."""
        per_place: dict[str, float] = {}
        for c in ended:
            decided = self._store.judgements(c.id)
            if not decided:
                continue  # not watched: no window time to read
            for (app, title, place), secs in self._store.place_time(c.id, c.ended_at).items():
                found = decided.get(window_of(app, title))
                if found is not None and found.off_task:
                    per_place[place] = per_place.get(place, 0.0) + secs
        # What the user's other machines watched for them, under their own verdicts.
        for others in self._store.device_evidence_of([c.id for c in ended]).values():
            for e in others:
                for app, title, place, secs in e.windows:
                    found = e.verdicts.get(window_of(app, title))
                    if found is not None and found.off_task:
                        per_place[place] = per_place.get(place, 0.0) + secs
        return per_place
