"""Evidence by device in the SQLite store (migration 20): what a machine other than a
commitment's own watched for it (Guard here too), by the commitment's id and the machine that
watched — this one (device id '', core/device_evidence.HERE: written in the same change as the
guard's judgement that produced it, session/followed.py) or another, taken from its evidence
record (one per commitment and machine; a later stamp replaces it whole). Never tied to the
commitments table, and never mixed with a commitment's own evidence: the commitment may be
another machine's, not here yet, running or in review here; removing the commitment (here, or
by its removal record) removes every machine's evidence for it.

The record (kind `evidence`, id `evidence:<commitment id>:<the watching machine's id>`):
`{"commitment_id", "owner_id" (the machine it runs on), "device" (the watching machine's
name), "windows", "verdicts", "episodes", "summary"}`, the evidence in the shape
store/sync_evidence.py checks (its one check, `Carried`). Each machine's figures are worked
out here from its rows (core/device_evidence.py says how they combine), never taken from the
record's own summary."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable
from dataclasses import replace

from antidrift.core.device_evidence import (
    HERE,
    MAX_DEVICES,
    DeviceEvidence,
    DeviceFigures,
    evidence_key,
)
from antidrift.core.drift_records import Episode, Judgement, Source, Verdict, Window
from antidrift.core.isotime import from_iso, iso
from antidrift.core.ports import EVIDENCE, Incoming, record_id
from antidrift.drift.verdicts import figures
from antidrift.drift.window_key import window_of
from antidrift.store.drift_tables import episode_of
from antidrift.store.sync_evidence import Carried, episodes_json, evidence_of, verdicts_json
from antidrift.store.sync_stamps import keep_seen, marks, seen

TABLES = ("device_evidence", "device_windows", "device_verdicts", "device_episodes")
NAME = 64  # characters of a machine's name kept


class DeviceEvidenceRecords:
    """Evidence by device: SQLiteStore's part (it provides _db, _lock and _writing)."""

    _db: sqlite3.Connection
    _lock: threading.Lock
    _writing: Callable[[], sqlite3.Connection]

    # -- this machine guarding another's commitment: inside the change --------------------

    def followed_begin(self, commitment_id: str, owner_id: str) -> None:
        """Guarding begins (or begins again: what is kept stays)."""
        with self._lock:
            self._writing().execute(
                "INSERT INTO device_evidence (commitment_id, device_id, owner_id) VALUES"
                " (?, ?, ?) ON CONFLICT DO NOTHING",
                (commitment_id, HERE, owner_id),
            )

    def followed_seen(
        self, commitment_id: str, samples: int, window: tuple[str, str, str, float] | None
    ) -> None:
        """A window seen here: how many so far, and a window's time as it now stands (0: its
        time was taken back, the user being away, and its row goes)."""
        with self._lock:
            db = self._writing()
            db.execute(
                "UPDATE device_evidence SET samples = ?, unsent = 1 WHERE commitment_id = ?"
                " AND device_id = ?",
                (samples, commitment_id, HERE),
            )
            if window is not None and window[3] > 0:
                db.execute(
                    "INSERT OR REPLACE INTO device_windows (commitment_id, device_id, app,"
                    " title, place, secs) VALUES (?, ?, ?, ?, ?, ?)",
                    (commitment_id, HERE, *window),
                )
            elif window is not None:
                db.execute(
                    "DELETE FROM device_windows WHERE commitment_id = ? AND device_id = ? AND"
                    " app = ? AND title = ? AND place = ?",
                    (commitment_id, HERE, *window[:3]),
                )

    def followed_verdict(self, commitment_id: str, window: Window, judgement: Judgement) -> None:
        """A window's verdict here (a newer one replaces it, and decides again)."""
        with self._lock:
            self._writing().execute(
                "INSERT INTO device_verdicts (commitment_id, device_id, app, title, site,"
                " verdict, reason, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT(commitment_id, device_id, app, title) DO UPDATE SET"
                " site = excluded.site, verdict = excluded.verdict, reason = excluded.reason,"
                " source = excluded.source, stale = 0",
                (commitment_id, HERE, window.app, window.title, window.site,
                 judgement.verdict.value, judgement.reason, judgement.source.value),
            )  # fmt: skip
            _unsent(self._writing(), commitment_id)

    def followed_set_aside(self, commitment_id: str) -> None:
        """Its next action changed there: the verdicts but the user's own no longer decide."""
        with self._lock:
            self._writing().execute(
                "UPDATE device_verdicts SET stale = 1 WHERE commitment_id = ? AND device_id = ?"
                " AND source != ?",
                (commitment_id, HERE, Source.YOU.value),
            )

    def followed_episode(self, commitment_id: str, episode: Episode) -> None:
        """A drift episode here, when it opens and when it ends."""
        with self._lock:
            self._writing().execute(
                "INSERT OR REPLACE INTO device_episodes (commitment_id, device_id, number,"
                " started_at, nudged_at, ended_at, app, title, reason, answer)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    commitment_id,
                    HERE,
                    episode.number,
                    iso(episode.started_at),
                    iso(episode.nudged_at),
                    iso(episode.ended_at),
                    episode.app,
                    episode.title,
                    episode.reason,
                    episode.answer.value if episode.answer else None,
                ),
            )
            _unsent(self._writing(), commitment_id)

    def followed_publish(self, commitment_id: str) -> None:
        """What was watched here for it goes to the sync folder (its figures worked out
        first): when following ends, and at most once an hour while it goes on (each time a
        segment there: session/followed.PUBLISH)."""
        with self._lock:
            db = self._writing()
            _refigure(db, commitment_id, HERE)
            db.execute(
                "UPDATE device_evidence SET unsent = 0 WHERE commitment_id = ? AND device_id = ?",
                (commitment_id, HERE),
            )
            db.execute(
                "INSERT INTO sync_outbox (kind, ref) VALUES (?, ?)", (EVIDENCE, commitment_id)
            )

    def followed_unsent(self) -> list[str]:
        """The commitments whose evidence here changed since it last went to the sync folder
        (following ended by a restart: it goes at the next start)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT commitment_id FROM device_evidence WHERE device_id = ? AND unsent = 1",
                (HERE,),
            ).fetchall()
        return [row[0] for row in rows]

    def followed_kept(self, commitment_id: str) -> DeviceEvidence | None:
        """What was kept here for a commitment guarded before (a restart since): None, none.
        Its verdicts set aside are left out (the guard asks again)."""
        found = self._by_device([commitment_id], HERE, current=True).get(commitment_id)
        return found[0] if found else None

    def evidence_body(self, commitment_id: str) -> dict | None:
        """This machine's evidence record for a commitment it guarded (None: nothing kept,
        a removal). The sender adds this machine's name."""
        with self._lock:
            row = self._db.execute(
                "SELECT owner_id, drift_count, on_task_share, unclear_secs FROM device_evidence"
                " WHERE commitment_id = ? AND device_id = ?",
                (commitment_id, HERE),
            ).fetchone()
        if row is None:
            return None
        found = self._by_device([commitment_id], HERE).get(commitment_id)
        if not found:  # removed between the two reads (the history deleted): a removal too
            return None
        [kept] = found
        verdicts = verdicts_json(kept.verdicts.items())
        windows = {(a, t, p): s for a, t, p, s in kept.windows}
        summary = (row[1], row[2], row[3])
        body = evidence_of(windows, verdicts, episodes_json(kept.episodes), summary)
        return {"commitment_id": commitment_id, "owner_id": row[0], **body}

    # -- the other machines' records: inside a change -------------------------------------

    def sync_import_evidence(self, records: Iterable[Incoming]) -> tuple[int, list[str]]:
        """Each machine's evidence record newer than the one kept taken (a removal: dropped),
        its ids already checked by the caller; one for a commitment removed here is kept as
        seen and shows nowhere. How many were taken, and why each refused one was."""
        taken, refused = 0, []
        with self._lock:
            db = self._writing()
            newest: dict[str, Incoming] = {}
            for r in records:
                known = newest.get(r.record_id)
                if known is None or r.hlc > known.hlc:
                    newest[r.record_id] = r
            kept = seen(db, list(newest))
            for r in newest.values():
                key = evidence_key(r.record_id)
                if key is None or r.hlc <= kept.get(r.record_id, ""):
                    continue
                cid, device_id = key
                if r.body is not None and not _removed(db, cid):
                    if _too_many(db, cid, device_id):
                        refused.append(f"holds evidence of more than {MAX_DEVICES} machines")
                        continue  # not kept as seen
                    _keep(db, cid, device_id, r.body)
                else:
                    _drop(db, cid, device_id)
                keep_seen(db, [(r.record_id, r.hlc)])
                taken += 1
        return taken, refused

    # -- what the pages read ----------------------------------------------------------------

    def device_evidence_of(self, ids: list[str]) -> dict[str, list[DeviceEvidence]]:
        """Every other machine's evidence (this one's too) for each of these commitments."""
        return self._by_device(ids)

    def device_evidence_stamps(self, commitment_id: str) -> tuple[tuple[str, str], ...]:
        """The stamp of each other machine's evidence record taken for a commitment (a
        removal's too): a few rows of sync_seen's key, for an open review to see new ones."""
        first = f"{EVIDENCE}:{commitment_id}:"
        with self._lock:
            rows = self._db.execute(
                "SELECT record_id, hlc FROM sync_seen WHERE record_id > ? AND record_id < ?"
                " ORDER BY record_id",
                (first, first[:-1] + ";"),  # ";" follows ":": this commitment's ids alone
            ).fetchall()
        return tuple((r[0], r[1]) for r in rows)

    def device_figures_of(self, ids: list[str]) -> dict[str, list[DeviceEvidence]]:
        """Each other machine's figures (its name, no rows) for these commitments."""
        found: dict[str, list[DeviceEvidence]] = {}
        for start in range(0, len(ids), 500):  # SQLite bounds the number of parameters
            chunk = ids[start : start + 500]
            with self._lock:
                rows = self._db.execute(
                    f"SELECT * FROM device_evidence WHERE commitment_id IN ({marks(chunk)})"
                    " ORDER BY commitment_id, device_id",
                    chunk,
                ).fetchall()
            for r in rows:
                found.setdefault(r["commitment_id"], []).append(_head(r))
        return found

    def judged_secs(self, commitment_id: str) -> float:
        """A commitment's own seconds judged on or off task (its share's weight beside the
        other machines'): its windows under its verdicts."""
        with self._lock:
            row = self._db.execute(
                "SELECT COALESCE(ended_at, deadline) FROM commitments WHERE id = ?",
                (commitment_id,),
            ).fetchone()
        if row is None:
            return 0.0
        decided = self.judgements(commitment_id)  # type: ignore[attr-defined]
        if not decided:
            return 0.0
        spans = self.place_time(commitment_id, from_iso(row[0]))  # type: ignore[attr-defined]
        return figures(spans, lambda k: decided.get(window_of(k[0], k[1]))).judged_secs

    def _by_device(
        self, ids: list[str], device_id: str | None = None, *, current: bool = False
    ) -> dict[str, list[DeviceEvidence]]:
        """The evidence of these commitments (of one machine, when named), by machine."""
        found: dict[str, list[DeviceEvidence]] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            where = f"commitment_id IN ({marks(chunk)})"
            params: list[str] = list(chunk)
            if device_id is not None:
                where, params = f"{where} AND device_id = ?", [*chunk, device_id]
            with self._lock:
                heads = self._db.execute(
                    f"SELECT * FROM device_evidence WHERE {where} ORDER BY commitment_id,"
                    " device_id",
                    params,
                ).fetchall()
                windows = self._db.execute(
                    "SELECT commitment_id, device_id, app, title, place, secs FROM"
                    f" device_windows WHERE {where} ORDER BY secs DESC, app, title",
                    params,
                ).fetchall()
                stale = " AND stale = 0" if current else ""
                verdicts = self._db.execute(
                    f"SELECT * FROM device_verdicts WHERE {where}{stale} ORDER BY rowid", params
                ).fetchall()
                episodes = self._db.execute(
                    f"SELECT * FROM device_episodes WHERE {where} ORDER BY number", params
                ).fetchall()
            parts: dict[tuple[str, str], tuple[list, dict, list]] = {
                (h["commitment_id"], h["device_id"]): ([], {}, []) for h in heads
            }
            for w in windows:
                if (part := parts.get((w[0], w[1]))) is not None:
                    part[0].append((w[2], w[3], w[4], w[5]))
            for v in verdicts:
                if (part := parts.get((v["commitment_id"], v["device_id"]))) is not None:
                    window = Window(v["app"], v["title"], v["site"])
                    part[1][window] = Judgement(
                        Verdict(v["verdict"]), v["reason"], Source(v["source"])
                    )
            for e in episodes:
                if (part := parts.get((e["commitment_id"], e["device_id"]))) is not None:
                    part[2].append(episode_of(e))
            for h in heads:
                ws, vs, es = parts[(h["commitment_id"], h["device_id"])]
                kept = replace(_head(h), windows=tuple(ws), verdicts=vs, episodes=tuple(es))
                found.setdefault(h["commitment_id"], []).append(kept)
        return found


