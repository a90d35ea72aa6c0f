"""The runtime owns the lifecycle: create_app wires only; start() and stop() do the rest."""

from __future__ import annotations

import gc
import os
import signal
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest

from antidrift import ai
from antidrift.core.domain import Health, RuntimeState
from antidrift.evidence import WindowSampler
from antidrift.server.app import create_app, runtime_of
from antidrift.server.bootstrap import Runtime
from antidrift.server.serve import Server, gunicorn_options, worker_exit
from antidrift.session.snapshot import CoachInfo, CoachStatus
from antidrift.settings import Settings
from antidrift.store.sqlite import SQLiteStore
from tests.fakes import FakeClock, FakeStore, wait_until
from tests.support.fake_cli import FakeCLI
from tests.support.procs import alive, wait_dead
from tests.support.session import build_controller
from tests.support.timing import assert_within

BACKGROUND = ("antidrift-ticker", "antidrift-sampler")


class Probe:
    name = "fake"

    def active_window(self) -> tuple[str, str]:
        return ("Editor", "notes.txt")


class Pages:
    """Stands in for the websocket hub: counts what the runtime asks of it."""

    def __init__(self) -> None:
        self.refreshes = 0
        self.closed = 0

    def refresh(self) -> None:
        self.refreshes += 1

    def close_all(self) -> None:
        self.closed += 1


def background() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name in BACKGROUND and t.is_alive()]


@pytest.fixture
def parts():
    clock, store = FakeClock(), FakeStore()
    controller = build_controller(store, clock)
    sampler = WindowSampler(
        Probe(),
        controller.record_window,
        interval=0.05,
        wanted=controller.wants_evidence,
        on_running=controller.set_watcher,
    )
    runtime = Runtime(controller, store, clock, CoachInfo(None, "none here."), sampler)
    yield runtime
    runtime.stop()


def test_create_app_starts_no_thread_and_the_runtime_starts_and_stops_them(parts, tmp_path):
    assert background() == []
    app = create_app(Settings(data_dir=tmp_path), runtime=parts)
    assert background() == []  # wiring Flask starts nothing
    assert runtime_of(app) is parts
    parts.start()
    parts.start()  # idempotent: still one of each
    assert sorted(background()) == sorted(BACKGROUND)
    parts.stop()
    wait_until(lambda: background() == [], message="a background thread outlived stop()")
    assert parts.store.closed and parts.shutting_down.is_set()


def test_the_tick_ends_an_expired_timebox_and_refreshes_the_pages(parts):
    pages = Pages()
    parts.attach(pages)
    controller, clock = parts.controller, parts.clock
    controller.enter_planning()
    controller.start_manual_commitment("Write", "Done", "5")
    clock.advance(timedelta(minutes=6))
    parts.start()
    wait_until(lambda: controller.snapshot().state is RuntimeState.REVIEW, timeout=5)
    before = pages.refreshes
    wait_until(lambda: pages.refreshes > before, timeout=5, message="no tick reached the pages")


def test_the_sampler_tells_the_controller_whether_it_runs(parts):
    controller = parts.controller
    assert controller.snapshot().evidence.health is Health.UNAVAILABLE
    parts.start()
    assert controller.snapshot().evidence.health is Health.HEALTHY
    controller.enter_planning()
    controller.start_manual_commitment("Write", "Done", "5")
    wait_until(lambda: controller.snapshot().evidence.last is not None)
    assert controller.snapshot().evidence.last.title == "notes.txt"
    parts.quiesce()
    assert not parts.sampler.running
    controller.finish()
    assert controller.snapshot().evidence.health is Health.UNAVAILABLE


