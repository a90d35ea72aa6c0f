"""SQLite persistence: runtime state, the current commitment, its samples, the history."""

from __future__ import annotations

import sqlite3
from datetime import datetime

from antidrift.core.domain import (
    COUNTED,
    MAX_SAMPLE_SPAN,
    Commitment,
    Outcome,
    RuntimeState,
    TaskRef,
)
from antidrift.core.insights import Ended, PlaceTime, WindowTime
from antidrift.core.ports import Persisted
from antidrift.store import evidence_tables
from antidrift.store.changes import Connections
from antidrift.store.day_tables import DayRecords
from antidrift.store.drift_tables import DriftRecords
from antidrift.store.evidence_tables import DeviceEvidenceRecords as DeviceRecords
from antidrift.store.samples import WINDOWS_ONLY as _WINDOWS_ONLY
from antidrift.store.samples import SampleRecords
from antidrift.store.sync_day import DaySync
from antidrift.store.sync_tables import SyncRecords


# Time per window, as domain.time_shares defines it: each sample counts until the next one
# (or `until`), at most MAX_SAMPLE_SPAN. Written once, here, for every query below; property
# tests hold it to the domain (tests/unit/test_time_per_window.py).
def _spans(where: str, until: str) -> str:
    """The CTE `spans`: (commitment_id, app, title, place, secs) of each sample matching
    `where`; `place` is where the time went as review and insights count it: a browser
    page's site, else the app (insights.place_of)."""
    return f"""spans AS (
    SELECT s.commitment_id, s.app, s.title, COALESCE(s.site, s.app) AS place,
        MIN(MAX(COALESCE(LEAD(s.at_epoch) OVER w, {until}) - s.at_epoch, 0),
            {MAX_SAMPLE_SPAN.total_seconds()}) AS secs
    FROM samples s {where}
    WINDOW w AS (PARTITION BY s.commitment_id ORDER BY s.at_epoch, s.id)
)"""


# One commitment's top windows and every app's total in one pass; the rows are few whatever
# the number of samples.
_WINDOW_TIME = f"""
WITH {_spans("WHERE s.commitment_id = :cid", ":until")},
per AS MATERIALIZED (SELECT app, title, place, SUM(secs) AS secs, COUNT(*) AS n FROM spans
    WHERE {_WINDOWS_ONLY} GROUP BY app, title, place)
SELECT * FROM (SELECT 'window' AS kind, app, title, SUM(secs) AS secs, SUM(n) AS n FROM per
    GROUP BY app, title ORDER BY secs DESC, app, title LIMIT :top)
UNION ALL
SELECT 'app', place, '', SUM(secs), SUM(n) FROM per GROUP BY place
"""

# One commitment's time per window and place (a browser page's site, else the app): the
# week counts what the guard judged off task per place.
_PLACE_TIME = f"""
WITH {_spans("WHERE s.commitment_id = :cid", ":until")}
SELECT app, title, place, SUM(secs) AS secs FROM spans WHERE {_WINDOWS_ONLY}
GROUP BY app, title, place
"""

# Stored with each ended commitment: its time per app, a browser's per site (until its end).
_APP_TIME = f"""
WITH {_spans("WHERE s.commitment_id = :cid", ":until")}
INSERT INTO app_time (commitment_id, app, secs)
SELECT commitment_id, place, SUM(secs) FROM spans WHERE {_WINDOWS_ONLY}
GROUP BY commitment_id, place
"""

# Every ended commitment's time per app (after a bulk import).
_ALL_APP_TIME = f"""
WITH {
    _spans(
        "JOIN commitments c ON c.id = s.commitment_id"
        " WHERE c.outcome IS NOT NULL AND c.device_id IS NULL",
        "(julianday(c.ended_at) - 2440587.5) * 86400.0",
    )
}
INSERT INTO app_time (commitment_id, app, secs)
SELECT commitment_id, place, SUM(secs) FROM spans WHERE {_WINDOWS_ONLY}
GROUP BY commitment_id, place
"""

_HISTORY_ORDER = " ORDER BY ended_at DESC, rowid DESC"

# The CSV's `site`: the site most of a commitment's browser samples were on (by the index
# of its samples; none without a site).
_TOP_SITE = (
    "SELECT s.site FROM samples s WHERE s.commitment_id = c.id AND s.site IS NOT NULL"
    " GROUP BY s.site ORDER BY COUNT(*) DESC, s.site LIMIT 1"
)

