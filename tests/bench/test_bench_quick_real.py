"""The benchmark's figures with the real claude (C1, C2) in quick mode, one run of the script
each.

Sanity only, never the goals (see test_bench_quick_server.py). They need the real claude
(scripts/install-clis): skipped without it on a developer's machine, a failure in CI."""

from __future__ import annotations

from tests.support import real_cli
from tests.support.bench import COLD_CLAUDE, WARM_CLAUDE, quick
from tests.support.require import need


def test_quick_bench_reports_the_cold_real_claude_figure(tmp_path):
    need(real_cli.binary("claude"), "the real claude is not installed: run scripts/install-clis")
    _, f = quick(tmp_path, *COLD_CLAUDE)
    assert set(f) == set(COLD_CLAUDE)
    # C1: the real claude answered through the server and directly, in seconds, not minutes.
    c1 = f["C1"]
    assert c1["claude"] == real_cli.CLAUDE_VERSION
    for side in ("server_ms", "direct_ms", "plain_claude_p_ms"):
        assert 0 < c1[side]["median"] < 60_000, side
    # The ratio of the two medians (its size is the goal's business, never the suite's).
    assert c1["value"] == round(c1["server_ms"]["median"] / c1["direct_ms"]["median"], 3)


def test_quick_bench_reports_the_warm_real_claude_figure(tmp_path):
    need(real_cli.binary("claude"), "the real claude is not installed: run scripts/install-clis")
    _, f = quick(tmp_path, *WARM_CLAUDE)
    assert set(f) == set(WARM_CLAUDE)
    # C2: the warm claude answered, and none was left once planning ended.
    c2 = f["C2"]
    assert 0 < c2["median"] < 60_000 and c2["claude_left_after_planning"] == 0
    assert c2["idle_claude_rss_mib"] > 10
