"""Fixtures shared by the integration tests of one real component."""

from __future__ import annotations

import pytest

from tests.support import aw_server, sway
from tests.support.live import Live
from tests.support.require import need


@pytest.fixture(scope="module")
def sway_session():
    """A real headless sway for the module's tests (None when this machine cannot run one)."""
    if sway.missing():
        yield None
        return
    running = sway.HeadlessSway()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def sway_desktop(sway_session):
    """The module's headless sway; skipped without one (a failure in CI)."""
    need(sway_session, sway.missing() or "headless sway could not start")
    return sway_session


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """The app over fakes on a real werkzeug server (tests/support/live.py), one per module:
    the push tests' rig (a module that needs another server defines its own `live`)."""
    server = Live(tmp_path_factory.mktemp("live"))
    yield server
    server.stop()


@pytest.fixture
def aw(tmp_path):
    """A real aw-server (in memory) with the window watcher's bucket; skipped without one."""
    with aw_server.window_server(tmp_path / "aw") as server:
        yield server
