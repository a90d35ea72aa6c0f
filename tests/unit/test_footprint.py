"""What a start does not load (issue 33: memory and start-up time): the app as `antidrift
serve` builds it, in a fresh interpreter, has none of the libraries that only some requests
or settings need. Each is loaded where it is used: a calendar read, a calendar URL fetched,
a notification over D-Bus, the first page's websocket."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NOT_AT_START = {
    "icalendar": "antidrift/calendar/ics.py, when a calendar is read",
    "recurring_ical_events": "antidrift/calendar/ics.py",
    "x_wr_timezone": "antidrift/calendar/ics.py",
    "urllib.request": "antidrift/calendar/fetch.py, when a calendar URL is fetched",
    "jeepney": "antidrift/notify.py, when a notification goes over D-Bus",
    "flask_sock": "antidrift/web/sockets.py, when the first page connects",
    "simple_websocket": "antidrift/web/sockets.py",
    "wsproto": "antidrift/web/sockets.py (under simple-websocket)",
    "asyncio": "antidrift/web/sockets.py (simple-websocket's asyncio half)",
    "regex": "antidrift/settings/kinds.py, when a private-title pattern is set",
    "lz4": "antidrift/evidence/firefox.py, when Firefox's session store is read",
}
BUILD = """
import json, sys
from antidrift.server.serve import serve_command  # what the arbiter has, then the worker
from antidrift.server.app import create_app
from antidrift.settings import load
app = create_app(load(data_dir=sys.argv[1]))
assert "/ws" in {rule.rule for rule in app.url_map.iter_rules()}
print(json.dumps(sorted(sys.modules)))
"""


def test_a_started_app_has_loaded_none_of_what_only_some_requests_need(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTIDRIFT_")}
    env.update(ANTIDRIFT_WINDOW_SOURCE="off", HOME=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", BUILD, str(tmp_path / "data")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.splitlines()[-1])
    early = {
        name: where
        for name, where in NOT_AT_START.items()
        if any(m == name or m.startswith(name + ".") for m in loaded)
    }
    assert early == {}
