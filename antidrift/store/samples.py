"""A commitment's window samples in SQLiteStore: added as the sampler sees them, an
absence marked (the away mark: domain.AWAY_MARK, a sample with an empty app and title that
ends the window before it and is no window's), read back without the marks."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from datetime import datetime

from antidrift.core.domain import WindowSample
from antidrift.core.isotime import from_iso

# The rows that are windows: every query of time per window sums these only (the away
# mark still ends the span of the sample before it).
WINDOWS_ONLY = "NOT (app = '' AND title = '')"


class SampleRecords:
    """The samples table's part of SQLiteStore (it provides _db and _lock)."""

    _db: sqlite3.Connection
    _lock: threading.Lock
    _writing: Callable[[], sqlite3.Connection]

    def add_sample(self, commitment_id: str, sample: WindowSample) -> None:
        with self._lock:
            self._writing().execute(
                "INSERT INTO samples (commitment_id, app, title, at, at_epoch, url, site)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    commitment_id,
                    sample.app,
                    sample.title,
                    sample.at.isoformat(),
                    sample.at.timestamp(),
                    sample.url,
                    sample.site,
                ),
            )

    def mark_away(self, commitment_id: str, since: datetime) -> None:
        """An absence began at `since`: the samples taken after it were of no one at the
        keyboard (input had stopped), so they go; the away mark ends the window before it."""
        with self._lock:
            db = self._writing()
            db.execute(
                "DELETE FROM samples WHERE commitment_id = ? AND at_epoch > ?",
                (commitment_id, since.timestamp()),
            )
            db.execute(
                "INSERT INTO samples (commitment_id, app, title, at, at_epoch)"
                " VALUES (?, '', '', ?, ?)",
                (commitment_id, since.isoformat(), since.timestamp()),
            )

    def samples(self, commitment_id: str) -> list[WindowSample]:
        with self._lock:
            rows = self._db.execute(
                "SELECT app, title, at, url, site FROM samples WHERE commitment_id = ?"
                f" AND {WINDOWS_ONLY} ORDER BY at, id",
                (commitment_id,),
            ).fetchall()
        return [
            WindowSample(r["app"], r["title"], from_iso(r["at"]), url=r["url"], site=r["site"])
            for r in rows
        ]
