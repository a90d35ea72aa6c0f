"""Every reader of outside data through the one kit of hostile inputs (tests/support/
hostile.py): each ends at once (a FIFO never blocks it, a link to /dev/zero is never read,
nothing is read past its bound) and says what is wrong in its own error, quoting nothing."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest

from antidrift.calendar import Calendar, parse
from antidrift.core.errors import Error
from antidrift.core.outside import parse_json, read_file
from antidrift.evidence.firefox import FirefoxSessions
from antidrift.settings.reader import read_saved
from antidrift.tasks import textfile
from tests.fakes import FakeClock
from tests.support.hostile import KIT, SECRET

NOW = datetime(2026, 3, 2, 13, 20, tzinfo=UTC)


def _calendar_file(path):
    kept = Calendar(path.parent / "cache", FakeClock(NOW))
    kept.configure(parse(str(path)))
    kept.refresh()
    problem = kept.agenda(NOW).problem
    if problem:
        raise Error(problem)


def _firefox(path):
    """The session store where Firefox keeps it, under a home of its own."""
    profile = path.parent / "home" / ".mozilla" / "firefox" / "p"
    (profile / "sessionstore-backups").mkdir(parents=True)
    (profile.parent / "profiles.ini").write_text("[Profile0]\nPath=p\nDefault=1\n")
    store = profile / "sessionstore-backups" / "recovery.jsonlz4"
    path.rename(store) if path.is_symlink() or path.exists() else None
    FirefoxSessions({"HOME": str(path.parent / "home")}).tab("firefox", "Page — Mozilla Firefox")


READERS = {
    "the bounded reader": lambda p: parse_json(read_file(p, max_bytes=1 << 20)),
    "a calendar file": _calendar_file,
    "Firefox's session store": _firefox,
    "saved settings": read_saved,
    "a task file": lambda p: textfile.read(p, p.name),
}


# What every reader says of these, whatever its words around it.
SAID = {
    "a FIFO": "not a regular file",
    "a device": "not a regular file",
    "a link to /dev/zero": "not a regular file",
    "a folder": "not a regular file",
    "a huge file": "larger than",
}


@pytest.mark.parametrize("reader", READERS, ids=str)
@pytest.mark.parametrize("hostile", KIT, ids=str)
def test_every_reader_refuses_every_hostile_input_at_once_quoting_nothing(
    tmp_path, reader, hostile
):
    path = tmp_path / "input.ics"  # a calendar is named so; the other readers take any name
    KIT[hostile](path)
    outcome: list[object] = []

    def read() -> None:
        try:
            outcome.append(READERS[reader](path))
        except Exception as exc:  # the test looks at which
            outcome.append(exc)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive(), f"{reader} hung on {hostile}"
    [found] = outcome
    if hostile in SAID:
        assert isinstance(found, Error) and SAID[hostile] in str(found), (reader, found)
    if isinstance(found, BaseException):
        assert isinstance(found, Error), f"{reader} on {hostile}: {found!r}"
        assert SECRET not in str(found) and "\x1b" not in str(found)