def _head(r: sqlite3.Row) -> DeviceEvidence:
    """A machine's evidence without its rows: who, its figures, how many windows seen."""
    shown = DeviceFigures(r["drift_count"], r["on_task_share"], r["unclear_secs"], r["judged_secs"])
    return DeviceEvidence(r["device_id"], r["device"], figures=shown, samples=r["samples"])


def _unsent(db: sqlite3.Connection, commitment_id: str) -> None:
    db.execute(
        "UPDATE device_evidence SET unsent = 1 WHERE commitment_id = ? AND device_id = ?",
        (commitment_id, HERE),
    )


def _removed(db: sqlite3.Connection, commitment_id: str) -> bool:
    """Whether the commitment was removed: its record was taken (or sent) and it is not here."""
    return bool(
        db.execute(
            "SELECT 1 FROM sync_seen WHERE record_id = ? AND NOT EXISTS"
            " (SELECT 1 FROM commitments WHERE id = ?)",
            (record_id(commitment_id), commitment_id),
        ).fetchone()
    )


def _too_many(db: sqlite3.Connection, commitment_id: str, device_id: str) -> bool:
    """A new machine's evidence for a commitment that has MAX_DEVICES machines' already."""
    rows = db.execute(
        "SELECT device_id FROM device_evidence WHERE commitment_id = ? AND device_id != ?",
        (commitment_id, HERE),
    ).fetchall()
    return device_id not in {r[0] for r in rows} and len(rows) >= MAX_DEVICES


