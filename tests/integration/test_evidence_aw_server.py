"""The ActivityWatch bridge against a real aw-server 0.12.0 fed heartbeats by the test."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest

from antidrift.core.domain import Health, RuntimeState
from antidrift.evidence import WindowSampler, choose
from antidrift.evidence.activitywatch import ActivityWatchProbe
from antidrift.evidence.probe import ProbeError


def test_the_bridge_follows_window_switches(aw):
    probe = ActivityWatchProbe(aw.url)
    assert probe.active_window() is None  # the bucket exists, no event yet
    aw.heartbeat("Firefox", "Inbox — Mail")
    assert probe.active_window() == ("Firefox", "Inbox — Mail")
    aw.heartbeat("code", "evidence.py — antidrift")
    assert probe.active_window() == ("code", "evidence.py — antidrift")
    aw.heartbeat("Firefox", "Inbox — Mail")
    assert probe.active_window() == ("Firefox", "Inbox — Mail")


def test_a_watcher_that_stopped_heartbeating_is_a_probe_error(aw):
    aw.heartbeat("Firefox", "Inbox — Mail")
    later = ActivityWatchProbe(aw.url, now=lambda: datetime.now(UTC) + timedelta(minutes=2))
    with pytest.raises(ProbeError, match="window watcher has not reported since 20"):
        later.active_window()


def test_a_missing_bucket_and_a_refused_host_are_sentences(aw):
    with pytest.raises(ProbeError, match="no bucket aw-watcher-window_elsewhere"):
        ActivityWatchProbe(aw.url, hostname="elsewhere").active_window()
    # 127.1 reaches the same loopback server, but aw-server refuses that Host header.
    with pytest.raises(ProbeError, match="refused the host in ANTIDRIFT_AW_URL"):
        ActivityWatchProbe(f"http://127.1:{aw.port}").active_window()


def test_auto_falls_back_to_activitywatch_when_its_server_answers(aw, tmp_path):
    no_desktop = {"PATH": str(tmp_path)}  # no session variables, no tools
    choice = choose("auto", env=no_desktop, aw_url=aw.url, platform="linux")
    assert isinstance(choice.probe, ActivityWatchProbe)
    assert f"ActivityWatch answers at {aw.url}" in choice.reason
    aw.stop()
    assert choose("auto", env=no_desktop, aw_url=aw.url, platform="linux").probe is None


def test_health_degrades_when_aw_server_stops_and_the_commitment_goes_on(
    aw, make_controller, clock, store, caplog
):
    controller = make_controller()
    controller.enter_planning()
    controller.start_manual_commitment("Write the intro", "Intro in the doc", 30)
    sampler = WindowSampler(
        ActivityWatchProbe(aw.url),
        controller.record_window,
        interval=3600,  # the test samples by hand
        now=clock.now,
        wanted=controller.wants_evidence,
        on_running=controller.set_watcher,
    )
    sampler.start()
    try:
        aw.heartbeat("code", "intro.md")
        sampler.sample_once()
        assert controller.snapshot().evidence.health is Health.HEALTHY
        assert [(s.app, s.title) for _, s in store.sample_rows][-1] == ("code", "intro.md")

        aw.stop()
        with caplog.at_level(logging.WARNING, logger="antidrift.sampler"):
            for _ in range(3):
                sampler.sample_once()
        assert not sampler.running
        assert "ActivityWatch does not answer at" in caplog.text
        clock.advance(31)
        snapshot = controller.snapshot()
        assert snapshot.evidence.health is Health.STALE
        assert snapshot.state is RuntimeState.ACTIVE
    finally:
        sampler.stop()
