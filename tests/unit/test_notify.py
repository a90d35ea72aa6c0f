"""The notifier port and its adapters, against fake notifier scripts on a temp PATH."""

from __future__ import annotations

import logging
import threading
import time

import pytest

from antidrift.notify import (
    Background,
    CommandNotifier,
    NoNotifier,
    build_notifier,
)
from tests.support import procs
from tests.support.fake_notify import FakeNotifier
from tests.support.timing import assert_within

TITLE = "Time's up · AntiDrift"
BODY = "Write the intro\nDone when: it is in the doc"
# Every character a shell would act on: if any of it reached a shell, a file would appear.
NASTY = "$(touch {d}/pwned) `touch {d}/pwned2`; touch {d}/pwned3 && echo | cat > {d}/pwned4 'x\" \\"


@pytest.fixture
def bin_dir(tmp_path):
    folder = tmp_path / "bin"
    folder.mkdir()
    return folder


def test_without_a_session_bus_auto_uses_notify_send_with_the_title_alone(bin_dir):
    # Issue 30 item 15: the body is private, and notify-send's command line is seen by `ps`.
    fake = FakeNotifier(bin_dir)
    notifier = build_notifier("auto", env={"PATH": str(bin_dir)}, platform="linux")
    assert notifier.name == "notify-send"
    notifier.notify(TITLE, BODY)
    [argv] = fake.calls()
    assert argv == ["--app-name=AntiDrift", "--", TITLE]
    assert not any("Write the intro" in arg for arg in argv)


def test_a_title_that_looks_like_an_option_stays_text(bin_dir):
    fake = FakeNotifier(bin_dir)
    build_notifier("auto", env={"PATH": str(bin_dir)}, platform="linux").notify(
        "--help", "-u critical"
    )
    assert fake.calls()[0][-2:] == ["--", "--help"]


def test_shell_metacharacters_reach_the_notifier_literally(bin_dir, tmp_path):
    fake = FakeNotifier(bin_dir)
    nasty = NASTY.format(d=tmp_path)
    build_notifier("auto", env={"PATH": str(bin_dir)}, platform="linux").notify(nasty, nasty)
    assert fake.calls()[0][-1] == nasty
    assert not list(tmp_path.glob("pwned*"))


def test_command_mode_splits_like_a_shell_and_appends_title_and_body(bin_dir, tmp_path):
    fake = FakeNotifier(bin_dir, "my-notifier")
    command = f"'{fake.path}' --urgency low 'two words' \"$(touch {tmp_path}/pwned)\""
    notifier = build_notifier("command", command)
    notifier.notify(TITLE, BODY)
    assert fake.calls() == [
        ["--urgency", "low", "two words", f"$(touch {tmp_path}/pwned)", TITLE, BODY]
    ]
    assert not list(tmp_path.glob("pwned*"))


def test_osascript_reads_the_texts_on_stdin_as_code_points_never_on_its_command_line(bin_dir):
    fake = FakeNotifier(bin_dir, "osascript")
    title = 'x" with title "owned'
    body = BODY + ' \\" & (do shell script "touch pwned") é 🙂'
    notifier = build_notifier("auto", env={"PATH": str(bin_dir)}, platform="darwin")
    assert notifier.name == "osascript"
    notifier.notify(title, body)
    assert fake.calls() == [[]]  # no argument: osascript reads its script from stdin
    [script] = fake.stdins()
    prefix, rest = script.split("(string id {", 1)
    assert prefix == "display notification "
    shown, rest = rest.split("}) with title (string id {")
    said, end = rest.split("})")
    assert end == "\n"
    # Nothing but code points: no quote or backslash in a text can change the AppleScript.
    assert "".join(chr(int(n)) for n in shown.split(", ")) == body
    assert "".join(chr(int(n)) for n in said.split(", ")) == title


def test_osascript_shows_an_empty_text_as_an_empty_string(bin_dir):
    fake = FakeNotifier(bin_dir, "osascript")
    build_notifier("auto", env={"PATH": str(bin_dir)}, platform="darwin").notify("T", "")
    assert fake.stdins() == ['display notification "" with title (string id {84})\n']


def test_a_hanging_notifier_is_killed_at_its_timeout(bin_dir):
    fake = FakeNotifier(bin_dir)
    fake.configure(delay=60)
    notifier = build_notifier("auto", env={"PATH": str(bin_dir)}, platform="linux", timeout=0.5)
    started = time.monotonic()
    notifier.notify(TITLE, BODY)  # returns, does not raise
    assert_within(time.monotonic() - started, 5, "the notifier")
    [pid] = fake.pids()
    assert procs.wait_dead(pid), "the hanging notifier was left running"


