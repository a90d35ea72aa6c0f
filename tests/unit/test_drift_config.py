"""ANTIDRIFT_DRIFT and its numbers: on by default with a coach backend, off when asked; a
value not understood refuses the start (titles go to an AI only when that is clearly wanted)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from antidrift import ai
from antidrift.drift.policy import DriftSettings
from antidrift.server.adapters import build_coach, build_drift
from antidrift.settings import SettingsError, load


def _drift(tmp_path, **env):
    config = load({"ANTIDRIFT_DATA_DIR": str(tmp_path), **env})
    coach, _ = build_coach(config)
    return build_drift(config, coach)


def test_on_by_default_judging_with_the_coach_backend(tmp_path):
    judge, settings, info = _drift(tmp_path, ANTIDRIFT_AI_BACKEND="codex")
    assert isinstance(judge, ai.JudgeService) and judge.name == "codex"
    assert settings == DriftSettings(timedelta(seconds=60), timedelta(seconds=300), 30)
    assert info.on and info.cli == "codex" and not info.titles_excluded


def test_the_command_backend_is_named_as_the_planning_view_names_the_coach(tmp_path):
    _, _, info = _drift(
        tmp_path,
        ANTIDRIFT_AI_BACKEND="command",
        ANTIDRIFT_AI_COMMAND="llm -m gpt-4o-mini",
        ANTIDRIFT_EVIDENCE_EXCLUDE="bank",
    )
    assert (
        info.cli == "command" and info.titles_excluded
    )  # not "llm" in one view, "command" in another


@pytest.mark.parametrize("value", ["off", "OFF", " off "])
def test_off_is_off(tmp_path, value):
    judge, settings, info = _drift(tmp_path, ANTIDRIFT_DRIFT=value)
    assert (judge, settings, info.on) == (None, None, False)
    assert info.why_off == "turned off in Settings"  # the page names no variable


@pytest.mark.parametrize("value", ["of", "no", "false", "0", "maybe"])
def test_anything_else_refuses_the_start(tmp_path, value):
    with pytest.raises(SettingsError, match=f"ANTIDRIFT_DRIFT='{value}' is not accepted"):
        _drift(tmp_path, ANTIDRIFT_DRIFT=value)


def test_a_local_model_server_judges_too(tmp_path):
    judge, _, info = _drift(
        tmp_path, ANTIDRIFT_AI_BACKEND="openai", ANTIDRIFT_AI_URL="http://127.0.0.1:9"
    )
    assert judge is not None and info.on and info.cli == "openai"


def test_the_numbers_are_read_and_bounded(tmp_path):
    _, settings, _ = _drift(
        tmp_path,
        ANTIDRIFT_DRIFT_GRACE="0",
        ANTIDRIFT_DRIFT_COOLDOWN="90",
        ANTIDRIFT_DRIFT_MAX_CALLS="5",
    )
    assert settings == DriftSettings(timedelta(0), timedelta(seconds=90), 5)
    for name, bad in (
        ("ANTIDRIFT_DRIFT_GRACE", "-1"),
        ("ANTIDRIFT_DRIFT_COOLDOWN", "soon"),
        ("ANTIDRIFT_DRIFT_MAX_CALLS", "0"),
        ("ANTIDRIFT_DRIFT_MAX_CALLS", "2.5"),
    ):
        with pytest.raises(SettingsError, match=name):
            load({"ANTIDRIFT_DATA_DIR": str(tmp_path), name: bad})


@pytest.mark.parametrize(
    ("env", "remote"),
    [
        ({"ANTIDRIFT_AI_BACKEND": "openai", "ANTIDRIFT_AI_URL": "http://127.0.0.1:8080/v1"}, None),
        ({"ANTIDRIFT_AI_BACKEND": "ollama", "ANTIDRIFT_AI_MODEL": "llama3.2"}, None),
        ({"ANTIDRIFT_AI_BACKEND": "ollama", "ANTIDRIFT_AI_MODEL": "m",
          "ANTIDRIFT_AI_URL": "http://localhost:11434"}, None),
        ({"ANTIDRIFT_AI_BACKEND": "codex"}, None),
        ({"ANTIDRIFT_AI_BACKEND": "openai", "ANTIDRIFT_AI_URL": "https://gpu.lan:8443/v1",
          "ANTIDRIFT_AI_ALLOW_REMOTE": "1"}, "gpu.lan:8443"),
        ({"ANTIDRIFT_AI_BACKEND": "ollama", "ANTIDRIFT_AI_MODEL": "m",
          "ANTIDRIFT_AI_URL": "http://[2001:db8::5]", "ANTIDRIFT_AI_ALLOW_REMOTE": "1"},
         "[2001:db8::5]"),
    ],
)  # fmt: skip
def test_the_guard_says_where_titles_go_when_the_ai_server_is_elsewhere(tmp_path, env, remote):
    _, _, info = _drift(tmp_path, **env)
    assert info.on and info.remote == remote
