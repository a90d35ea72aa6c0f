"""The `calendar` and `calendar_email` settings: what they accept, in the environment, the
saved file and the Settings page; a refusal is one sentence and nothing changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from antidrift.calendar import parse
from antidrift.settings import LiveSettings, SettingsError, load


def test_files_and_https_addresses_are_accepted_in_order(tmp_path):
    got = load(
        {
            "ANTIDRIFT_CALENDAR": " ~/cal/work.ics , https://calendar.example/ical/k3y/basic.ics",
            "ANTIDRIFT_CALENDAR_EMAIL": "me@example.org",
        },
        data_dir=tmp_path,
    )
    assert got.calendar == ("~/cal/work.ics", "https://calendar.example/ical/k3y/basic.ics")
    assert got.calendar_email == "me@example.org"
    file, url = parse(",".join(got.calendar))
    assert file.path == Path("~/cal/work.ics").expanduser() and file.label == "work.ics"
    assert url.url.endswith("basic.ics") and url.label == "calendar.example"


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("http://calendar.example/basic.ics", "only https:// addresses"),
        ("webcal://calendar.example/basic.ics", "only https:// addresses"),
        ("https://me:secret@calendar.example/basic.ics", "user or password"),
        ("~/notes.txt", "is not an .ics file"),
        ("a.ics,a.ics", "named twice"),
    ],
)
def test_what_is_no_calendar_is_refused_in_one_sentence(tmp_path, value, why):
    with pytest.raises(SettingsError) as refused:
        load({"ANTIDRIFT_CALENDAR": value}, data_dir=tmp_path)
    message = str(refused.value)
    assert message.startswith("ANTIDRIFT_CALENDAR=") and why in message and "\n" not in message


def test_an_address_that_is_no_email_is_refused(tmp_path):
    with pytest.raises(SettingsError):
        load({"ANTIDRIFT_CALENDAR_EMAIL": "not an address"}, data_dir=tmp_path)


def test_the_settings_page_saves_both_and_refuses_a_bad_one_changing_nothing(tmp_path):
    live = LiveSettings(load({}, data_dir=tmp_path))
    after = live.update(
        {"calendar": ["~/a.ics", "https://c.example/x.ics"], "calendar_email": "me@x.org"}
    )
    assert after.calendar == ("~/a.ics", "https://c.example/x.ics")
    again = load({}, data_dir=tmp_path)  # the saved file is read at the next start
    assert (again.calendar, again.calendar_email) == (after.calendar, "me@x.org")
    before = live.path.read_bytes()
    with pytest.raises(SettingsError, match="only https://"):
        live.update({"calendar": "http://c.example/x.ics"})
    assert live.path.read_bytes() == before and live.current().calendar == after.calendar