@pytest.mark.parametrize(
    ("mode", "platform", "tool"),
    [("auto", "linux", "notify-send"), ("auto", "darwin", "osascript"), ("command", "linux", "")],
)
def test_every_notifier_built_as_the_server_builds_it_is_bounded_at_5_seconds(
    bin_dir, mode, platform, tool
):
    # The server passes no timeout (bootstrap): the bound is the notifier's own, and every
    # other test passes a short one, so this is where the 5 s is held.
    fake = FakeNotifier(bin_dir, tool or "my-notifier")
    notifier = build_notifier(mode, str(fake.path), env={"PATH": str(bin_dir)}, platform=platform)
    assert notifier.name == (tool or str(fake.path))
    assert notifier.timeout == 5.0


@pytest.mark.parametrize("mode", ["auto", "command"])
def test_a_missing_notifier_is_one_log_line_and_never_an_error(bin_dir, caplog, mode):
    caplog.set_level(logging.INFO, logger="antidrift.notify")
    notifier = build_notifier(mode, "", env={"PATH": str(bin_dir)}, platform="linux")
    assert isinstance(notifier, NoNotifier)
    notifier.notify(TITLE, BODY)
    lines = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 1, [r.getMessage() for r in caplog.records]
    expected = "notify-send" if mode == "auto" else "notify_command"
    assert expected in lines[0].getMessage()


def test_an_unknown_mode_is_logged_and_runs_without(caplog):
    caplog.set_level(logging.WARNING, logger="antidrift.notify")
    assert isinstance(build_notifier("loud"), NoNotifier)
    assert "the notify setting 'loud'" in caplog.text


def test_off_runs_nothing(bin_dir):
    fake = FakeNotifier(bin_dir)
    build_notifier("off", env={"PATH": str(bin_dir)}).notify(TITLE, BODY)
    assert fake.calls() == []


def test_a_failing_notifier_is_logged_not_raised(bin_dir, caplog):
    fake = FakeNotifier(bin_dir)
    fake.configure(exit=1, stderr="Could not connect: No such file or directory")
    caplog.set_level(logging.WARNING, logger="antidrift.notify")
    build_notifier("auto", env={"PATH": str(bin_dir)}, platform="linux").notify(TITLE, BODY)
    assert "Could not connect" in caplog.text


def test_a_command_that_vanished_is_logged_not_raised(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="antidrift.notify")
    CommandNotifier([str(tmp_path / "gone")]).notify(TITLE, BODY)
    assert "notification not shown" in caplog.text


class _Gated:
    """An inner notifier that holds each call until released."""

    name = "gated"

    def __init__(self) -> None:
        self.release = threading.Event()
        self.delivered: list[tuple[str, str]] = []

    def notify(self, title: str, body: str) -> None:
        self.release.wait(10)
        self.delivered.append((title, body))


def test_background_returns_at_once_while_the_notifier_is_stuck():
    inner = _Gated()
    notifier = Background(inner)
    try:
        started = time.monotonic()
        notifier.notify(TITLE, BODY)
        assert_within(time.monotonic() - started, 0.5, "the notify call")
        assert inner.delivered == []
        inner.release.set()
        deadline = time.monotonic() + 5
        while not inner.delivered and time.monotonic() < deadline:
            time.sleep(0.01)
        assert inner.delivered == [(TITLE, BODY)]
    finally:
        inner.release.set()
        notifier.shutdown(wait=True)


def test_background_drops_rather_than_queueing_without_end(caplog):
    inner = _Gated()
    notifier = Background(inner)
    try:
        for n in range(20):
            notifier.notify(f"n{n}", BODY)
        assert "notification dropped" in caplog.text
    finally:
        inner.release.set()
        notifier.shutdown(wait=True)
    assert 1 <= len(inner.delivered) <= 8


def test_a_command_without_its_own_double_dash_never_gets_a_text_starting_with_a_dash(bin_dir):
    fake = FakeNotifier(bin_dir, "my-notifier")
    build_notifier("command", f"'{fake.path}' -a AntiDrift").notify("-t 1", "--help")
    assert fake.calls() == [["-a", "AntiDrift", " -t 1", " --help"]]


def test_a_command_that_ends_its_options_gets_the_texts_verbatim(bin_dir):
    fake = FakeNotifier(bin_dir, "my-notifier")
    build_notifier("command", f"'{fake.path}' -a AntiDrift --").notify("-t 1", "--help")
    assert fake.calls() == [["-a", "AntiDrift", "--", "-t 1", "--help"]]
