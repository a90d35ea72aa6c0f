"""What an ended commitment's sync record carries beyond its fields and apps: what its review
shows — the time per window (by place: a browser page's site, else the app), the verdict on
each window, the drift episodes, and the drift figures — and, on the machine that takes the
record, the same kept for that commitment (another machine's: one made here keeps what it
recorded itself), so its history, Insights and week show them.

The body's evidence, each key optional (a record from an older AntiDrift has none, and
leaves what is kept as it was):

    "windows":  [[app, title, place, secs], ...]                  at most MAX_WINDOWS
    "verdicts": [[app, title, site, verdict, reason, source], ...] at most MAX_VERDICTS
    "episodes": [{"number", "app", "title", "reason", "started_at", "nudged_at",
                  "ended_at", "answer"}, ...]                      at most MAX_EPISODES
    "summary":  [drift_count, on_task_share, unclear_secs] | null

Every entry is checked on the way in (`Carried`, the one check: a machine's evidence record
for another's commitment carries the same and is checked by it too, store/evidence_tables.py);
a bad one is left out (the rest are kept), and text is cut to its bound. The time per window
kept here names the machine it came from (sync_window_time.device_id, device)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum

from antidrift.core.drift_records import Answer, Episode, Judgement, Source, Verdict, Window
from antidrift.core.isotime import from_iso, iso

MAX_WINDOWS = 200  # windows carried per commitment, the longest first (as MAX_APPS)
MAX_VERDICTS = 200
MAX_EPISODES = 200
MAX_SECS = 86400.0 * 7
TEXT = 1000  # characters of an app, title, place or site kept
REASON = 2000  # characters of a reason kept


def _text(value: object, limit: int = TEXT) -> str | None:
    return value[:limit] if isinstance(value, str) else None


def _secs(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= MAX_SECS:
        return float(value)
    return None


def _time(value: object) -> str | None:
    """An aware ISO 8601 time as text (None: not one)."""
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        found = from_iso(value)
    except ValueError:
        return None
    return found.isoformat() if found is not None and found.tzinfo is not None else None


def episodes_json(episodes: Iterable[Episode]) -> list[dict[str, object]]:
    """Drift episodes as a record carries them."""
    return [
        {
            "number": e.number,
            "app": e.app,
            "title": e.title,
            "reason": e.reason,
            "started_at": iso(e.started_at),
            "nudged_at": iso(e.nudged_at),
            "ended_at": iso(e.ended_at),
            "answer": e.answer.value if e.answer else None,
        }
        for e in episodes
    ]


def verdicts_json(judgements: Iterable[tuple[Window, Judgement]]) -> list[list[str]]:
    """Each window's verdict as a record carries it."""
    return [
        [w.app, w.title, w.site, j.verdict.value, j.reason, j.source.value] for w, j in judgements
    ]


def evidence_of(
    windows: dict[tuple[str, str, str], float],
    verdicts: list[list[str]],
    episodes: list[dict[str, object]],
    summary: tuple[int, float | None, float] | None,
) -> dict[str, object]:
    """The body's evidence from what the store reads of a commitment (bounded)."""
    longest = sorted(windows.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_WINDOWS]
    # The verdicts of the windows sent first (longest first), then the others: cut to its
    # bound, the list never leaves a long window sent without the verdict it had.
    rank: dict[tuple[str, str], int] = {}
    for n, ((app, title, _place), _secs) in enumerate(longest):
        rank.setdefault((app, title), n)
    first = sorted(verdicts, key=lambda v: rank.get((v[0], v[1]), len(longest)))
    return {
        "windows": [[a, t, p, round(s, 1)] for (a, t, p), s in longest],
        "verdicts": [list(v) for v in first[:MAX_VERDICTS]],
        "episodes": episodes[:MAX_EPISODES],
        "summary": list(summary) if summary is not None else None,
    }


@dataclass(frozen=True)
class Carried:
    """The evidence a record's body carries, every entry checked (a bad one left out, text
    cut to its bound); None where the body has no such part (what is kept of it stays)."""

    windows: list[tuple[str, str, str, float]] | None  # app, title, place, secs
    verdicts: list[tuple[str, str, str, str, str, str]] | None  # app, title, site, verdict,
    #                                                             reason, source
    episodes: list[tuple] | None  # number, started, nudged, ended, app, title, reason, answer
    summary: tuple[int, float | None, float] | None
    has_summary: bool = False

    @classmethod
    def of(cls, body: dict) -> Carried:
        """The one check of what a record carries (a commitment's, or a machine's evidence
        for one)."""

        def part(key: str, check: Callable[[list], list]) -> list | None:
            value = body.get(key)
            return check(value) if isinstance(value, list) else None

        return cls(
            part("windows", _windows),
            part("verdicts", _verdicts),
            part("episodes", _episodes),
            _summary(body.get("summary")),
            "summary" in body,
        )


