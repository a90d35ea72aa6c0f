"""Fixtures the unit tests of the session share (tests/conftest.py has the ports' fakes)."""

from __future__ import annotations

import pytest

from tests.fakes import RecordingNotifier


@pytest.fixture
def notifier() -> RecordingNotifier:
    return RecordingNotifier()


@pytest.fixture
def running(make_controller):
    """running(**kwargs): a controller over the fakes, already active on "Write the intro"
    for 20 minutes."""

    def make(**kwargs):
        controller = make_controller(**kwargs)
        controller.enter_planning()
        controller.start_manual_commitment("Write the intro", "Intro in the doc", 20)
        return controller

    return make
