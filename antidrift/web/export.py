"""The history as CSV: RFC 4180, safe to open in a spreadsheet."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

# A cell starting with one of these is run as a formula by Excel, LibreOffice and Sheets
# (CSV injection: `=HYPERLINK(...)`, `@SUM(...)`); a leading apostrophe makes it text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: object) -> object:
    """Text that a spreadsheet would run as a formula, made inert; other values as they are."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def to_csv(columns: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A header row, then one line per row; CRLF line ends and quoting as RFC 4180 says."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(columns)
    writer.writerows(["" if v is None else neutralise(v) for v in row] for row in rows)
    return out.getvalue()