def test_stop_closes_pages_and_store_once_whoever_calls_it(parts, tmp_path):
    pages = Pages()
    parts.attach(pages)
    parts.start()
    closes: list[int] = []
    parts.store.close = lambda: closes.append(1)
    parts.quiesce()
    assert pages.closed == 1 and closes == []  # SIGTERM: requests in flight may finish
    threads = [threading.Thread(target=parts.stop) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert pages.closed == 1 and closes == [1]


def test_gunicorns_worker_exit_hook_stops_the_apps_runtime(parts, tmp_path):
    app = create_app(Settings(data_dir=tmp_path), runtime=parts)
    parts.start()

    class Worker:
        wsgi = app

    worker_exit(None, Worker())
    assert parts.store.closed
    wait_until(lambda: background() == [])
    worker_exit(None, type("Unloaded", (), {"wsgi": None})())  # an app that never loaded


def test_stop_kills_a_running_coach_cli_and_its_group_at_once(tmp_path, monkeypatch):
    """The one kill path: stopping the runtime kills the CLI of the call in flight."""
    cli = FakeCLI(tmp_path / "bin", "slowcoach")
    pidfile = tmp_path / "pids"
    cli.configure(delay=30, pidfile=str(pidfile))
    monkeypatch.setenv("PATH", str(cli.folder))
    backend = ai.CommandBackend("slowcoach")
    clock, store = FakeClock(), FakeStore()
    controller = build_controller(store, clock, coach=ai.Service(backend, timeout=60))
    runtime = Runtime(controller, store, clock, CoachInfo("command", None, backend))
    runtime.start()
    controller.enter_planning()
    controller.coaching.request("write the intro")
    pid = int(wait_until(lambda: pidfile.exists() and pidfile.read_text().strip(), timeout=10))
    try:
        assert alive(pid)
        started = time.monotonic()
        runtime.stop()
        assert wait_dead(pid, within=2.0), "the coach CLI outlived the runtime"
        assert_within(time.monotonic() - started, 5, "the stop")
        assert controller.snapshot().coach.status == CoachStatus.IDLE
        assert store.closed
    finally:
        if alive(pid):
            os.killpg(pid, signal.SIGKILL)


def test_a_failing_probe_shows_as_no_watcher_until_it_recovers(make_controller):
    controller = make_controller()
    failing = threading.Event()
    failing.set()

    class Flaky:
        name = "flaky"

        def active_window(self):
            if failing.is_set():
                raise RuntimeError("no display")
            return ("Editor", "x")

    sampler = WindowSampler(Flaky(), controller.record_window, on_running=controller.set_watcher)
    sampler.start()  # the first probe runs at once; the interval (5 s) does not matter here
    try:
        for _ in range(3):
            sampler.sample_once()
        assert controller.snapshot().evidence.health is Health.UNAVAILABLE
        failing.clear()
        sampler.sample_once()
        assert controller.snapshot().evidence.health is Health.HEALTHY
    finally:
        sampler.stop()
    assert controller.snapshot().evidence.health is Health.UNAVAILABLE


def test_create_app_from_the_settings_starts_nothing_until_it_serves(tmp_path):
    """The one app factory, as gunicorn and flask run call it: building the app takes up
    nothing (a timebox that ran out while the server was down stays active, no thread, no
    notification); the first request starts the runtime, which sends it to review and says so."""
    shown = tmp_path / "shown.txt"
    notifier = tmp_path / "notify"
    notifier.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> "{shown}"\n')
    notifier.chmod(0o755)
    data = tmp_path / "data"
    clock = FakeClock(datetime.now(UTC) - timedelta(hours=2))
    store = SQLiteStore(data / "antidrift.sqlite3")
    first = build_controller(store, clock)
    first.enter_planning()
    first.start_manual_commitment("Write", "Done", 5)  # its deadline passed long ago
    first.shutdown()
    store.close()
    settings = Settings(
        data_dir=data,
        window_source="off",
        notify="command",
        notify_command=str(notifier),
        drift="off",
    )
    app = create_app(settings)
    runtime = runtime_of(app)
    try:
        assert background() == [] and runtime.notifier is not None
        assert runtime.controller.snapshot().state is RuntimeState.ACTIVE
        assert runtime.store.load().state is RuntimeState.ACTIVE
        assert app.test_client().get("/state").get_json()["runtime_state"] == "review"
        assert "antidrift-ticker" in background()
        wait_until(lambda: shown.exists() and shown.read_text(), message="never announced")
        assert shown.read_text().splitlines() == ["Time's up · AntiDrift"]
    finally:
        runtime.stop()


def test_the_worker_loads_the_app_with_no_collection_then_freezes_it(tmp_path):
    """gunicorn's worker loads the app through Server.load: no collection runs meanwhile and
    what it made is frozen (no collection scans it again: P6); the collector is on after, a
    refused load too."""
    settings = Settings(data_dir=tmp_path / "data", window_source="off")
    server = Server(settings, gunicorn_options("127.0.0.1", 0))
    ran: list[str] = []

    def collected(phase: str, info: dict) -> None:
        ran.append(phase)

    gc.callbacks.append(collected)
    try:
        app = server.load()
        during = list(ran)
        assert gc.isenabled() and during == []
        assert not any(found is app for found in gc.get_objects()), "the app is frozen"
        runtime_of(app).stop()
        (tmp_path / "bad").mkdir()
        (tmp_path / "bad" / "antidrift.sqlite3").write_text("not a database")
        with pytest.raises(SystemExit):
            Server(Settings(data_dir=tmp_path / "bad"), gunicorn_options("127.0.0.1", 0)).load()
        assert gc.isenabled()
    finally:
        gc.callbacks.remove(collected)
        gc.unfreeze()
