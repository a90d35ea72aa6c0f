"""Every parser of outside data, on whatever a hostile or broken source could hand it
(Hypothesis; the CI profile bounds examples and time, tests/conftest.py): each answers with
its value or its own refusal, never another exception, and what it keeps is bounded."""

from __future__ import annotations

import contextlib
import random
import sqlite3
from datetime import UTC, datetime, timedelta

import lz4.block
from hypothesis import given, settings
from hypothesis import strategies as st

from antidrift.calendar.ics import UnreadableCalendar, decode, read_events
from antidrift.core.outside import Unreadable, Why, parse_json
from antidrift.core.plaintext import CONTROL
from antidrift.evidence import gnome
from antidrift.evidence.firefox import MAGIC, read_mozlz4, selected_tabs
from antidrift.evidence.probe import ProbeError
from antidrift.settings import SettingsError
from antidrift.settings.reader import read_saved
from antidrift.store import check
from antidrift.store.migrations import MIGRATIONS
from antidrift.tasks.markdown import items
from antidrift.tasks.textfile import split_lines
from antidrift.tasks.todotxt import open_lines

START = datetime(2026, 3, 2, tzinfo=UTC)
SPAN = (START, START + timedelta(days=2))

# The words an .ics is made of, in any order and any number: what a broken or hostile
# calendar can put together.
ICS_LINES = st.sampled_from(
    [
        "BEGIN:VCALENDAR", "END:VCALENDAR", "BEGIN:VEVENT", "END:VEVENT", "UID:x",
        "DTSTART:20260302T090000Z", "DTEND:20260302T100000Z", "DTSTART;VALUE=DATE:20260302",
        "DTSTART;TZID=Nowhere/Odd:20260302T090000", "RRULE:FREQ=DAILY;COUNT=3",
        "RRULE:FREQ=HOURLY;UNTIL=20260303T000000Z", "RRULE:FREQ=WEEKLY;BYDAY=MO,TU",
        "RRULE:NONSENSE", "EXDATE:20260303T090000Z", "RECURRENCE-ID:20260303T090000Z",
        "RDATE:20260302T120000Z", "DURATION:PT30M", "DURATION:bad", "SUMMARY:Standup",
        "SUMMARY:\x1b[2J", "STATUS:CANCELLED", "TRANSP:TRANSPARENT", "BEGIN:VTIMEZONE",
        "END:VTIMEZONE", "TZID:Nowhere/Odd", "X-WR-TIMEZONE:Europe/Paris", " folded",
    ]
)  # fmt: skip


@given(st.lists(ICS_LINES | st.text(max_size=30), max_size=40), st.binary(max_size=8))
def test_an_ics_gives_its_events_in_the_span_or_a_refusal(lines, junk):
    data = ("\r\n".join(lines) + "\r\n").encode() + junk
    try:
        events, cut = read_events(decode(data), *SPAN, limit=50)
    except UnreadableCalendar as exc:
        assert exc.message and "\x1b" not in exc.message
        return
    assert len(events) <= 50 and isinstance(cut, bool)
    assert all(e.ends_at > SPAN[0] and e.starts_at < SPAN[1] for e in events)
    assert events == sorted(events)


@given(st.binary(max_size=300))
def test_a_session_store_is_tabs_or_a_probe_error(data):
    for raw in (data, MAGIC + len(data).to_bytes(4, "little") + lz4.block.compress(data)[4:]):
        try:
            tabs = selected_tabs(parse_json(read_mozlz4(raw)))
        except (ProbeError, Unreadable):
            continue
        assert all(isinstance(t, str) and isinstance(u, str) for t, u in tabs)


SHAPES = st.recursive(
    st.none() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=30,
)


@given(SHAPES)
def test_a_session_store_of_any_json_shape_gives_tabs(value):
    assert all(isinstance(t, str) for t, _ in selected_tabs(value))


@given(st.text(max_size=200))
def test_json_from_outside_is_a_value_or_a_refusal(text):
    try:
        parse_json(text, max_containers=20)
    except Unreadable as exc:  # said in its own words, whatever the text was
        assert exc.why in Why and exc.message.startswith("the file ")


@given(st.text(max_size=200))
def test_gdbus_output_is_a_window_none_or_a_probe_error(text):
    for reply in (text, f"('{text}',)"):
        try:
            found = gnome.parse(reply)
        except ProbeError:
            continue
        assert found is None or all(isinstance(part, str) for part in found)


@given(st.binary(max_size=300))
def test_saved_settings_are_a_dict_or_a_refusal(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("settings") / "settings.json"
    path.write_bytes(data)
    with contextlib.suppress(SettingsError):
        assert isinstance(read_saved(path), dict)


@given(st.text(max_size=400))
def test_markdown_and_todo_txt_tasks_come_from_their_own_lines(content):
    text = split_lines(content)  # as the sources split a file they read
    for item in items(text):
        assert 0 <= item.line < len(text) and not CONTROL.search(item.title)
    for line in open_lines(text):
        assert 0 <= line.number < len(text) and not CONTROL.search(line.title)


SPACES = (" ", "  ", "\n", "\t ", " \n  ")


MADE = check._made_by(MIGRATIONS)


# Each example makes the whole schema twice; the spaces come from a seeded choice per
# migration (a Hypothesis draw per space made each example thousands of draws: 9 s).
@settings(max_examples=8)
@given(st.data())
def test_the_restore_check_sees_the_same_schema_written_with_other_spacing(data):
    """Normalised, not SQL text: the migrations written with other spaces and line breaks
    (as an older version may have) make the very same structure."""
    respaced = []
    for version, name, sql in MIGRATIONS:
        words = sql.split(" ")
        pick = random.Random(data.draw(st.integers(0, 2**32 - 1), label=name)).choice
        text = words[0] + "".join(pick(SPACES) + word for word in words[1:])
        respaced.append((version, name, text))
    db = sqlite3.connect(":memory:")
    db.execute(check.SCHEMA_MIGRATIONS)
    for _, _, sql in respaced:
        for statement in filter(str.strip, sql.split(";")):
            db.execute(statement)
    assert check.structure(db) == MADE
    db.close()
