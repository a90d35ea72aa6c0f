"""The one pair of time-as-text helpers (antidrift/core/isotime.py): ISO 8601 there and back,
another program's offset-less time taken as UTC, and no other module writing its own."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from antidrift.core.isotime import from_iso, iso
from antidrift.evidence import activitywatch
from antidrift.evidence.probe import ProbeError

PACKAGE = Path(__file__).resolve().parents[2] / "antidrift"
AT = datetime(2026, 12, 3, 6, 45, 12, 345678, tzinfo=timezone(timedelta(hours=2)))
# Copies made before the helpers existed, in a wing another change owned at the time: each
# goes from this list when it takes the helpers. A new copy anywhere else fails the test.
LEFT_TO_MOVE = {"store/sqlite.py", "store/drift_tables.py"}


def test_a_time_goes_to_text_and_back_unchanged():
    assert iso(AT) == "2026-12-03T06:45:12.345678+02:00"
    assert from_iso(iso(AT)) == AT and from_iso(iso(AT)).utcoffset() == timedelta(hours=2)
    assert iso(None) is None and from_iso(None) is None


def test_a_time_without_an_offset_stays_naive_unless_told_where_it_is():
    assert from_iso("2026-12-03T06:45:00").tzinfo is None
    assert from_iso("2026-12-03T06:45:00", naive=UTC) == datetime(2026, 12, 3, 6, 45, tzinfo=UTC)
    # An offset the text carries is kept, whatever `naive` says.
    assert from_iso("2026-12-03T06:45:00+02:00", naive=UTC).utcoffset() == timedelta(hours=2)


@pytest.mark.parametrize("text", ["yesterday", "", "2026-13-01T00:00:00"])
def test_text_that_is_no_time_is_a_value_error(text):
    with pytest.raises(ValueError):
        from_iso(text)


def test_activitywatch_reads_an_event_time_without_an_offset_as_utc():
    now = datetime(2026, 12, 3, 6, 45, tzinfo=UTC)
    event = {
        "timestamp": "2026-12-03T06:44:58",
        "duration": 1.0,
        "data": {"app": "a", "title": "t"},
    }
    assert activitywatch.parse_events(json.dumps([event]), now) == ("a", "t")


@pytest.mark.parametrize("stamp", [None, 5, ["2026-12-03T06:44:58+00:00"]])
def test_activitywatch_an_event_time_that_is_no_text_is_a_probe_error(stamp):
    now = datetime(2026, 12, 3, 6, 45, tzinfo=UTC)
    event = {"timestamp": stamp, "duration": 1.0, "data": {"app": "a", "title": "t"}}
    with pytest.raises(ProbeError, match="no valid timestamp"):
        activitywatch.parse_events(json.dumps([event]), now)


def test_no_other_module_writes_its_own_time_text_helpers():
    """`def _iso`/`def _dt` and datetime.fromisoformat stand only in core/isotime.py."""
    own = re.compile(r"def _?(iso|dt)\(|fromisoformat\(")
    found = {
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if path.name != "isotime.py" and own.search(path.read_text())
    }
    assert found <= LEFT_TO_MOVE, f"use antidrift.core.isotime in {sorted(found - LEFT_TO_MOVE)}"
    users = {
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "from antidrift.core.isotime import" in path.read_text()
    }
    assert {"web/projection.py", "evidence/activitywatch.py"} <= users
