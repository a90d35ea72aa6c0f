"""The CSV writer: RFC 4180 for any text, and formula-looking cells made inert."""

from __future__ import annotations

import csv
import io

from hypothesis import given
from hypothesis import strategies as st

from antidrift.web.export import to_csv

# What Excel, LibreOffice and Sheets run as a formula when a cell starts with it (OWASP's
# CSV injection list), written out here: the module's own list is what is under test.
SPREADSHEET_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

text = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"))
# Text that often starts like a formula, so every start is tried in every run.
risky = st.builds(
    lambda start, rest: start + rest, st.sampled_from(SPREADSHEET_FORMULA_STARTS), text
)


def inert(value: str) -> str:
    """The cell a spreadsheet must be shown: a formula-looking text behind an apostrophe."""
    return "'" + value if value.startswith(SPREADSHEET_FORMULA_STARTS) else value


@given(st.lists(st.tuples(text, st.integers(0, 10**6), st.none() | st.floats(0, 1)), max_size=8))
def test_any_text_reads_back_exactly_and_inert(rows):
    out = to_csv(["note", "secs", "share"], rows)
    parsed = list(csv.reader(io.StringIO(out, newline="")))
    assert parsed[0] == ["note", "secs", "share"]
    assert len(parsed) == len(rows) + 1
    for (note, secs, share), (got_note, got_secs, got_share) in zip(rows, parsed[1:], strict=True):
        assert got_note == inert(note)
        assert got_secs == str(secs)
        assert got_share == ("" if share is None else repr(share))


@given(st.one_of(text, risky))
def test_no_cell_reaches_a_spreadsheet_as_a_formula(value):
    [[header], [cell]] = list(csv.reader(io.StringIO(to_csv(["note"], [(value,)]), newline="")))
    assert header == "note"
    assert cell == inert(value)
    assert not cell.startswith(SPREADSHEET_FORMULA_STARTS)


def test_lines_end_in_crlf_and_fields_with_separators_are_quoted():
    out = to_csv(["a", "b"], [("x,y", 'say "hi"'), ("line\nbreak", "plain")])
    assert out == 'a,b\r\n"x,y","say ""hi"""\r\n"line\nbreak",plain\r\n'
