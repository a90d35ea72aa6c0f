"""Times as text: ISO 8601 with the offset, as the database holds them and /state shows them,
and back. The one pair of helpers for it: the store, the web's JSON and the adapters that
read another program's times take these."""

from __future__ import annotations

from datetime import date, datetime, tzinfo


def iso(value: datetime | None) -> str | None:
    """The ISO 8601 text of a time; None stays None."""
    return value.isoformat() if value is not None else None


def from_iso(value: str | None, *, naive: tzinfo | None = None) -> datetime | None:
    """The time ISO 8601 text names; None stays None. A time written without an offset is
    taken in `naive` when given (another program's UTC), else left naive. ValueError for text
    that is no such time, TypeError for a value that is no text."""
    if value is None:
        return None
    found = datetime.fromisoformat(value)
    return found.replace(tzinfo=naive) if naive is not None and found.tzinfo is None else found


def date_of(value: str) -> date:
    """The day ISO 8601 text (2026-12-05) names; ValueError for text that is no such day,
    TypeError for a value that is no text."""
    return date.fromisoformat(value)
