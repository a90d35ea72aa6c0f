"""The Settings page never loses or hangs on what the user has: a settings.json that cannot be
read (bad JSON, a FIFO, /dev/zero behind a link, JSON nested too deep, a link to someone
else's file) is refused with a sentence and left byte for byte; values the page refuses; a
capped rules list; and a private-title pattern that backtracks cannot freeze the app.
The real app over fakes, real files, real FIFOs."""

from __future__ import annotations

import os
import re
import stat
import threading
import time
from pathlib import Path

import pytest

from antidrift.core.domain import EXCLUDED_TITLE, RuntimeState
from antidrift.core.drift_records import Verdict
from antidrift.drift.rules import MAX_RULES
from antidrift.settings import SettingsError, kinds, load
from antidrift.settings.kinds import MATCH_SECONDS, Pattern
from tests.support.timing import assert_within
from tests.support.walk import walk

HOST = {"Host": "127.0.0.1:7717", "Origin": "http://127.0.0.1:7717"}
PAGE = {**HOST, "Accept": "text/html"}


def _within(seconds: float, call):
    """call() on a thread; fail (not hang) if it has not returned within `seconds`."""
    result: list = []
    worker = threading.Thread(target=lambda: result.append(call()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still waiting after {seconds} s"
    return result[0]


def _state(path: Path) -> tuple:
    """What a Save must leave as it was: the kind of file, a link's target, the bytes."""
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        target = Path(os.path.realpath(path))
        inner = target.read_bytes() if target.is_file() else None
        return ("link", os.readlink(path), inner)
    if stat.S_ISREG(info.st_mode):
        return ("file", path.read_bytes())
    return ("other", stat.S_IFMT(info.st_mode))


def _make_unreadable(path: Path, kind: str, elsewhere: Path) -> None:
    path.unlink(missing_ok=True)
    if kind == "invalid JSON":
        path.write_text('{"drift_grace": 45,')
    elif kind == "a FIFO":
        os.mkfifo(path)
    elif kind == "/dev/zero via a link":
        # The zero device itself, as a node of our own: were a Save ever to write through
        # the link, it would replace this node, never the machine's /dev/zero.
        zero = elsewhere.parent / f"{elsewhere.name}-zero"
        zero.unlink(missing_ok=True)
        try:
            os.mknod(zero, stat.S_IFCHR | 0o666, os.makedev(1, 5))
        except PermissionError:
            pytest.skip("making a device node needs root")
        path.symlink_to(zero)
    elif kind == "JSON nested too deep":
        # 40 KB: under the size bound, so it is the depth that is refused.
        path.write_text('{"drift_grace": ' + "[" * 20_000 + "]" * 20_000 + "}")
    elif kind == "a link to someone else's file":
        elsewhere.write_text("ssh-ed25519 AAAA... the user's key, not settings\n")
        path.symlink_to(elsewhere)
    elif kind == "a link to nothing":
        path.symlink_to(elsewhere.parent / "gone.json")
    elif kind == "a folder":
        path.mkdir()


# Each kind, and the words of the sentence that refuses it (its own reason, not another's).
REASONS = {
    "invalid JSON": "cannot be read as saved settings",
    "a FIFO": "not a regular file (a named pipe)",
    "/dev/zero via a link": "not a regular file (a device)",
    "JSON nested too deep": "(it is nested too deep)",
    "a link to someone else's file": "cannot be read as saved settings",
    "a link to nothing": "which is not there",
    "a folder": "not a regular file (a folder)",
}
UNREADABLE = list(REASONS)


@pytest.fixture
def unblock(tmp_path):
    """Whatever happens, a reader left waiting on a FIFO is let go at the end."""
    yield
    fifo = tmp_path / "settings.json"
    if fifo.exists() and stat.S_ISFIFO(os.lstat(fifo).st_mode):
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            return
        os.write(fd, b"{}")
        os.close(fd)


@pytest.mark.parametrize("kind", UNREADABLE)
def test_a_save_over_an_unreadable_settings_file_is_409_and_leaves_it_as_it_was(
    serve, tmp_path, kind, unblock
):
    client, runtime = serve()
    saved = tmp_path / "settings.json"
    _make_unreadable(saved, kind, tmp_path.parent / f"{tmp_path.name}-elsewhere")
    before = _state(saved)

    answer = _within(5, lambda: client.post("/settings", json={"drift_grace": 45}, headers=HOST))
    assert answer.status_code == 409, answer.get_data(as_text=True)
    message = answer.get_json()["error"]
    assert message.startswith("Nothing was saved: ") and str(saved) in message, message
    assert len(message) < 300 and "\n" not in message, message
    page = _within(5, lambda: client.post("/settings", data={"drift_grace": "45"}, headers=PAGE))
    assert page.status_code == 409 and "Nothing was saved" in page.get_data(as_text=True)

    assert _state(saved) == before
    assert runtime.settings.current().drift_grace == 60  # nothing changed
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".settings")) == []