def _drop(db: sqlite3.Connection, commitment_id: str, device_id: str) -> None:
    for table in TABLES:
        db.execute(
            f"DELETE FROM {table} WHERE commitment_id = ? AND device_id = ?",
            (commitment_id, device_id),
        )


def _keep(db: sqlite3.Connection, commitment_id: str, device_id: str, body: dict) -> None:
    """A machine's evidence record in place of what was kept of it (the one check)."""
    _drop(db, commitment_id, device_id)
    got = Carried.of(body)
    name, owner = body.get("device"), body.get("owner_id")
    db.execute(
        "INSERT INTO device_evidence (commitment_id, device_id, device, owner_id)"
        " VALUES (?, ?, ?, ?)",
        (
            commitment_id,
            device_id,
            name[:NAME] if isinstance(name, str) else None,
            owner if isinstance(owner, str) and owner.isalnum() and len(owner) <= 64 else "",
        ),
    )
    db.executemany(
        "INSERT OR REPLACE INTO device_windows (commitment_id, device_id, app, title, place,"
        " secs) VALUES (?, ?, ?, ?, ?, ?)",
        [(commitment_id, device_id, *w) for w in got.windows or ()],
    )
    db.executemany(
        "INSERT OR REPLACE INTO device_verdicts (commitment_id, device_id, app, title, site,"
        " verdict, reason, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(commitment_id, device_id, *v) for v in got.verdicts or ()],
    )
    db.executemany(
        "INSERT OR REPLACE INTO device_episodes (commitment_id, device_id, number, started_at,"
        " nudged_at, ended_at, app, title, reason, answer) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(commitment_id, device_id, *e) for e in got.episodes or ()],
    )
    _refigure(db, commitment_id, device_id)