# Tables whose rows belong to one commitment: removing an entry from the history removes
# them too (new tables of that kind go here).
_PER_COMMITMENT_TABLES = (
    "samples",
    "app_time",
    "drift_judgements",
    "drift_episodes",
    "drift_summary",
    "sync_window_time",
    *evidence_tables.TABLES,  # the other machines' evidence for it (and this one's, guarding it)
)


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _dt(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value is not None else None


def _commitment(row: sqlite3.Row) -> Commitment:
    return Commitment(
        id=row["id"],
        next_action=row["next_action"],
        success_condition=row["success_condition"],
        timebox_secs=row["timebox_secs"],
        started_at=_dt(row["started_at"]),
        deadline=_dt(row["deadline"]),
        ended_at=_dt(row["ended_at"]),
        outcome=Outcome(row["outcome"]) if row["outcome"] else None,
        note=row["note"],
        extended_secs=row["extended_secs"],
        task=TaskRef(row["task_source"], row["task_id"], row["task_title"], row["task_url"])
        if row["task_source"]
        else None,
        enforce=row["enforce"],
        paused_at=_dt(row["paused_at"]),
        paused_secs=row["paused_secs"],
        written_back=row["written_back"],
        away_secs=row["away_secs"],
        device_id=row["device_id"],
        device=row["device"],
        day_item_id=row["day_item_id"],
    )


def _task_columns(task: TaskRef | None) -> tuple[str | None, ...]:
    return (task.source, task.id, task.title, task.url) if task else (None,) * 4


class SQLiteStore(
    Connections, DriftRecords, SampleRecords, SyncRecords, DayRecords, DaySync, DeviceRecords
):
    """The embedded default store: one file, WAL, one transaction per change (its connections:
    changes.Connections; the drift guard's tables: drift_tables.DriftRecords; the samples:
    samples.SampleRecords)."""

    def schema_version(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
        return row[0] or 0

    def load(self) -> Persisted:
        with self._lock:
            runtime = self._db.execute("SELECT state, commitment_id FROM runtime").fetchone()
            if runtime is None or runtime["commitment_id"] is None:
                state = RuntimeState(runtime["state"]) if runtime else RuntimeState.LOCKED
                return Persisted(state=state)
            row = self._db.execute(
                "SELECT * FROM commitments WHERE id = ?", (runtime["commitment_id"],)
            ).fetchone()
        commitment = _commitment(row)
        return Persisted(RuntimeState(runtime["state"]), commitment, self.samples(commitment.id))

    def save(self, state: RuntimeState, commitment: Commitment | None) -> None:
        """Write the runtime state and the commitment it points to, atomically."""
        with self._lock:
            db = self._writing()
            if commitment is not None:
                db.execute(
                    "INSERT INTO commitments (id, next_action, success_condition,"
                    " timebox_secs, started_at, deadline, ended_at, outcome, note,"
                    " extended_secs, task_source, task_id, task_title, task_url, enforce,"
                    " paused_at, paused_secs, away_secs, day_item_id)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT(id) DO UPDATE SET next_action = excluded.next_action,"
                    " ended_at = excluded.ended_at,"
                    " outcome = excluded.outcome, note = excluded.note,"
                    " deadline = excluded.deadline, extended_secs = excluded.extended_secs,"
                    " paused_at = excluded.paused_at, paused_secs = excluded.paused_secs,"
                    " away_secs = excluded.away_secs",
                    (
                        commitment.id,
                        commitment.next_action,
                        commitment.success_condition,
                        commitment.timebox_secs,
                        _iso(commitment.started_at),
                        _iso(commitment.deadline),
                        _iso(commitment.ended_at),
                        commitment.outcome.value if commitment.outcome else None,
                        commitment.note,
                        commitment.extended_secs,
                        *_task_columns(commitment.task),
                        commitment.enforce,
                        _iso(commitment.paused_at),
                        commitment.paused_secs,
                        commitment.away_secs,
                        commitment.day_item_id,
                    ),
                )
            if commitment is not None and commitment.outcome is not None:
                self._keep_app_time(commitment)
                self._changed(commitment.id)
            current = commitment.id if commitment and commitment.outcome is None else None
            db.execute(
                "UPDATE runtime SET state = ?, commitment_id = ? WHERE id = 1",
                (state.value, current),
            )

    def load_draft(self) -> str | None:
        """The planning draft as last saved (JSON text), or None."""
        with self._lock:
            row = self._db.execute("SELECT draft FROM runtime WHERE id = 1").fetchone()
        return row["draft"] if row else None

    def save_draft(self, draft: str | None) -> None:
        with self._lock:
            self._writing().execute("UPDATE runtime SET draft = ? WHERE id = 1", (draft,))

    def load_rhythm(self) -> str | None:
        """The rhythm as last saved (JSON text: core/rhythm.py), or None."""
        with self._lock:
            row = self._db.execute("SELECT rhythm FROM runtime WHERE id = 1").fetchone()
        return row["rhythm"] if row else None

    def save_rhythm(self, rhythm: str | None) -> None:
        with self._lock:
            self._writing().execute("UPDATE runtime SET rhythm = ? WHERE id = 1", (rhythm,))

    def _keep_app_time(self, commitment: Commitment) -> None:
        """Inside save's transaction: the ended commitment's actual time and time per app."""
        until = commitment.ended_at or commitment.deadline
        db = self._writing()
        db.execute(
            "UPDATE commitments SET actual_secs = ? WHERE id = ?",
            (
                commitment.actual_secs,
                commitment.id,
            ),
        )
        db.execute("DELETE FROM app_time WHERE commitment_id = ?", (commitment.id,))
        db.execute(_APP_TIME, {"cid": commitment.id, "until": until.timestamp()})

    def rebuild_app_time(self) -> None:
        """Recompute every ended commitment's time per app (after a bulk import)."""
        with self._lock:
            db = self._writing()
            # Another machine's commitments keep the time per app their record carried.
            db.execute(
                "DELETE FROM app_time WHERE commitment_id IN"
                " (SELECT id FROM commitments WHERE device_id IS NULL)"
            )
            db.execute(_ALL_APP_TIME)

    def history(self, limit: int | None = None, before: str | None = None) -> list[Commitment]:
        """Ended commitments, newest first; all of them unless limited; `before` an id pages.

        KeyError when `before` names no ended commitment."""
        where, params = "outcome IS NOT NULL", []
        with self._lock:
            if before is not None:
                anchor = self._db.execute(
                    "SELECT ended_at, rowid FROM commitments WHERE id = ? AND outcome IS NOT NULL",
                    (before,),
                ).fetchone()
                if anchor is None:
                    raise KeyError(before)
                where += " AND (ended_at, rowid) < (?, ?)"
                params += [anchor["ended_at"], anchor["rowid"]]
            rows = self._db.execute(
                f"SELECT * FROM commitments WHERE {where}{_HISTORY_ORDER} LIMIT ?",
                (*params, -1 if limit is None else limit),
            ).fetchall()
        return [_commitment(r) for r in rows]

    def ended_since(self, since: datetime) -> list[Commitment]:
        """Ended commitments whose end is at or after `since`, newest first (the week)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM commitments WHERE outcome IS NOT NULL"
                f" AND julianday(ended_at) >= julianday(?){_HISTORY_ORDER}",
                (since.isoformat(),),
            ).fetchall()
        return [_commitment(r) for r in rows]

    def met_times(self) -> list[datetime]:
        """When each met commitment ended, newest first (the weekly streak)."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT ended_at FROM commitments WHERE outcome = ?{_HISTORY_ORDER}",
                (Outcome.MET.value,),
            ).fetchall()
        return [datetime.fromisoformat(r[0]) for r in rows]

    def window_time(self, commitment_id: str, until: datetime, top: int = 12) -> WindowTime:
        """Where one commitment's focus went: its top windows, every app, the sample count."""
        with self._lock:
            rows = self._db.execute(
                _WINDOW_TIME, {"cid": commitment_id, "until": until.timestamp(), "top": top}
            ).fetchall()
        apps = [r for r in rows if r["kind"] == "app"]
        whole = sum(r["secs"] for r in apps)
        return WindowTime.of(
            [(r["app"], r["title"], r["secs"]) for r in rows if r["kind"] == "window"],
            [(r["app"], r["secs"]) for r in apps],
            whole,
            sum(r["n"] for r in apps),
        )

    def place_time(self, commitment_id: str, until: datetime) -> PlaceTime:
        """One commitment's seconds per (app, title, place) (insights.place_time in SQL),
        with what its record brought from the machine it ran on (store/sync_evidence.py)."""
        with self._lock:
            rows = self._db.execute(
                _PLACE_TIME, {"cid": commitment_id, "until": until.timestamp()}
            ).fetchall()
            rows += self._db.execute(
                "SELECT app, title, place, secs FROM sync_window_time WHERE commitment_id = ?",
                (commitment_id,),
            ).fetchall()
        found: PlaceTime = {}
        for r in rows:
            key = (r["app"], r["title"], r["place"])
            found[key] = found.get(key, 0.0) + r["secs"]
        return found

    def ended_figures(self, limit: int | None = None) -> list[Ended]:
        """Ended commitments' planned and actual time and outcome, newest first (all unless
        limited)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT timebox_secs, actual_secs, outcome FROM commitments"
                f" WHERE outcome IN (?, ?){_HISTORY_ORDER} LIMIT ?",
                (*COUNTED, -1 if limit is None else limit),
            ).fetchall()
        outcomes = {o.value: o for o in Outcome}
        return [Ended(planned, actual or 0, outcomes[outcome]) for planned, actual, outcome in rows]

    def export_rows(self) -> list[tuple]:
        """Every ended commitment as plain values in EXPORT_COLUMNS order, newest first (the
        CSV of 10,000 entries skips building a Commitment for each)."""
        with self._lock:
            return self._db.execute(
                "SELECT c.id, c.next_action, c.success_condition, c.timebox_secs, c.started_at,"
                " c.ended_at, c.outcome, c.note, c.extended_secs, c.actual_secs,"
                " COALESCE(d.drift_count, 0),"
                " ROUND(MIN(MAX(d.on_task_share, 0.0), 1.0), 4), c.task_title, c.paused_secs,"
                f" c.away_secs, c.written_back, ({_TOP_SITE}), c.device"
                " FROM commitments c LEFT JOIN drift_summary d ON d.commitment_id = c.id"
                " WHERE c.outcome IS NOT NULL ORDER BY c.ended_at DESC, c.rowid DESC"
            ).fetchall()

    def top_sites(self, ids: list[str]) -> dict[str, str]:
        """The site most of each commitment's browser samples were on (ids with one)."""
        found: dict[str, str] = {}
        for start in range(0, len(ids), 500):  # SQLite bounds the number of parameters
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            with self._lock:
                rows = self._db.execute(
                    f"SELECT c.id, ({_TOP_SITE}) FROM commitments c WHERE c.id IN ({marks})",
                    chunk,
                ).fetchall()
            found.update({r[0]: r[1] for r in rows if r[1] is not None})
        return found

    def app_totals(self) -> dict[str, float]:
        """Seconds per app over every ended commitment (a discarded one is not counted),
        with what the user's other machines watched for it (by place, as its own)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT app, SUM(secs) FROM (SELECT a.app, a.secs FROM app_time a"
                " JOIN commitments c ON c.id = a.commitment_id WHERE c.outcome IN (?, ?)"
                " UNION ALL SELECT w.place, w.secs FROM device_windows w"
                " JOIN commitments c ON c.id = w.commitment_id WHERE c.outcome IN (?, ?))"
                " GROUP BY app",
                COUNTED * 2,
            ).fetchall()
        return {app: secs for app, secs in rows}

    def entry(self, commitment_id: str) -> Commitment | None:
        """One ended commitment, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT * FROM commitments WHERE id = ? AND outcome IS NOT NULL", (commitment_id,)
            ).fetchone()
        return _commitment(row) if row is not None else None

    def correct(self, commitment_id: str, outcome: Outcome, note: str) -> Commitment | None:
        """Set an ended commitment's outcome and note; None when no such entry is in history."""
        with self._lock:
            row = (
                self._writing()
                .execute(
                    "UPDATE commitments SET outcome = ?, note = ?"
                    " WHERE id = ? AND outcome IS NOT NULL RETURNING *",
                    (outcome.value, note, commitment_id),
                )
                .fetchone()
            )
            if row is not None:
                self._changed(commitment_id)
        return _commitment(row) if row is not None else None

    def claim_write_back(self, commitment_id: str, action: str) -> bool:
        """Record that the commitment's one write-back is `action`; False when one already
        is (a single UPDATE: of two presses at once, one wins)."""
        with self._lock:
            cursor = self._writing().execute(
                "UPDATE commitments SET written_back = ? WHERE id = ? AND written_back IS NULL",
                (action, commitment_id),
            )
        return cursor.rowcount == 1

    def release_write_back(self, commitment_id: str) -> None:
        """The claimed write-back failed (nothing was written): it can be pressed again."""
        with self._lock:
            self._writing().execute(
                "UPDATE commitments SET written_back = NULL WHERE id = ?", (commitment_id,)
            )

    def delete(self, commitment_id: str) -> bool:
        """Remove an ended commitment with everything recorded for it; False when unknown."""
        with self._lock:
            db = self._writing()
            found = db.execute(
                "SELECT 1 FROM commitments WHERE id = ? AND outcome IS NOT NULL",
                (commitment_id,),
            ).fetchone()
            if found:
                for table in _PER_COMMITMENT_TABLES:
                    db.execute(f"DELETE FROM {table} WHERE commitment_id = ?", (commitment_id,))
                db.execute("DELETE FROM commitments WHERE id = ?", (commitment_id,))
                self._changed(commitment_id)
        return found is not None

    def integrity_ok(self) -> bool:
        with self._lock:
            return self._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
