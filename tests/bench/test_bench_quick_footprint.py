"""The benchmark's memory figure (P8: the idle `antidrift serve` tree beside the stack's floor,
a bare gunicorn + Flask + flask-sock app, and aw-server 0.12.0) in quick mode, so it cannot
rot.

Sanity only, never the goal (see test_bench_quick_server.py). It needs the real aw-server
(scripts/aw-server-venv): skipped without it on a developer's machine, a failure in CI."""

from __future__ import annotations

from tests.support import aw_server
from tests.support.bench import FOOTPRINT, quick
from tests.support.require import need


def test_quick_bench_reports_both_trees_memory_side_by_side(tmp_path):
    need(aw_server.binary(), f"aw-server is not installed: run {aw_server.INSTALL}")
    table, f = quick(tmp_path, *FOOTPRINT)
    assert set(f) == set(FOOTPRINT)
    p8 = f["P8"]
    # The whole tree: gunicorn's arbiter and its one worker, each a Python process of some
    # MiB, summed; aw-server is one process.
    assert p8["processes"] == 2 and p8["aw_server_processes"] == 1
    assert 3 < p8["arbiter_mib"] < 512 and 3 < p8["worker_mib"] < 512
    assert abs(p8["arbiter_mib"] + p8["worker_mib"] - p8["samples"][-1]["antidrift_mib"]) < 0.2
    assert 5 < p8["value"] < 1024 and 5 < p8["aw_server_mib"] < 1024
    assert 5 < p8["floor_mib"] < p8["value"]  # the floor is what AntiDrift stands on
    # Each figure rounded on its own: their difference within a rounding step of it.
    assert abs(p8["above_floor_mib"] - (p8["value"] - p8["floor_mib"])) <= 0.11
    assert p8["met"] == (p8["value"] <= p8["floor_mib"] + 5)
    assert "aw-server" in table
