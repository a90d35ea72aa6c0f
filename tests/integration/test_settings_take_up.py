"""A change saved on the Settings page is taken up by the running server without a restart:
a new coach and drift guard (from the next commitment), the private-title pattern, the page."""

from __future__ import annotations

import logging
import sqlite3

from antidrift.server import bootstrap
from antidrift.server.app import create_app
from antidrift.settings import load
from tests.support.plans import PLAN

HOST = {"Host": "127.0.0.1:7717", "Origin": "http://127.0.0.1:7717"}


def serve(tmp_path, fake_bin, env):
    settings = load({"PATH": str(fake_bin.dir), **env}, data_dir=tmp_path / "data")
    runtime = bootstrap.build_runtime(settings)
    app = create_app(settings, runtime=runtime)
    app.config.update(TESTING=True)
    return app, runtime


def test_the_drift_guard_turned_off_on_the_page_is_off_for_the_next_commitment(tmp_path, fake_bin):
    app, runtime = serve(tmp_path, fake_bin, {"ANTIDRIFT_WINDOW_SOURCE": "off"})
    try:
        client = app.test_client()
        assert runtime.drift_info.on
        client.post("/planning", headers=HOST)
        client.post("/commitment", json=PLAN, headers=HOST)
        assert client.get("/state").get_json()["drift"]["status"] != "off"
        answer = client.post("/settings", json={"drift": "off"}, headers=HOST)
        assert answer.status_code == 200, answer.get_data(as_text=True)
        assert not runtime.drift_info.on
        assert app.extensions["antidrift.views"].drift.on is False
        # The running commitment keeps the guard it began with; the next one has none.
        assert client.get("/state").get_json()["drift"]["status"] != "off"
        client.post("/finish", headers=HOST)
        client.post("/end", json={"outcome": "met"}, headers=HOST)
        client.post("/planning", headers=HOST)
        client.post("/commitment", json=PLAN, headers=HOST)
        assert client.get("/state").get_json()["drift"]["status"] == "off"
    finally:
        runtime.stop()


def test_a_new_backend_and_private_titles_apply_without_a_restart(tmp_path, fake_bin):
    app, runtime = serve(tmp_path, fake_bin, {"ANTIDRIFT_WINDOW_SOURCE": "off"})
    try:
        client = app.test_client()
        assert runtime.coach_info.name == "claude"
        answer = client.post(
            "/settings", json={"ai_backend": "codex", "evidence_exclude": "bank"}, headers=HOST
        )
        assert answer.status_code == 200, answer.get_data(as_text=True)
        assert runtime.coach_info.name == "codex"
        assert app.extensions["antidrift.views"].coach.name == "codex"
        client.post("/planning", headers=HOST)
        client.post("/commitment", json=PLAN, headers=HOST)
        seen = client.post(
            "/evidence/window", json={"app": "firefox", "title": "My bank balance"}, headers=HOST
        )
        assert seen.status_code == 202, seen.get_data(as_text=True)
        state = client.get("/state").get_json()
        assert "bank" not in str(state), state
    finally:
        runtime.stop()


def test_private_titles_saved_while_a_commitment_runs_are_kept_private_at_once(tmp_path, fake_bin):
    """The Settings page says a matching title "is never stored or sent": a pattern added
    because a private window just showed in the evidence must not wait for the next
    commitment (the rest of this one stored and judged such titles in clear)."""
    app, runtime = serve(tmp_path, fake_bin, {"ANTIDRIFT_WINDOW_SOURCE": "off"})
    try:
        client = app.test_client()
        client.post("/planning", headers=HOST)
        client.post("/commitment", json=PLAN, headers=HOST)
        answer = client.post("/settings", json={"evidence_exclude": "bank"}, headers=HOST)
        assert answer.status_code == 200, answer.get_data(as_text=True)
        page = {"app": "firefox", "title": "My bank balance", "url": "https://bank.example/a"}
        assert client.post("/evidence/window", json=page, headers=HOST).status_code == 202
        state = client.get("/state").get_json()
        assert "bank" not in str(state), state
        db = sqlite3.connect(tmp_path / "data" / "antidrift.sqlite3")
        try:
            stored = db.execute("SELECT title, url FROM samples").fetchall()
        finally:
            db.close()
        assert stored and all("bank" not in str(row) for row in stored), stored
    finally:
        runtime.stop()


def test_teeth_turned_on_in_settings_are_the_next_commitment_s_default(tmp_path, fake_bin):
    app, runtime = serve(tmp_path, fake_bin, {"ANTIDRIFT_WINDOW_SOURCE": "off"})
    try:
        client = app.test_client()
        client.post("/planning", headers=HOST)
        page = client.get("/", headers=HOST).get_data(as_text=True)
        assert 'id="enforce" name="enforce" type="checkbox" value="minimize">' in page
        answer = client.post(
            "/settings", json={"enforce": "minimize", "enforce_after": 12}, headers=HOST
        )
        assert answer.status_code == 200, answer.get_data(as_text=True)
        page = client.get("/", headers=HOST).get_data(as_text=True)
        assert 'value="minimize" checked>' in page and "after 12 more seconds" in page
        client.post("/commitment", json=PLAN, headers=HOST)
        assert client.get("/state").get_json()["commitment"]["enforce"] == "minimize"
    finally:
        runtime.stop()


def test_reflect_says_why_the_coach_of_the_new_settings_is_unavailable(tmp_path, fake_bin):
    # A command of empty quotes: the command backend has nothing to run, and says why.
    env = {"ANTIDRIFT_WINDOW_SOURCE": "off", "ANTIDRIFT_AI_COMMAND": '""'}
    app, runtime = serve(tmp_path, fake_bin, env)
    try:
        client = app.test_client()
        client.post("/planning", headers=HOST)
        client.post("/commitment", json=PLAN, headers=HOST)
        client.post("/finish", headers=HOST)
        answer = client.post("/settings", json={"ai_backend": "command"}, headers=HOST)
        assert answer.status_code == 200, answer.get_data(as_text=True)
        reason = runtime.coach_info.problem
        assert "ANTIDRIFT_AI_COMMAND is empty" in reason
        assert client.post("/reflect", headers=HOST).status_code == 200
        page = client.get("/", headers=HOST).get_data(as_text=True)
        assert 'data-status="error"' in page
        assert f"coach unavailable — {reason}" in page
    finally:
        runtime.stop()


def test_a_change_retunes_only_the_parts_its_rows_name(tmp_path, fake_bin, caplog):
    app, runtime = serve(tmp_path, fake_bin, {"ANTIDRIFT_WINDOW_SOURCE": "off"})
    try:
        client = app.test_client()
        notifier, coach = runtime.notifier, runtime.controller.coaching.coach
        answer = client.post("/settings", json={"calendar_email": "me@example.org"}, headers=HOST)
        assert answer.status_code == 200, answer.get_data(as_text=True)
        assert runtime.notifier is notifier and runtime.controller.coaching.coach is coach
        answer = client.post("/settings", json={"notify": "off"}, headers=HOST)
        assert answer.status_code == 200, answer.get_data(as_text=True)
        assert runtime.notifier is not notifier and runtime.controller.coaching.coach is not coach
        # A row with no live part (only another machine's shared values change it at run
        # time): said in the log, nothing rebuilt.
        notifier = runtime.notifier
        caplog.set_level(logging.INFO, "antidrift")
        runtime.take_up(runtime.tuned.replace(drift_cooldown=42.0))
        assert runtime.notifier is notifier
        assert "take effect at the next start: drift_cooldown" in caplog.text
    finally:
        runtime.stop()
