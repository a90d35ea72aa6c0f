"""Every window source feeds the same recording path: a title that ANTIDRIFT_EVIDENCE_EXCLUDE
matches is never stored in clear, whichever probe reported it, and a failing probe leaves the
commitment alone."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest

from antidrift.core.domain import EXCLUDED_TITLE, Health, RuntimeState
from antidrift.evidence import WindowSampler, new_probe
from antidrift.evidence.activitywatch import ActivityWatchProbe
from antidrift.evidence.probe import ProbeError
from tests.support.http_standin import StandIn
from tests.support.walk import walk

SECRET = "My Bank — statement"

# Each desktop tool, faked to print a window titled SECRET in its own real format.
FAKE_TOOLS = {
    "sway": (
        "swaymsg",
        json.dumps({"type": "root", "nodes": [{"type": "con", "focused": True,
                                               "app_id": "firefox", "name": SECRET}]}),
    ),
    "hyprland": ("hyprctl", json.dumps({"class": "firefox", "title": SECRET})),
    "kde": ("kdotool", f"firefox\n{SECRET}\n"),
    "gnome": ("gdbus", "('" + json.dumps({"wm_class": "firefox", "title": SECRET}) + "',)"),
    "macos": ("osascript", f"firefox\n{SECRET}\n"),
}  # fmt: skip


def start_active(make_controller):
    controller = make_controller(exclude_titles=re.compile("bank", re.IGNORECASE))
    walk(controller, "active")
    return controller


def sample_through(controller, probe) -> None:
    sampler = WindowSampler(
        probe,
        controller.record_window,
        now=lambda: datetime.now(UTC),
        wanted=lambda: controller.snapshot().state is RuntimeState.ACTIVE,
    )
    sampler.sample_once()


@pytest.mark.parametrize("source", sorted(FAKE_TOOLS))
def test_an_excluded_title_from_a_desktop_probe_is_never_stored(
    source, fake_bin, make_controller, store
):
    tool, output = FAKE_TOOLS[source]
    fake_bin(tool, f"sys.stdout.write({output!r})")
    controller = start_active(make_controller)
    sample_through(controller, new_probe(source))
    assert [(s.app, s.title) for _, s in store.sample_rows] == [("firefox", EXCLUDED_TITLE)]


def test_an_excluded_title_from_activitywatch_is_never_stored(make_controller, store):
    now = datetime.now(UTC)
    event = {"timestamp": now.isoformat(), "duration": 0, "data": {"app": "firefox",
                                                                   "title": SECRET}}  # fmt: skip
    aw = StandIn(lambda handler: handler.reply(200, [event]))
    try:
        controller = start_active(make_controller)
        sample_through(controller, ActivityWatchProbe(aw.url, hostname="vm"))
    finally:
        aw.close()
    assert [(s.app, s.title) for _, s in store.sample_rows] == [("firefox", EXCLUDED_TITLE)]


@pytest.mark.parametrize("source", sorted(FAKE_TOOLS))
def test_a_failing_probe_degrades_health_and_never_the_commitment(
    source, fake_bin, make_controller, clock
):
    tool, _ = FAKE_TOOLS[source]
    fake_bin(tool, "sys.exit('Error: no session')")
    probe = new_probe(source)
    with pytest.raises(ProbeError):
        probe.active_window()
    controller = start_active(make_controller)
    sampler = WindowSampler(  # wired as bootstrap wires it
        probe,
        controller.record_window,
        wanted=controller.wants_evidence,
        on_running=controller.set_watcher,
    )
    sampler.start()
    try:
        for _ in range(3):
            sampler.sample_once()
        snapshot = controller.snapshot()
        assert snapshot.state is RuntimeState.ACTIVE
        assert snapshot.evidence.health is Health.UNAVAILABLE
    finally:
        sampler.stop()
