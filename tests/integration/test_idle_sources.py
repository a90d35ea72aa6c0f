"""The idle sources against the real things: a real aw-server fed pings as aw-watcher-afk
sends them, Xvfb's real screensaver extension read by the real xprintidle (xdotool input
resets it), and the real gdbus on a private D-Bus bus reaching stand-ins of GNOME's Mutter
IdleMonitor and the freedesktop ScreenSaver; and the choice among them."""

from __future__ import annotations

import shutil
import subprocess
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from antidrift.evidence.choose import choose_idle
from antidrift.evidence.gnome import MutterIdle
from antidrift.evidence.idle import ActivityWatchIdle, ScreenSaverIdle, close
from antidrift.evidence.probe import ProbeError
from antidrift.evidence.report import idle_lines
from antidrift.evidence.sway import SwayIdle
from antidrift.evidence.x11 import X11Idle
from tests.support import procs, x11
from tests.support.procs import stop
from tests.support.require import need
from tests.support.session_bus import INSTALL, private_bus, read_line, system_python

STANDIN = Path(__file__).resolve().parents[1] / "support" / "idle_standin.py"


# -- ActivityWatch's aw-watcher-afk -----------------------------------------------------------


def test_the_afk_watchers_not_afk_events_end_at_the_last_input(aw):
    probe = ActivityWatchIdle(aw.url)
    with pytest.raises(ProbeError, match="no bucket aw-watcher-afk_.*aw-watcher-afk"):
        probe.idle_secs()
    aw.create_afk_bucket()
    assert probe.idle_secs() == 0  # no event yet
    now = datetime.now(UTC)
    aw.afk_ping(False, now - timedelta(seconds=40))  # typing until 40 s ago
    aw.afk_ping(False, now - timedelta(seconds=20))  # … then until 20 s ago
    assert 20 <= probe.idle_secs() < 30


def test_the_afk_watchers_afk_event_starts_when_input_stopped_and_ends_at_the_return(aw):
    aw.create_afk_bucket()
    probe = ActivityWatchIdle(aw.url)
    # Input stopped 250 s ago; past its 3-minute timeout the watcher turned afk, as its
    # heartbeat loop does: one ping of the old state, then the new one with the duration.
    stopped = datetime.now(UTC) - timedelta(seconds=250)
    aw.afk_ping(False, stopped)
    aw.afk_ping(True, stopped, duration=185)
    aw.afk_ping(True, stopped, duration=250)  # the next ping extends the afk event
    assert 250 <= probe.idle_secs() < 260
    # Back: the afk event ends at the new input and a not-afk one starts there.
    back = datetime.now(UTC)
    aw.afk_ping(True, back)
    aw.afk_ping(False, back)
    assert probe.idle_secs() < 5


def test_an_afk_watcher_that_stopped_pinging_is_a_probe_error(aw):
    aw.create_afk_bucket()
    stopped = datetime.now(UTC) - timedelta(minutes=10)
    aw.afk_ping(True, stopped, duration=60)  # its last ping was nine minutes ago
    with pytest.raises(ProbeError, match="afk watcher has not reported since"):
        ActivityWatchIdle(aw.url).idle_secs()


def test_the_choice_takes_activitywatch_when_the_windows_come_from_it(aw, tmp_path):
    aw.create_afk_bucket()
    env = {"PATH": str(tmp_path), "DISPLAY": ":99"}  # an X11 session without xprintidle
    probe, why = choose_idle("activitywatch", env=env, aw_url=aw.url, platform="linux")
    assert isinstance(probe, ActivityWatchIdle), why
    probe, why = choose_idle("x11", env=env, aw_url=aw.url, platform="linux")
    assert isinstance(probe, ActivityWatchIdle) and "afk" in why  # the fallback


# -- X11's screensaver extension --------------------------------------------------------------

X11_MISSING = x11.missing() + [t for t in ("xprintidle",) if not shutil.which(t)]


@pytest.fixture
def display():
    need(not X11_MISSING, f"needs {', '.join(X11_MISSING)}: {x11.INSTALL} xprintidle")
    server, name = x11.start_xvfb()
    try:
        yield name
    finally:
        stop(server)


def test_xvfbs_idle_time_grows_and_input_resets_it(display):
    env = {"PATH": "/usr/bin:/bin", "DISPLAY": display}
    probe = X11Idle(env)
    subprocess.run(["xdotool", "mousemove", "10", "10"], env=env, check=True, timeout=10)
    time.sleep(1.5)
    assert probe.idle_secs() >= 1.4
    subprocess.run(["xdotool", "mousemove", "200", "150"], env=env, check=True, timeout=10)
    assert probe.idle_secs() < 1.0


def test_the_choice_takes_xprintidle_in_an_x11_session(display):
    env = {"PATH": "/usr/bin:/bin", "DISPLAY": display}
    probe, why = choose_idle("x11", env=env, aw_url="http://127.0.0.1:9", platform="linux")
    assert isinstance(probe, X11Idle) and "X11" in why


def test_without_an_x_server_xprintidle_is_a_probe_error(tmp_path):
    need(shutil.which("xprintidle"), "needs xprintidle")
    with pytest.raises(ProbeError, match="xprintidle failed"):
        X11Idle({"PATH": "/usr/bin:/bin", "DISPLAY": ":9999"}).idle_secs()


# -- GNOME's Mutter IdleMonitor and the freedesktop ScreenSaver, on a private bus ------------


