"""A notification's body over D-Bus, never on a command line (issue 30 item 15): `ps` shows
every process's arguments to every local user, and the body holds the next action or what the
teeth put away. Delivered to a fake org.freedesktop.Notifications written here with jeepney,
on a private session bus (a real dbus-daemon) of the test's own."""

from __future__ import annotations

import html
import logging
import os
import shutil
import threading
import time
from pathlib import Path

import pytest
from jeepney import HeaderFields, MessageType, new_error, new_method_return
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

from antidrift.notify import build_notifier
from antidrift.notify.dbus import DBusNotifier
from tests.support.fake_notify import FakeNotifier
from tests.support.require import need
from tests.support.session_bus import private_bus
from tests.support.timing import assert_within

TITLE = "Put away · AntiDrift"
SECRET = "Read the offer letter from Dr. Quux"  # private: must be on no command line
BODY = f"firefox: minimized\nBack to: {SECRET} <b>now</b> & then"


def _command_lines_holding(text: str) -> list[str]:
    """Every process's command line (what `ps` shows any local user) that holds `text`."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            args = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:  # gone, or not ours to read
            continue
        if text in args:
            found.append(args.replace("\0", " "))
    return found


class FakeNotifications(threading.Thread):
    """A notification daemon: owns org.freedesktop.Notifications on the bus, answers
    GetCapabilities with `capabilities`, records each Notify (and, at that moment, every
    command line holding the secret); `answer=False` makes it a daemon that hangs."""

    def __init__(self, address: str, capabilities=("body",), *, answer: bool = True) -> None:
        super().__init__(daemon=True)
        self.capabilities, self.answer = list(capabilities), answer
        self.received: list[dict] = []
        self.exposed: list[str] = []
        self.stopping = threading.Event()
        self.conn = open_dbus_connection(address)
        asked = message_bus.RequestName("org.freedesktop.Notifications", 4)  # do not queue
        assert self.conn.send_and_get_reply(asked, timeout=5).body == (1,)  # primary owner

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                msg = self.conn.receive(timeout=0.05)
            except TimeoutError:
                continue
            if msg.header.message_type is not MessageType.method_call:
                continue
            member = msg.header.fields.get(HeaderFields.member)
            if member == "GetCapabilities":
                self.conn.send_message(new_method_return(msg, "as", (self.capabilities,)))
            elif member == "GetServerInformation":  # what libnotify asks first
                info = ("fake", "antidrift-tests", "1.0", "1.2")
                self.conn.send_message(new_method_return(msg, "ssss", info))
            elif member == "Notify":
                app, replaces, icon, summary, body, actions, hints, expire = msg.body
                self.exposed += _command_lines_holding(SECRET)
                self.received.append({"app": app, "summary": summary, "body": body})
                if self.answer:
                    reply = new_method_return(msg, "u", (len(self.received),))
                    self.conn.send_message(reply)
            else:
                self.conn.send_message(new_error(msg, "org.freedesktop.DBus.Error.UnknownMethod"))

    def close(self) -> None:
        self.stopping.set()
        self.join(5)
        self.conn.close()


@pytest.fixture
def bus():
    """(env with the private bus's address and PATH, a folder) while the bus runs."""
    need(shutil.which("dbus-daemon"), "dbus-daemon missing: apt-get install dbus-daemon")
    with private_bus() as (env, folder):
        yield env, folder


@pytest.fixture
def daemon(bus):
    made: list[FakeNotifications] = []

    def start(**kwargs) -> FakeNotifications:
        fake = FakeNotifications(bus[0]["DBUS_SESSION_BUS_ADDRESS"], **kwargs)
        fake.start()
        made.append(fake)
        return fake

    yield start
    for fake in made:
        fake.close()


def _wait_for(fake: FakeNotifications, count: int = 1) -> list[dict]:
    deadline = time.monotonic() + 5
    while len(fake.received) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    return fake.received


def test_auto_delivers_over_the_bus_and_no_command_line_holds_the_body(bus, daemon, tmp_path):
    env, _ = bus
    fake = daemon()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    send = FakeNotifier(bin_dir)  # a notify-send on PATH that must not be what is used
    notifier = build_notifier("auto", env={**env, "PATH": str(bin_dir)}, platform="linux")
    assert notifier.name == "D-Bus"
    notifier.notify(TITLE, BODY)
    assert fake.received == [{"app": "AntiDrift", "summary": TITLE, "body": BODY}]
    assert fake.exposed == []  # while it was being shown, `ps` showed the secret nowhere
    assert send.calls() == []


def test_a_daemon_that_reads_markup_gets_the_body_escaped(bus, daemon):
    fake = daemon(capabilities=("body", "body-markup"))
    build_notifier("auto", env=bus[0], platform="linux").notify(TITLE, BODY)
    [shown] = fake.received
    assert shown["body"] == html.escape(BODY, quote=False)
    assert "<b>" not in shown["body"]
    assert shown["summary"] == TITLE  # plain text by the spec


def test_the_time_up_notification_from_a_controller_reaches_the_daemon(
    bus, daemon, make_controller, clock
):
    fake = daemon()
    controller = make_controller(notifier=build_notifier("auto", env=bus[0], platform="linux"))
    controller.enter_planning()
    controller.start_manual_commitment(SECRET, "it is read", 1)
    clock.advance(61)
    assert controller.expire_if_due()
    [shown] = _wait_for(fake)
    assert shown["summary"].startswith("Time's up")
    assert shown["body"] == f"{SECRET}\nDone when: it is read"
    assert fake.exposed == []


def test_texts_that_are_no_valid_d_bus_string_still_arrive(bus, daemon):
    fake = daemon()
    build_notifier("auto", env=bus[0], platform="linux").notify("a\0b", "lone \ud800 half")
    assert fake.received[0]["summary"] == "ab"
    assert fake.received[0]["body"] == "lone ? half"


def test_a_daemon_that_never_answers_costs_the_timeout_and_is_logged(bus, daemon, caplog):
    daemon(answer=False)
    caplog.set_level(logging.WARNING, logger="antidrift.notify")
    notifier = DBusNotifier(bus[0]["DBUS_SESSION_BUS_ADDRESS"], timeout=0.5)
    started = time.monotonic()
    notifier.notify(TITLE, BODY)  # returns, does not raise
    assert_within(time.monotonic() - started, 3, "the D-Bus notifier")
    assert "notification not shown: D-Bus" in caplog.text


def test_no_daemon_on_the_bus_is_a_log_line(bus, caplog):
    caplog.set_level(logging.WARNING, logger="antidrift.notify")
    build_notifier("auto", env=bus[0], platform="linux").notify(TITLE, BODY)
    assert "notification not shown: D-Bus" in caplog.text
    assert "org.freedesktop.Notifications" in caplog.text


def test_a_bus_that_is_gone_is_a_log_line(bus, caplog):
    caplog.set_level(logging.WARNING, logger="antidrift.notify")
    env, folder = bus
    gone = f"unix:path={folder}/no-such-bus"
    build_notifier("auto", env={**env, "DBUS_SESSION_BUS_ADDRESS": gone}, platform="linux").notify(
        TITLE, BODY
    )
    assert "notification not shown: D-Bus" in caplog.text


def test_the_runtime_directory_socket_is_the_bus_when_no_address_is_set(bus, daemon, tmp_path):
    env, folder = bus  # private_bus listens at FOLDER/bus, as systemd keeps $XDG_RUNTIME_DIR/bus
    fake = daemon()
    notifier = build_notifier(
        "auto", env={"PATH": env["PATH"], "XDG_RUNTIME_DIR": str(folder)}, platform="linux"
    )
    assert notifier.name == "D-Bus"
    notifier.notify(TITLE, BODY)
    assert fake.received[0]["body"] == BODY


@pytest.mark.parametrize("address", ["tcp:host=localhost,port=1", "launchd:env=X", "nonsense"])
def test_a_bus_it_cannot_reach_falls_back_to_the_title_alone(tmp_path, address):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    send = FakeNotifier(bin_dir)
    env = {"PATH": str(bin_dir), "DBUS_SESSION_BUS_ADDRESS": address}
    notifier = build_notifier("auto", env=env, platform="linux")
    notifier.notify(TITLE, BODY)
    assert send.calls() == [["--app-name=AntiDrift", "--", TITLE]]