_PARTS = ("windows", "verdicts", "episodes", "summary")  # a body's evidence, each optional


def carries_evidence(body: dict) -> bool:
    """Whether a body has any part of evidence (one without leaves what is kept as it is:
    keep_evidence would change nothing)."""
    return any(part in body for part in _PARTS)


def keep_evidence(
    db: sqlite3.Connection, commitment_id: str, device_id: str, device: object, body: dict
) -> None:
    """Inside a change: the evidence a record carries kept for another machine's ended
    commitment, each part the record has replacing what was kept of it."""
    got = Carried.of(body)
    if got.windows is not None:
        db.execute("DELETE FROM sync_window_time WHERE commitment_id = ?", (commitment_id,))
        db.executemany(
            "INSERT OR REPLACE INTO sync_window_time (commitment_id, device_id, device, app,"
            " title, place, secs) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(commitment_id, device_id, _text(device, 64), *w) for w in got.windows],
        )
    if got.verdicts is not None:
        db.execute("DELETE FROM drift_judgements WHERE commitment_id = ?", (commitment_id,))
        db.executemany(
            "INSERT OR REPLACE INTO drift_judgements (commitment_id, app, title, on_task,"
            " reason, verdict, source) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (commitment_id, app, title, int(v == Verdict.ON_TASK.value), why, v, source)
                for app, title, _site, v, why, source in got.verdicts
            ],
        )
    if got.episodes is not None:
        db.execute("DELETE FROM drift_episodes WHERE commitment_id = ?", (commitment_id,))
        db.executemany(
            "INSERT OR REPLACE INTO drift_episodes (commitment_id, number, started_at,"
            " nudged_at, ended_at, app, title, reason, answer) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(commitment_id, *e) for e in got.episodes],
        )
    if got.has_summary:
        db.execute("DELETE FROM drift_summary WHERE commitment_id = ?", (commitment_id,))
        if got.summary is not None:
            db.execute(
                "INSERT INTO drift_summary (commitment_id, drift_count, on_task_share,"
                " unclear_secs) VALUES (?, ?, ?, ?)",
                (commitment_id, *got.summary),
            )


def _windows(entries: list) -> list[tuple[str, str, str, float]]:
    rows = []
    for entry in entries[:MAX_WINDOWS]:
        if isinstance(entry, list) and len(entry) == 4:
            app, title, place, secs = (*map(_text, entry[:3]), _secs(entry[3]))
            if app is not None and title is not None and place and secs is not None:
                rows.append((app, title, place, secs))
    return rows


def _one_of(value: object, kind: type[StrEnum]) -> bool:
    """A value of `kind` (text: a list or an object from a record is none, and is never
    looked up, which would raise)."""
    return isinstance(value, str) and value in kind._value2member_map_


def _verdicts(entries: list) -> list[tuple[str, str, str, str, str, str]]:
    """Each window's verdict (its site rides along; a verdict is kept per app and title, as
    the guard keeps it)."""
    rows = []
    for entry in entries[:MAX_VERDICTS]:
        if not (isinstance(entry, list) and len(entry) == 6):
            continue
        app, title, reason = _text(entry[0]), _text(entry[1]), _text(entry[4], REASON)
        if (
            app is None
            or title is None
            or reason is None
            or not _one_of(entry[3], Verdict)
            or not _one_of(entry[5], Source)
        ):
            continue
        site = _text(entry[2]) or ""
        rows.append((app, title, site, entry[3], reason, entry[5]))
    return rows


def _episodes(entries: list) -> list[tuple]:
    rows = []
    for e in entries[:MAX_EPISODES]:
        if not isinstance(e, dict):
            continue
        number, answer = e.get("number"), e.get("answer")
        started, nudged = _time(e.get("started_at")), _time(e.get("nudged_at"))
        ended = _time(e.get("ended_at"))
        app, title = _text(e.get("app")), _text(e.get("title"))
        reason = _text(e.get("reason"), REASON)
        if (
            not isinstance(number, int)
            or isinstance(number, bool)
            or not 0 <= number <= 10**6
            or started is None
            or nudged is None
            or (e.get("ended_at") is not None and ended is None)
            or app is None
            or title is None
            or reason is None
            or (answer is not None and not _one_of(answer, Answer))
        ):
            continue
        rows.append((number, started, nudged, ended, app, title, reason, answer))
    return rows


def _summary(value: object) -> tuple[int, float | None, float] | None:
    if not (isinstance(value, list) and len(value) == 3):
        return None
    count, share, unclear = value
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= 10**6:
        return None
    if share is not None and not (
        isinstance(share, int | float) and not isinstance(share, bool) and 0 <= share <= 1
    ):
        return None
    unclear_secs = _secs(unclear)
    return None if unclear_secs is None else (count, share, unclear_secs)
