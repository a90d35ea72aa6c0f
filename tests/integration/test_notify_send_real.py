"""The time's-up notification through the real notify-send (libnotify-bin), delivered over a
private D-Bus session bus to a stand-in notification server that records what arrived
(tests/support/notification_standin.py). Issue 24, finding 3: in `command` mode a next action
of `--help` was read by notify-send as an option, and the notification was lost."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from antidrift.notify import build_notifier
from tests.support.procs import stop
from tests.support.require import need
from tests.support.session_bus import INSTALL, private_bus, read_line, system_python

STANDIN = Path(__file__).resolve().parents[1] / "support" / "notification_standin.py"


@pytest.fixture
def daemon(monkeypatch):
    """The private bus with the stand-in daemon on it; `daemon()` lists what it received."""
    python = system_python()
    need(
        shutil.which("notify-send") and shutil.which("dbus-daemon") and python,
        f"notify-send, dbus-daemon or python3-dbus missing: install libnotify-bin; {INSTALL}",
    )
    with private_bus() as (env, folder):
        record = folder / "notifications.jsonl"
        proc = subprocess.Popen(
            [python, str(STANDIN), str(record)],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            assert read_line(proc) == "ready"
            # The notifier's processes inherit the server's environment, as on a desktop.
            monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", env["DBUS_SESSION_BUS_ADDRESS"])

            def received() -> list[dict]:
                if not record.exists():
                    return []
                return [json.loads(line) for line in record.read_text().splitlines()]

            received.env = env
            yield received
        finally:
            stop(proc)


def _time_runs_out(make_controller, clock, notifier, next_action: str) -> None:
    controller = make_controller(notifier=notifier)
    controller.enter_planning()
    controller.start_manual_commitment(next_action, "the help page is read", 1)
    clock.advance(61)
    assert controller.expire_if_due()  # the notifier runs here, synchronously (no Background)


@pytest.mark.parametrize(
    "command",
    ["notify-send -a AntiDrift", "notify-send -a AntiDrift --"],  # the probe's; the README's
)
def test_a_next_action_of_help_reaches_the_real_notify_send_as_the_body(
    daemon, make_controller, clock, command
):
    notifier = build_notifier("command", command, env=daemon.env)
    _time_runs_out(make_controller, clock, notifier, "--help")
    [shown] = daemon()
    assert shown["app"] == "AntiDrift"
    assert shown["summary"].startswith("Time's up")
    assert shown["body"].lstrip().startswith("--help\nDone when: the help page is read")


def test_auto_mode_delivers_an_option_like_next_action_verbatim(daemon, make_controller, clock):
    # auto talks D-Bus itself now (issue 30 item 15): this is our jeepney client against a
    # daemon written with another D-Bus library, as a desktop's would be.
    notifier = build_notifier("auto", env=daemon.env, platform="linux")
    _time_runs_out(make_controller, clock, notifier, "-u critical --version")
    [shown] = daemon()
    assert shown["body"].startswith("-u critical --version\n")
