"""D1's day with sites and one 20-minute absence (issue 32), in quick mode: three one-hour
commitments through the session as the server wires it (scripts/bench_drift_day.py --quick).

Its figures do not depend on the machine (a fake clock), so unlike the other quick-bench
tests this one holds the day's promises, not only their sanity."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.bench import REPO

ABSENCE, AWAY_AFTER = 20 * 60, 3 * 60  # as the script has them


def test_the_day_with_sites_and_an_absence_keeps_its_promises():
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "bench_drift_day.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    day = json.loads(done.stdout)
    runs = day["runs"]
    assert done.returncode == 0 and day["met"], done.stdout[-3000:] + done.stderr[-3000:]
    assert set(runs) == {"no_sites", "sites", "tight_cap_no_sites", "tight_cap_sites"}
    for name, run in runs.items():
        # The absence was seen, once: away from the away_after minutes on (the next sample),
        # and counted from when input stopped.
        [span] = run["away_spans_s"]
        assert ABSENCE - AWAY_AFTER - 5 <= span <= ABSENCE - AWAY_AFTER, name
        assert run["away_secs"] == ABSENCE and run["drift_status_away"] == "away", name
        # Nobody there: no judge call, no nudge; there were some while the user was.
        assert run["nudges_while_away"] == 0 and run["calls_while_away"] == 0, name
        assert run["nudges"] > 0 and run["calls"] > 0, name
    no_sites, sites = runs["no_sites"], runs["sites"]
    # The judge hears the site only when the window carries one; a rule costs no call.
    assert no_sites["sent_a_site"] == 0 < sites["sent_a_site"] <= sites["calls"]
    assert sites["calls_on_ruled_windows"] == no_sites["calls_on_ruled_windows"] == 0
    # The documentation site's rule spares the calls its pages took.
    assert sites["calls"] < no_sites["calls"]
    assert sites["false_alarms"] == no_sites["false_alarms"] == 0
    # Where the cap binds, churn by app nudges about documentation read right after a video
    # in the same browser; churn by site does not.
    tight, tight_sites = runs["tight_cap_no_sites"], runs["tight_cap_sites"]
    assert tight_sites["false_alarms"] == 0 < tight["false_alarms"]
    assert tight_sites["calls"] <= tight["calls"]