@pytest.mark.parametrize("kind", UNREADABLE)
def test_reading_settings_at_start_refuses_an_unreadable_file_at_once(tmp_path, kind, unblock):
    _make_unreadable(tmp_path / "settings.json", kind, tmp_path.parent / "elsewhere.json")

    def start():
        try:
            load({}, data_dir=tmp_path)
        except SettingsError as exc:
            return exc.message
        return None

    message = _within(5, start)
    assert message is not None and "settings.json" in message and "\n" not in message, message
    assert REASONS[kind] in message, message


def test_a_fifo_is_refused_without_being_opened(tmp_path):
    # A writer waiting on the FIFO goes on the moment anyone opens it to read: it must still
    # be waiting after the refusal (a device, too, is looked at, never opened).
    fifo = tmp_path / "settings.json"
    os.mkfifo(fifo)
    opened = threading.Event()

    def writer():
        fd = os.open(fifo, os.O_WRONLY)  # blocks until a reader opens it
        opened.set()
        os.close(fd)

    threading.Thread(target=writer, daemon=True).start()
    time.sleep(0.1)
    with pytest.raises(SettingsError, match="a named pipe"):
        load({}, data_dir=tmp_path)
    assert not opened.wait(0.3), "reading the settings opened the FIFO"
    os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))  # let the writer go
    assert opened.wait(5)


def test_a_settings_file_larger_than_any_saved_one_is_refused(tmp_path):
    (tmp_path / "settings.json").write_text('{"ai_model": "' + "x" * 70_000 + '"}')
    with pytest.raises(SettingsError, match="larger than 64 KiB"):
        load({}, data_dir=tmp_path)


def test_a_linked_settings_file_is_written_through_and_stays_a_link(serve, tmp_path):
    dotfiles = tmp_path.parent / f"{tmp_path.name}-dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "antidrift.json"
    real.write_text('{"enforce": "minimize"}\n')
    link = tmp_path / "settings.json"
    link.symlink_to(real)
    client, runtime = serve()
    assert runtime.settings.current().enforce == "minimize"
    answer = client.post("/settings", json={"drift_grace": 45}, headers=HOST)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert '"drift_grace": 45' in real.read_text() and '"enforce": "minimize"' in real.read_text()


# -- 6. values ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"ai_url": "http://127.0.0.1:8080/v1#frag"}, "fragment"),
        ({"drift_grace": "٤٥"}, "a number of seconds"),  # Arabic-Indic digits
        ({"drift_grace": "４５"}, "a number of seconds"),  # full-width digits
        ({"enforce_after": "٣٠"}, "a whole number"),
        ({"drift_grace": "1_0"}, "a number of seconds"),
        ({"notify_command": "notify-send\x00 --"}, "no control characters"),
        ({"ai_model": "m" * 2001}, "at most 2,000 characters"),
        ({"notify_command": "notify-send " + "x" * 2000}, "at most 2,000 characters"),
        ({"evidence_exclude": "|".join(["a"] * 501)}, "at most 500 alternatives"),
    ],
)
def test_a_value_the_page_refuses_is_400_with_a_short_sentence(serve, tmp_path, body, words):
    client, runtime = serve()
    answer = client.post("/settings", json=body, headers=HOST)
    assert answer.status_code == 400, answer.get_data(as_text=True)
    message = answer.get_json()["error"]
    assert words in message and len(message) < 400 and "\x00" not in message, message
    assert not (tmp_path / "settings.json").exists()


