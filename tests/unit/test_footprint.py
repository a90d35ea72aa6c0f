"""What a start does not load (issue 33: memory and start-up time): the app as `antidrift
serve` builds it, in a fresh interpreter, has none of the libraries that only some requests
or settings need. Each is loaded where it is used: a calendar read, a calendar URL fetched,
a notification over D-Bus, the first page's websocket, a task source or an AI backend the
settings name. And gunicorn's arbiter holds only the settings and the start gate (issue 40:
the stack's floor): the worker it forks copies what it inherits as it runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NOT_AT_START = {
    "icalendar": "antidrift/calendar/ics.py, when a calendar is read",
    "recurring_ical_events": "antidrift/calendar/ics.py",
    "x_wr_timezone": "antidrift/calendar/ics.py",
    "urllib.request": "antidrift/calendar/fetch.py, when a calendar URL is fetched",
    "jeepney": "antidrift/notify/dbus.py, when a notification goes over D-Bus",
    "flask_sock": "antidrift/web/sockets.py, when the first page connects",
    "simple_websocket": "antidrift/web/sockets.py",
    "wsproto": "antidrift/web/sockets.py (under simple-websocket)",
    "asyncio": "antidrift/web/sockets.py (simple-websocket's asyncio half)",
    "regex": "antidrift/settings/kinds.py, when a private-title pattern is set",
    "lz4": "antidrift/evidence/firefox.py, when Firefox's session store is read",
    # Issue 40 (the stack's floor): the adapters a start with default settings never builds.
    "antidrift.tasks.registry": "antidrift/tasks/__init__.py, when the task sources are read",
    "antidrift.tasks.taskwarrior": "antidrift/tasks/registry.py, when such a source is built",
    "antidrift.tasks.github": "antidrift/tasks/registry.py",
    "antidrift.tasks.markdown": "antidrift/tasks/registry.py",
    "antidrift.tasks.todotxt": "antidrift/tasks/registry.py",
    "antidrift.tasks.textfile": "antidrift/tasks/registry.py (under markdown and todotxt)",
    "antidrift.ai.backends.codex": "antidrift/ai/backends/__init__.py, when the settings name it",
    "antidrift.ai.backends.command": "antidrift/ai/backends/__init__.py",
    "antidrift.ai.backends.openai": "antidrift/ai/backends/__init__.py",
    "antidrift.evidence.report": "antidrift/server/serve.py's doctor",
    # What an idle server with no page open never uses (issue 40, session 8).
    "antidrift.evidence": "antidrift/server/bootstrap.py, when a window source is chosen (not off)",
    "antidrift.web.widgets": "antidrift/web/views.py, when the first page is built",
    "antidrift.web.words": "antidrift/web/views.py",
    "antidrift.web.meetings": "antidrift/web/views.py",
    "antidrift.web.elsewhere": "antidrift/web/views.py",
    "antidrift.web.insights_view": "antidrift/web/reflection.py and week.py, with their pages",
    "antidrift.core.week": "antidrift/session/readmodel.py, when the week is read",
    # The sync wing with no sync folder: this machine's identity only (issue 40, session 9).
    "antidrift.sync.crypto": "antidrift/session/syncing.py, when a sync folder is used",
    "antidrift.sync.keyring": "antidrift/session/syncing.py",
    "antidrift.sync.reader": "antidrift/session/syncing.py",
    "antidrift.sync.writer": "antidrift/session/syncing.py",
    "antidrift.sync.records": "antidrift/session/syncing.py",
    "antidrift.sync.hlc": "antidrift/session/syncing.py",
    "antidrift.sync.written": "antidrift/session/syncing.py (under the writer)",
    "antidrift.session.sync_import": "antidrift/session/syncing.py, its importer",
    "antidrift.session.sync_settings": "antidrift/session/syncing.py, its shared settings",
    "nacl": "antidrift/sync/crypto.py, when a file is sealed or opened",
    # The interned-name table (issue 40, session 10): what no idle server uses loads with its
    # first use, so the worker's table does not double.
    "subprocess": "antidrift/process/__init__.py, when the first process is started",
    "antidrift.calendar.ics": "antidrift/calendar/keeper.py, when a calendar is read",
    "antidrift.calendar.expand": "antidrift/calendar/keeper.py",
    "antidrift.calendar.fetch": "antidrift/calendar/keeper.py, when a calendar URL is fetched",
    "antidrift.notify.dbus": "antidrift/notify/__init__.py, when a session bus is found",
    "antidrift.web.page_model": "antidrift/web/views.py, when the first page or socket is built",
    "antidrift.web.week_chart": "antidrift/web/week.py, with the week's page",
    "antidrift.web.settings_form": "antidrift/web/settings_page.py, with the Settings page",
    "antidrift.web.day_form": "antidrift/web/day.py, with the day's first answer",
    "antidrift.web.rules_view": "antidrift/web/rules.py, with the rules' first answer",
    "antidrift.web.icon_svg": "antidrift/web/icon.py, with the first icon",
    "antidrift.web.export": "antidrift/web/reflection.py, with the first export",
}
# What `antidrift serve` has loaded when gunicorn forks its worker: the settings, the start
# gate (the data lock, the port, the database opened and closed) and gunicorn. Whatever else
# the arbiter imports, the worker inherits and then copies as it runs (P8 counts both), so the
# app's own parts are the worker's alone.
NOT_IN_THE_ARBITER = {
    "flask": "the worker, with the app",
    "antidrift.web": "the worker, with the app",
    "antidrift.session": "the worker (server/bootstrap.py)",
    "antidrift.drift": "the worker (server/bootstrap.py)",
    "antidrift.store.sqlite": "the worker; the gate opens store/changes.py's Connections",
    "antidrift.core.ports": "the worker (with store.sqlite)",
    "antidrift.ai.coach": "antidrift/ai/__init__.py, at the first use of its names",
    "antidrift.ai.judge": "antidrift/ai/__init__.py",
    "antidrift.ai.backends.claude": "antidrift/ai/backends/__init__.py, when a coach is built",
    "antidrift.calendar.keeper": "antidrift/calendar/__init__.py, at the first use of Calendar",
    "antidrift.calendar.agenda": "antidrift/calendar/__init__.py",
    "antidrift.tasks.board": "antidrift/tasks/__init__.py, at the first use of Board",
    "antidrift.tasks.taskwarrior": "antidrift/tasks/registry.py, when such a source is built",
    "antidrift.tasks.markdown": "antidrift/tasks/registry.py",
    "antidrift.tasks.textfile": "antidrift/tasks/registry.py (under markdown and todotxt)",
    "antidrift.ai.backends.codex": "antidrift/ai/backends/__init__.py, when a coach is built",
    "antidrift.evidence.report": "antidrift/server/serve.py's doctor",
    # The settings take the adapters' words and defaults from core/choices.py (session 8).
    "antidrift.evidence": "the worker, when a window source is chosen",
    "antidrift.ai": "the worker, when the coach is built",
    "antidrift.notify": "the worker, when the notifier is built",
    "antidrift.process": "the worker (with ai and notify)",
    "antidrift.sync": "antidrift/settings/reader.py, when a sync folder is set",
    "antidrift.core.day": "the worker (with the session)",
}
# Every adapter named in the settings: the gate reads each setting's syntax, builds none.
NAMED = {
    "ANTIDRIFT_TASKS": "taskwarrior,github,markdown:/tmp/tasks.md,todotxt:/tmp/todo.txt",
    "ANTIDRIFT_CALENDAR": "/tmp/work.ics,https://calendar.example/work.ics",
    "ANTIDRIFT_AI_BACKEND": "codex",
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
# `antidrift serve` up to gunicorn's start (server/serve.py's serve): what its arbiter holds.
ARBITER = """
import json, sys
from antidrift.server.commands import main  # the console script
from antidrift.server.serve import serve_command, start_problem
from antidrift.settings import load, start_line
chosen = load(data_dir=sys.argv[1])
start_line(chosen)
assert start_problem(chosen, [("127.0.0.1", 0)], None) is None
print(json.dumps(sorted(sys.modules)))
"""


def loaded_by(code: str, tmp_path: Path, **settings: str) -> list[str]:
    """The modules a fresh interpreter has after `code`, as a user starts it: no ANTIDRIFT_*
    variable but the window source (off: a CI machine may have a display) and `settings`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTIDRIFT_")}
    env.update(ANTIDRIFT_WINDOW_SOURCE="off", HOME=str(tmp_path), **settings)
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "data")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def found(names: dict[str, str], loaded: list[str]) -> dict[str, str]:
    return {
        name: where
        for name, where in names.items()
        if any(m == name or m.startswith(name + ".") for m in loaded)
    }


def test_a_started_app_has_loaded_none_of_what_only_some_requests_need(tmp_path):
    assert found(NOT_AT_START, loaded_by(BUILD, tmp_path)) == {}


@pytest.mark.parametrize("settings", [{}, NAMED], ids=["default", "every adapter named"])
def test_the_arbiter_loads_only_the_settings_and_the_start_gate(tmp_path, settings):
    loaded = loaded_by(ARBITER, tmp_path, **settings)
    assert "antidrift.store.changes" in loaded  # the check looked at a real gate
    if settings:  # ... which read the settings' syntax
        assert {"antidrift.tasks.registry", "antidrift.calendar.sources"} <= set(loaded)
    assert found(NOT_IN_THE_ARBITER, loaded) == {}