@pytest.fixture
def desktop_bus():
    python = system_python()
    need(
        shutil.which("dbus-daemon") and shutil.which("gdbus") and python,
        f"dbus-daemon, gdbus or python3-dbus/python3-gi missing: {INSTALL}",
    )
    started: list[subprocess.Popen] = []
    with private_bus() as (env, folder):
        idle_file = folder / "idle-ms"

        def start(kind: str, ms: int) -> Path:
            idle_file.write_text(str(ms))
            proc = subprocess.Popen(
                [python, str(STANDIN), kind, str(idle_file)],
                env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            )  # fmt: skip
            started.append(proc)
            assert read_line(proc) == "ready"
            return idle_file

        start.env = env
        yield start
        for proc in started:
            stop(proc)


def test_the_real_gdbus_reads_mutters_idle_time(desktop_bus):
    idle = desktop_bus("mutter", 12_345)
    probe = MutterIdle(desktop_bus.env)
    assert probe.idle_secs() == pytest.approx(12.345)
    idle.write_text("250")  # input
    assert probe.idle_secs() == pytest.approx(0.25)


def test_the_real_gdbus_reads_the_freedesktop_screensavers_idle_time(desktop_bus):
    desktop_bus("screensaver", 200_000)
    assert ScreenSaverIdle(desktop_bus.env).idle_secs() == 200.0


def test_without_mutter_on_the_bus_the_probe_says_so(desktop_bus):
    with pytest.raises(ProbeError, match="gdbus call failed"):
        MutterIdle(desktop_bus.env).idle_secs()


def test_the_choice_takes_mutter_under_gnome_and_the_screensaver_under_kde(desktop_bus):
    desktop_bus("mutter", 1000)
    gnome_env = {**desktop_bus.env, "XDG_CURRENT_DESKTOP": "ubuntu:GNOME"}
    probe, _ = choose_idle("gnome", env=gnome_env, aw_url="http://127.0.0.1:9", platform="linux")
    assert isinstance(probe, MutterIdle)
    # KDE: no Mutter answers the screensaver's name; the freedesktop interface does.
    desktop_bus("screensaver", 3000)
    kde_env = {**desktop_bus.env, "XDG_CURRENT_DESKTOP": "KDE"}
    probe, why = choose_idle("kde", env=kde_env, aw_url="http://127.0.0.1:9", platform="linux")
    assert isinstance(probe, ScreenSaverIdle) and probe.idle_secs() == 3.0, why


def test_nothing_to_tell_is_said(tmp_path):
    probe, why = choose_idle(
        "off", env={"PATH": str(tmp_path)}, aw_url="http://127.0.0.1:9", platform="linux"
    )
    assert probe is None and "no idle time" in why


def test_activitywatchs_afk_watcher_is_taken_with_its_windows_even_before_it_reports(tmp_path):
    # It may start after AntiDrift: until it reports, the sampler logs it and no one is away.
    probe, why = choose_idle(
        "activitywatch", env={"PATH": str(tmp_path)}, aw_url="http://127.0.0.1:9"
    )
    assert isinstance(probe, ActivityWatchIdle) and "window source" in why
    with pytest.raises(ProbeError, match="does not answer"):
        probe.idle_secs()


def test_doctor_says_where_the_idle_time_comes_from(display):
    env = {"PATH": "/usr/bin:/bin", "DISPLAY": display}
    subprocess.run(["xdotool", "mousemove", "5", "5"], env=env, check=True, timeout=10)
    (line,) = idle_lines("x11", env, "http://127.0.0.1:9", "linux")
    assert line.startswith("  idle time     x11 (an X11 session") and "no input for 0 s" in line
    (line,) = idle_lines("off", {"PATH": "/nonexistent"}, "http://127.0.0.1:9", "linux")
    assert line == "  idle time     no idle time from this desktop"


# -- sway: swayidle as a child, on a real headless sway ----------------------------------------


@pytest.fixture
def swayidle_session(sway_desktop, monkeypatch):
    need(shutil.which("swayidle") and shutil.which("wtype"), "needs swayidle and wtype")
    monkeypatch.setattr(SwayIdle, "TIMEOUT", 1)
    env = {**sway_desktop.session_env(), "XDG_RUNTIME_DIR": str(sway_desktop.runtime)}
    probe = SwayIdle(env)
    yield probe, env
    probe.close()


def idle_reaches(probe, check, timeout: float = 10.0) -> float:
    deadline = time.monotonic() + timeout
    while not check(secs := probe.idle_secs()):
        assert time.monotonic() < deadline, f"idle stayed at {secs}"
        time.sleep(0.1)
    return secs


def test_swayidle_says_idle_after_its_timeout_and_input_brings_it_back(swayidle_session):
    probe, env = swayidle_session
    assert probe.idle_secs() == 0  # just started: no word yet
    assert idle_reaches(probe, lambda secs: secs >= 1.0) < 5
    subprocess.run(["wtype", "a"], env=env, check=True, timeout=10)  # a key: input
    idle_reaches(probe, lambda secs: secs == 0)
    pid = probe._child.pid
    probe.close()  # a sampler that stops stops its swayidle
    assert procs.wait_dead(pid)


def test_the_choice_takes_swayidle_in_a_sway_session(swayidle_session):
    _, env = swayidle_session
    probe, why = choose_idle("sway", env=env, aw_url="http://127.0.0.1:9", platform="linux")
    try:
        assert isinstance(probe, SwayIdle) and "SWAYSOCK" in why
    finally:
        close(probe)