def test_a_long_value_in_the_environment_is_refused_in_a_short_line(tmp_path):
    with pytest.raises(SettingsError) as refused:
        load({"ANTIDRIFT_AI_COMMAND": "llm " + "x" * 5000}, data_dir=tmp_path)
    assert "at most 2,000 characters" in refused.value.message
    assert len(refused.value.message) < 400


def test_the_standing_rules_stop_at_the_cap_and_a_replacement_still_goes_through(client, store):
    for i in range(MAX_RULES):
        store.add_rule(f"app{i}", "", Verdict.ON_TASK)
    more = client.post("/rules", json={"app": "one-more", "verdict": "on_task"}, headers=HOST)
    assert more.status_code == 400, more.get_data(as_text=True)
    assert "remove one first" in more.get_json()["error"]
    again = client.post("/rules", json={"app": "APP7", "verdict": "off_task"}, headers=HOST)
    assert again.status_code == 201, again.get_data(as_text=True)  # replaces app7: no growth
    assert len(store.rules()) == MAX_RULES


# -- 7. a pattern that backtracks ----------------------------------------------------------------

BACKTRACKS = r"(a+)+$"
CRAFTED = "a" * 5000 + "!"


def test_a_backtracking_pattern_cannot_freeze_the_app_under_the_lock(make_controller, store):
    # Before: Python's own engine on a title of 24 letters; the crafted one has 5,000.
    began = time.monotonic()
    re.compile(BACKTRACKS, re.IGNORECASE).search("a" * 20 + "!")
    before = time.monotonic() - began
    controller = make_controller(exclude_titles=Pattern().parse(BACKTRACKS))
    walk(controller, RuntimeState.ACTIVE)
    waited: list[float] = []

    def record():
        controller.record_window("code", CRAFTED)

    recorder = threading.Thread(target=record, daemon=True)  # never keeps pytest from exiting
    recorder.start()
    deadline = time.monotonic() + 10
    while recorder.is_alive() and time.monotonic() < deadline:  # a page asks, as pages do
        asked = time.monotonic()
        snapshot = threading.Thread(target=controller.snapshot, daemon=True)
        snapshot.start()
        snapshot.join(deadline - time.monotonic())
        waited.append(time.monotonic() - asked)
        time.sleep(0.005)
    assert not recorder.is_alive(), f"recording one title took over 10 s (before: {before:.2f} s)"
    began = time.monotonic()
    controller.record_window("code", CRAFTED)
    after = time.monotonic() - began

    assert_within(after, 1.0, "recording a crafted title")
    assert_within(max(waited, default=0.0), 0.5, "the controller's lock")
    assert after < 3 * MATCH_SECONDS + 0.5, (before, after)
    titles = [s.title for _, s in store.sample_rows]
    assert titles == [EXCLUDED_TITLE, EXCLUDED_TITLE]  # undecided is private, never in clear


def test_the_title_is_searched_outside_the_controller_lock(make_controller, store, monkeypatch):
    # A search allowed a whole second: were it under the lock, a page would wait that long.
    monkeypatch.setattr(kinds, "MATCH_SECONDS", 1.0)
    controller = make_controller(exclude_titles=Pattern().parse(BACKTRACKS))
    walk(controller, RuntimeState.ACTIVE)
    recorder = threading.Thread(target=controller.record_window, args=("code", CRAFTED))
    began = time.monotonic()
    recorder.start()
    waited: list[float] = []
    while recorder.is_alive() and time.monotonic() - began < 10:
        asked = time.monotonic()
        controller.snapshot()
        waited.append(time.monotonic() - asked)
        time.sleep(0.01)
    recorder.join(10)
    took = time.monotonic() - began
    assert took >= 0.9, took  # the search did run its second
    assert_within(max(waited), 0.3, "the controller's lock during a long search")
    assert [s.title for _, s in store.sample_rows] == [EXCLUDED_TITLE]


def test_the_bounded_pattern_still_decides_ordinary_titles(make_controller, store):
    controller = make_controller(exclude_titles=Pattern().parse("bank|privé"))
    walk(controller, RuntimeState.ACTIVE)
    controller.record_window("firefox", "My BANK — statement")
    controller.record_window("firefox", "PRIVÉ notes")
    controller.record_window("code", "notes.txt")
    assert [s.title for _, s in store.sample_rows] == [EXCLUDED_TITLE, EXCLUDED_TITLE, "notes.txt"]