def _refigure(db: sqlite3.Connection, commitment_id: str, device_id: str) -> None:
    """One machine's figures worked out from its rows: its windows under its verdicts (the
    on-task share, unclear and judged seconds), its episodes counted."""
    key = (commitment_id, device_id)
    where = "WHERE commitment_id = ? AND device_id = ?"
    decided = {
        Window(app, title): Judgement(Verdict(v), "")
        for app, title, v in db.execute(
            f"SELECT app, title, verdict FROM device_verdicts {where}", key
        ).fetchall()
    }
    seconds: dict[tuple[str, str], float] = {}
    for app, title, secs in db.execute(
        f"SELECT app, title, secs FROM device_windows {where}", key
    ).fetchall():
        seconds[(app, title)] = seconds.get((app, title), 0.0) + secs
    found = figures(seconds, lambda k: decided.get(window_of(*k)))
    count = db.execute(f"SELECT COUNT(*) FROM device_episodes {where}", key).fetchone()[0]
    db.execute(
        "UPDATE device_evidence SET drift_count = ?, on_task_share = ?, unclear_secs = ?,"
        f" judged_secs = ? {where}",
        (count, found.on_task_share, found.unclear_secs, found.judged_secs, *key),
    )


def forget_device_evidence(db: sqlite3.Connection, ids: Iterable[str]) -> None:
    """Inside a change: every machine's evidence for these removed commitments (not for one
    running here: a removal never touches it)."""
    gone = [
        (cid,)
        for cid in ids
        if not db.execute(
            "SELECT 1 FROM commitments WHERE id = ? AND outcome IS NULL", (cid,)
        ).fetchone()
    ]
    for table in TABLES:
        db.executemany(f"DELETE FROM {table} WHERE commitment_id = ?", gone)
