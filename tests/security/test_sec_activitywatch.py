"""A hostile or misconfigured ActivityWatch (issue 24, findings 1 and 2): the probe reads only
loopback, refused before any connection is attempted, and one wall-clock deadline bounds each
read whole (a server that trickles its status line and headers is cut off at it)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import pytest

from antidrift.core.loopback import is_loopback
from antidrift.evidence.activitywatch import ActivityWatchProbe
from antidrift.evidence.probe import ProbeError
from tests.fakes import wait_until
from tests.support.fake_cli import path_with
from tests.support.http_standin import StandIn
from tests.support.server import REPO, RunningServer, free_port
from tests.support.timing import assert_within
from tests.support.trickle import Listener, TricklingServer, non_loopback_address


def _probe(url: str, timeout: float = 0.5) -> ActivityWatchProbe:
    return ActivityWatchProbe(url, hostname="vm", timeout=timeout)


def test_a_server_that_trickles_its_status_line_and_headers_is_cut_off_at_the_deadline():
    with TricklingServer() as aw:  # the whole answer would take 10 s, a byte at a time
        began = time.monotonic()
        with pytest.raises(ProbeError, match="did not answer within 0.5 s"):
            _probe(aw.url).active_window()
        assert_within(time.monotonic() - began, 1.5, "the probe")
        assert aw.contacts, "the probe never reached the trickling server"


def test_an_answer_that_never_finished_its_headers_is_not_an_aw_server_that_answers():
    with TricklingServer() as aw:
        began = time.monotonic()
        assert _probe(aw.url).answers() is False
        assert_within(time.monotonic() - began, 1.5, "the probe")


def test_a_whole_answer_within_the_deadline_is_read():
    with TricklingServer(every=0.001) as aw:  # ~0.15 s for the whole answer
        assert _probe(aw.url, timeout=5).answers() is True


def _nobody_else_came(listener: Listener) -> None:
    # Our own connection goes after the probe's would have: once it is seen, anything the
    # probe sent is seen too.
    socket.create_connection((listener.host, listener.port), timeout=5).close()
    assert listener.contacted.wait(5)
    time.sleep(0.05)
    assert len(listener.contacts) == 1, "the probe connected to a non-loopback address"


def test_a_non_loopback_address_is_refused_and_never_contacted():
    address = non_loopback_address()
    if address is None:
        pytest.skip("this machine has no address but loopback")
    with Listener(address) as elsewhere:
        with pytest.raises(ProbeError, match="loopback only"):
            _probe(elsewhere.url).active_window()
        assert _probe(elsewhere.url).answers() is False
        _nobody_else_came(elsewhere)


@pytest.mark.parametrize(
    "url",
    ["http://aw.example.net:5600", "http://10.1.2.3:5600", "http://[2001:db8::1]:5600",
     "http://localhost.example.net:5600", "http://127.0.0.1.nip.io:5600"],
)  # fmt: skip
def test_a_name_or_address_off_this_machine_is_never_even_looked_up(url, monkeypatch):
    looked_up: list[object] = []
    real = socket.getaddrinfo
    monkeypatch.setattr(
        socket, "getaddrinfo", lambda host, *a, **k: looked_up.append(host) or real(host, *a, **k)
    )
    connected: list[object] = []
    monkeypatch.setattr(socket.socket, "connect", lambda self, address: connected.append(address))
    with pytest.raises(ProbeError, match="loopback only"):
        _probe(url).active_window()
    assert looked_up == [] and connected == []


def test_localhost_is_read_through_the_resolver_the_hook_sees(monkeypatch):
    # The other side of the test above: the hook does see a lookup when one is made.
    looked_up: list[object] = []
    real = socket.getaddrinfo
    monkeypatch.setattr(
        socket, "getaddrinfo", lambda host, *a, **k: looked_up.append(host) or real(host, *a, **k)
    )
    aw = StandIn(lambda handler: handler.reply(200, {"hostname": "vm"}))
    try:
        assert _probe(aw.url.replace("127.0.0.1", "localhost"), timeout=5).answers() is True
    finally:
        aw.close()
    assert looked_up == ["localhost"]


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "127.1", "::1", "[::1]", "127.9.9.9"])
def test_loopback_hosts(host):
    assert is_loopback(host)


@pytest.mark.parametrize(
    "host", ["10.1.2.3", "0.0.0.0", "aw.lan", "::", "192.0.2.2", "::ffff:10.0.0.1"]
)
def test_other_hosts(host):
    assert not is_loopback(host)


NO_DESKTOP = {
    name: ""
    for name in (
        "DISPLAY", "WAYLAND_DISPLAY", "SWAYSOCK", "HYPRLAND_INSTANCE_SIGNATURE",
        "XDG_CURRENT_DESKTOP",
    )
}  # fmt: skip


def test_auto_boot_answers_state_at_once_whatever_the_desktop_and_aw_server_do(tmp_path):
    # The session says sway, whose tool hangs until its 2 s timeout; then auto asks an
    # aw-server whose answer would take 10 s. None of it may hold the worker's boot.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    started = tmp_path / "swaymsg.started"
    swaymsg = bin_dir / "swaymsg"
    swaymsg.write_text(
        f"#!{sys.executable}\nimport time\n"
        f"open({str(started)!r}, 'a').write(f'{{time.monotonic()}}\\n')\ntime.sleep(30)\n"
    )
    swaymsg.chmod(0o755)
    with TricklingServer() as aw:
        server = RunningServer(
            tmp_path / "data",
            env={
                **NO_DESKTOP,
                "SWAYSOCK": str(tmp_path / "sway.sock"),
                "PATH": path_with(bin_dir),
                "ANTIDRIFT_WINDOW_SOURCE": "auto",
                "ANTIDRIFT_AW_URL": aw.url,
            },
        )
        try:
            server.start()
            answered = time.monotonic()
            assert aw.contacted.wait(10), "auto never asked aw-server"
            check_began = min(float(started.read_text().split()[0]), aw.contacts[0])
            # The first /state came no later than 1.5 s after the check began (or before it).
            assert answered - check_began < 1.5, server.log()
            wait_until(lambda: "window source: sway" in server.log(), timeout=10)
            # An answer that never finished its headers is not "ActivityWatch answers".
            assert "ActivityWatch answers" not in server.log()
        finally:
            server.stop()


def test_start_up_refuses_a_non_loopback_url_before_any_connection(tmp_path):
    address = non_loopback_address()
    if address is None:
        pytest.skip("this machine has no address but loopback")
    with Listener(address) as elsewhere:
        for source in ("activitywatch", "auto"):
            done = subprocess.run(
                [sys.executable, "-m", "antidrift", "serve", "--port", str(free_port())]
                + ["--data-dir", str(tmp_path / "data")],
                cwd=REPO,
                capture_output=True,
                text=True,
                timeout=30,
                env={
                    **os.environ,
                    **NO_DESKTOP,
                    "ANTIDRIFT_WINDOW_SOURCE": source,
                    "ANTIDRIFT_AW_URL": elsewhere.url,
                },
            )
            out = done.stdout + done.stderr
            lines = [ln for ln in out.splitlines() if ln.strip()]
            assert done.returncode != 0 and len(lines) == 1, out
            assert "ANTIDRIFT_AW_URL" in lines[0] and "on this machine" in lines[0], out
        _nobody_else_came(elsewhere)


def test_the_settings_reader_never_looks_a_remote_name_up(monkeypatch):
    from antidrift import settings

    looked_up: list[object] = []
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: looked_up.append(a) or [])
    with pytest.raises(settings.SettingsError, match="ANTIDRIFT_AW_URL.*on this machine"):
        settings.load({"ANTIDRIFT_AW_URL": "http://aw.example.net:5600"})
    assert looked_up == []
