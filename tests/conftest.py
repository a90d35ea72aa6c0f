"""Shared fixtures: fakes for the ports, a controller over them, and the Flask app."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from antidrift.server.app import create_app
from antidrift.server.bootstrap import Runtime
from antidrift.session.controller import Controller
from antidrift.session.readmodel import ReadModel
from antidrift.session.snapshot import CoachInfo
from antidrift.settings import Settings, load
from tests.fakes import FakeClock, FakeCoach, FakeJudge, FakeStore, coach_info_for
from tests.support.fake_bin import FakeBin
from tests.support.procs import Procs
from tests.support.session import build_controller

# Hypothesis's per-example deadline (200 ms) and its too-slow check are wall time: on a busy
# machine one example that waited for a CPU failed a property that says nothing about speed
# (tests/unit/test_plan_validation.py, 356 ms at load 15, 0.13 ms on the rerun). Speed goals
# live in scripts/bench.py; a test that means a bound says so itself.
hypothesis_settings.register_profile(
    "antidrift", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
# CI: the same, bounded in examples (a property's run stays a few seconds on two cores).
hypothesis_settings.register_profile(
    "ci", parent=hypothesis_settings.get_profile("antidrift"), max_examples=40
)
hypothesis_settings.load_profile("ci" if os.environ.get("CI") else "antidrift")

# The layers that wait longest run first (scripts/test hands out whole files in this order,
# `--no-loadscope-reorder`): a long browser file started last would run alone at the end
# while the other workers sit idle.
_FIRST = ("browser", "integration", "security", "bench")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def layer(item: pytest.Item) -> int:
        top = item.nodeid.split("/")[1] if item.nodeid.startswith("tests/") else ""
        return _FIRST.index(top) if top in _FIRST else len(_FIRST)

    items.sort(key=layer)  # stable: each file's own order is kept


# A test that failed and then passed on its second run (CI: scripts/test --reruns 1) says how it
# failed first, at the end of the run: the summary's RERUN line alone names a flake, and the
# run's tail is what a later look at CI shows.
_FIRST_FAILURES: list[tuple[str, str]] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.outcome == "rerun":
        _FIRST_FAILURES.append((report.nodeid, report.longreprtext))


def pytest_terminal_summary(terminalreporter) -> None:
    if not _FIRST_FAILURES:
        return
    terminalreporter.section("how each test run again failed the first time (flakes to chase)")
    for nodeid, text in _FIRST_FAILURES:
        lines = text.splitlines()
        crash = [line for line in lines if line.startswith("E ")][:6] or lines[-6:]
        terminalreporter.write_line(nodeid)
        for line in (*crash, *lines[-2:]):
            terminalreporter.write_line(f"    {line[:300]}")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store() -> FakeStore:
    return FakeStore()


@pytest.fixture
def fake_coach() -> FakeCoach:
    return FakeCoach()


@pytest.fixture
def reads(store) -> ReadModel:
    """The history as the pages read it, over the fake store."""
    return ReadModel(store)


@pytest.fixture
def make_controller(clock, store):
    """make_controller(coach=..., **kwargs): a Controller over the fakes, shut down after."""
    made: list[Controller] = []

    def make(coach=None, *, store_=None, clock_=None, **kwargs) -> Controller:
        controller = build_controller(store_ or store, clock_ or clock, coach=coach, **kwargs)
        made.append(controller)
        return controller

    yield make
    for controller in made:
        controller.shutdown()
        # A test that failed before releasing a gated fake must not hang the interpreter's
        # exit (it joins the executor's threads).
        release = getattr(controller.coaching.coach, "release_all", None)
        if release is not None:
            release()


@pytest.fixture
def judge() -> FakeJudge:
    """A fake drift judge: windows of the app "code" are on task, all others off."""
    judge = FakeJudge({"code"})
    yield judge
    judge.release_all()


@pytest.fixture
def controller(make_controller, fake_coach) -> Controller:
    return make_controller(fake_coach)


@pytest.fixture
def make_app(tmp_path, clock, store):
    """make_app(controller, coach): the real app over a runtime of fakes, no background."""

    def make(controller: Controller, coach=None):
        runtime = Runtime(controller, store, clock, coach_info_for(coach))
        app = create_app(Settings(data_dir=tmp_path), runtime=runtime)
        app.config.update(TESTING=True)
        return app

    return make


@pytest.fixture
def serve(tmp_path, controller, store, clock):
    """serve(env): the real app over fakes whose settings come from env and the data dir;
    its test client and runtime."""

    def make(env=None):
        settings = load(env or {}, data_dir=tmp_path)
        runtime = Runtime(controller, store, clock, CoachInfo(None, None))
        app = create_app(settings, runtime=runtime)
        app.config.update(TESTING=True)
        return app.test_client(), runtime

    return make


@pytest.fixture
def app(make_app, controller, fake_coach):
    return make_app(controller, fake_coach)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def fake_bin(tmp_path, monkeypatch) -> FakeBin:
    """Fake programs in a folder that is the WHOLE PATH: no real CLI or tool can run."""
    folder = FakeBin(tmp_path / "bin")
    monkeypatch.setenv("PATH", str(folder.dir))
    for key in ("CODEX_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    return folder


@pytest.fixture
def write_cli(fake_bin) -> FakeBin:
    """write_cli(name, body): a fake CLI on the fake PATH (the same `fake_bin`)."""
    return fake_bin


@pytest.fixture
def procs():
    """A Procs helper; tracked pids still alive at teardown are SIGKILLed."""
    helper = Procs()
    yield helper
    helper.kill_left()
