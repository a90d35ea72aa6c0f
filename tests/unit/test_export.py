"""The CSV writer: RFC 4180 for any text, and formula-looking cells made inert."""

from __future__ import annotations

import csv
import io

from hypothesis import given
from hypothesis import strategies as st

from antidrift.web.export import FORMULA_STARTS, neutralise, to_csv

text = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"))


@given(st.lists(st.tuples(text, st.integers(0, 10**6), st.none() | st.floats(0, 1)), max_size=8))
def test_any_text_reads_back_exactly_once_neutralised(rows):
    out = to_csv(["note", "secs", "share"], rows)
    parsed = list(csv.reader(io.StringIO(out, newline="")))
    assert parsed[0] == ["note", "secs", "share"]
    assert len(parsed) == len(rows) + 1
    for (note, secs, share), (got_note, got_secs, got_share) in zip(rows, parsed[1:], strict=True):
        assert got_note == neutralise(note)
        assert got_secs == str(secs)
        assert got_share == ("" if share is None else repr(share))


@given(text)
def test_no_cell_starts_like_a_formula(value):
    cell = neutralise(value)
    assert not cell.startswith(FORMULA_STARTS)
    assert cell in (value, "'" + value)


def test_lines_end_in_crlf_and_fields_with_separators_are_quoted():
    out = to_csv(["a", "b"], [("x,y", 'say "hi"'), ("line\nbreak", "plain")])
    assert out == 'a,b\r\n"x,y","say ""hi"""\r\n"line\nbreak",plain\r\n'
