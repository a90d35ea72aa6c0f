"""The drift guard's tables in the SQLite store: verdicts (with what was sent), episodes,
figures, and the standing rules (migrations 3 and 5). SQLiteStore inherits these methods."""

from __future__ import annotations

import sqlite3
import threading
import uuid
from collections.abc import Callable
from datetime import datetime

from antidrift.core.drift_records import (
    Answer,
    Episode,
    Exchange,
    Judgement,
    Rule,
    Source,
    Verdict,
    Window,
)
from antidrift.core.ports import RULE


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _dt(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value is not None else None


def _judgement(row: sqlite3.Row) -> Judgement:
    # Rows from 0.3 carry on_task alone (migration 5 filled in verdict and source).
    verdict = Verdict(row["verdict"]) if row["verdict"] else None
    if verdict is None:
        verdict = Verdict.ON_TASK if row["on_task"] else Verdict.OFF_TASK
    exchange = None
    if row["sent_to"] is not None:
        exchange = Exchange(
            row["sent_to"], row["sent_app"], row["sent_title"], row["answer"], row["sent_site"]
        )
    return Judgement(verdict, row["reason"], Source(row["source"]), exchange)


def episode_of(r: sqlite3.Row) -> Episode:
    """A drift episode as a row of drift_episodes (or another machine's device_episodes)
    holds it."""
    names = r.keys()  # a Row's `in` looks at its values, not its columns
    return Episode(
        number=r["number"],
        started_at=_dt(r["started_at"]),
        nudged_at=_dt(r["nudged_at"]),
        app=r["app"],
        title=r["title"],
        reason=r["reason"],
        ended_at=_dt(r["ended_at"]),
        answer=Answer(r["answer"]) if r["answer"] else None,
        # Another machine's episodes (store/evidence_tables.py) carry no teeth of ours.
        enforced_at=_dt(r["enforced_at"]) if "enforced_at" in names else None,
        enforce_note=r["enforce_note"] if "enforce_note" in names else None,
    )


def _rule(row: sqlite3.Row) -> Rule:
    return Rule(row["id"], row["app"], row["title_contains"], Verdict(row["verdict"]), row["site"])


class DriftRecords:
    """The drift guard's part of SQLiteStore (it provides _db and _lock)."""

    _db: sqlite3.Connection
    _lock: threading.Lock
    _writing: Callable[[], sqlite3.Connection]

    def save_judgement(self, commitment_id: str, window: Window, judgement: Judgement) -> None:
        """One window's verdict for a commitment, with what was sent (a newer one replaces it)."""
        sent = judgement.exchange
        with self._lock:
            self._writing().execute(
                "INSERT INTO drift_judgements (commitment_id, app, title, on_task, reason,"
                " verdict, source, sent_to, sent_app, sent_title, answer, sent_site)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT(commitment_id, app, title) DO UPDATE"
                " SET on_task = excluded.on_task, reason = excluded.reason,"
                " verdict = excluded.verdict, source = excluded.source,"
                " sent_to = excluded.sent_to, sent_app = excluded.sent_app,"
                " sent_title = excluded.sent_title, answer = excluded.answer,"
                " sent_site = excluded.sent_site, stale = 0",
                (
                    commitment_id,
                    window.app,
                    window.title,
                    int(judgement.on_task),
                    judgement.reason,
                    judgement.verdict.value,
                    judgement.source.value,
                    sent.backend if sent else None,
                    sent.app if sent else None,
                    sent.title if sent else None,
                    sent.answer if sent else None,
                    sent.site if sent else None,
                ),
            )

    def judgements(self, commitment_id: str, *, current: bool = False) -> dict[Window, Judgement]:
        """Every window's verdict for a commitment, in the order they were first decided;
        `current`: only those that still decide (the guard's), not those set aside."""
        where = " AND stale = 0" if current else ""
        with self._lock:
            rows = self._db.execute(
                f"SELECT * FROM drift_judgements WHERE commitment_id = ?{where} ORDER BY rowid",
                (commitment_id,),
            ).fetchall()
        return {Window(r["app"], r["title"]): _judgement(r) for r in rows}

    def forget_verdicts(self, commitment_id: str) -> None:
        """A commitment's verdicts but the user's own answers no longer decide (its next
        action changed): set aside, they still say how the time before the change went."""
        with self._lock:
            self._writing().execute(
                "UPDATE drift_judgements SET stale = 1 WHERE commitment_id = ? AND source != ?",
                (commitment_id, Source.YOU.value),
            )

    def save_episode(self, commitment_id: str, episode: Episode) -> None:
        """Insert or update one drift episode (it is saved when it opens and when it ends)."""
        with self._lock:
            self._writing().execute(
                "INSERT INTO drift_episodes (commitment_id, number, started_at, nudged_at,"
                " ended_at, app, title, reason, answer, enforced_at, enforce_note)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT(commitment_id, number) DO UPDATE SET ended_at = excluded.ended_at,"
                " answer = excluded.answer, enforced_at = excluded.enforced_at,"
                " enforce_note = excluded.enforce_note",
                (
                    commitment_id,
                    episode.number,
                    _iso(episode.started_at),
                    _iso(episode.nudged_at),
                    _iso(episode.ended_at),
                    episode.app,
                    episode.title,
                    episode.reason,
                    episode.answer.value if episode.answer else None,
                    _iso(episode.enforced_at),
                    episode.enforce_note,
                ),
            )

    def episodes(self, commitment_id: str) -> list[Episode]:
        return self.episodes_of([commitment_id]).get(commitment_id, [])

    def episodes_of(self, ids: list[str]) -> dict[str, list[Episode]]:
        """The episodes of each commitment id that has any, in order."""
        found: dict[str, list[Episode]] = {}
        for start in range(0, len(ids), 500):  # SQLite bounds the number of parameters
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            with self._lock:
                rows = self._db.execute(
                    f"SELECT * FROM drift_episodes WHERE commitment_id IN ({marks})"
                    " ORDER BY commitment_id, number",
                    chunk,
                ).fetchall()
            for r in rows:
                found.setdefault(r["commitment_id"], []).append(episode_of(r))
        return found

    def save_drift_summary(
        self,
        commitment_id: str,
        drift_count: int,
        on_task_share: float | None,
        unclear_secs: float = 0.0,
    ) -> None:
        """The figures /history and the review show, written when the commitment goes to
        review: episodes, the on-task share of on/off time, and the time judged unclear."""
        with self._lock:
            self._writing().execute(
                "INSERT INTO drift_summary (commitment_id, drift_count, on_task_share,"
                " unclear_secs) VALUES (?, ?, ?, ?) ON CONFLICT(commitment_id) DO UPDATE"
                " SET drift_count = excluded.drift_count, on_task_share = excluded.on_task_share,"
                " unclear_secs = excluded.unclear_secs",
                (commitment_id, drift_count, on_task_share, unclear_secs),
            )

    def drift_summaries(self, ids: list[str]) -> dict[str, tuple[int, float | None]]:
        """(drift_count, on_task_share) per commitment id that has them."""
        found: dict[str, tuple[int, float | None]] = {}
        for start in range(0, len(ids), 500):  # SQLite bounds the number of parameters
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            with self._lock:
                rows = self._db.execute(
                    "SELECT commitment_id, drift_count, on_task_share FROM drift_summary"
                    f" WHERE commitment_id IN ({marks})",
                    chunk,
                ).fetchall()
            found.update({r[0]: (r[1], r[2]) for r in rows})
        return found

    def unclear_secs(self, commitment_id: str) -> float:
        """Seconds of a commitment's focus the judge called unclear (0 when none, or older)."""
        with self._lock:
            row = self._db.execute(
                "SELECT unclear_secs FROM drift_summary WHERE commitment_id = ?",
                (commitment_id,),
            ).fetchone()
        return float(row[0]) if row is not None else 0.0

    # -- standing rules ----------------------------------------------------------------------

    def rules(self) -> list[Rule]:
        """Every standing rule, oldest first."""
        with self._lock:
            rows = self._db.execute("SELECT * FROM drift_rules ORDER BY rowid").fetchall()
        return [_rule(r) for r in rows]

    def add_rule(self, app: str, title_contains: str, verdict: Verdict, site: str = "") -> Rule:
        """A new rule; one about the same app, site and text (whatever their case) replaced."""
        with self._lock:
            db = self._writing()
            for row in db.execute("SELECT * FROM drift_rules").fetchall():
                same_app = row["app"].casefold() == app.casefold() and row["site"] == site
                if same_app and row["title_contains"].casefold() == title_contains.casefold():
                    db.execute("DELETE FROM drift_rules WHERE id = ?", (row["id"],))
                    self._rule_changed(row["id"])  # its removal goes to the other machines
            rule_id = uuid.uuid4().hex  # one id on every machine
            db.execute(
                "INSERT INTO drift_rules (id, app, title_contains, verdict, site)"
                " VALUES (?, ?, ?, ?, ?)",
                (rule_id, app, title_contains, verdict.value, site),
            )
            self._rule_changed(rule_id)
        return Rule(rule_id, app, title_contains, verdict, site)

    def delete_rule(self, rule_id: str) -> bool:
        """Remove one rule; False when there is none with that id."""
        with self._lock:
            cursor = self._writing().execute("DELETE FROM drift_rules WHERE id = ?", (rule_id,))
            if cursor.rowcount > 0:
                self._rule_changed(rule_id)
        return cursor.rowcount > 0

    def _rule_changed(self, rule_id: str) -> None:
        """Inside the change: the rule goes to the sync folder (its outbox, as a commitment's)."""
        self._writing().execute(
            "INSERT INTO sync_outbox (kind, ref) VALUES (?, ?)", (RULE, rule_id)
        )
