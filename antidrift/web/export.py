"""The history as CSV: RFC 4180, safe to open in a spreadsheet."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence

# A cell starting with one of these is run as a formula by Excel, LibreOffice and Sheets
# (CSV injection: `=HYPERLINK(...)`, `@SUM(...)`); a leading apostrophe makes it text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: object) -> object:
    """Text that a spreadsheet would run as a formula, made inert; other values as they are."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def to_csv(rows: Sequence[Mapping[str, object]], columns: Sequence[str] | None = None) -> str:
    """A header row, then one line per row; CRLF line ends and quoting as RFC 4180 says."""
    columns = list(columns or (rows[0].keys() if rows else HISTORY_COLUMNS))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if row[c] is None else neutralise(row[c]) for c in columns])
    return out.getvalue()


# The columns of an empty history (the same keys /history rows carry).
HISTORY_COLUMNS = (
    "id",
    "next_action",
    "success_condition",
    "timebox_secs",
    "started_at",
    "ended_at",
    "outcome",
    "note",
    "extended_secs",
    "actual_secs",
    "drift_count",
    "on_task_share",
)
