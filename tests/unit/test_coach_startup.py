"""At start-up the coach is built from the settings: the model and effort they name."""

from __future__ import annotations

import logging

import pytest

from antidrift.server.adapters import build_coach
from antidrift.settings import SettingsError, load


def test_a_bad_effort_refuses_the_start_naming_what_is_accepted(tmp_path):
    env = {"ANTIDRIFT_AI_BACKEND": "claude", "ANTIDRIFT_AI_EFFORT": "max"}
    with pytest.raises(SettingsError) as refused:
        load(env, data_dir=tmp_path)
    assert str(refused.value) == (
        "ANTIDRIFT_AI_EFFORT='max' is not accepted: use one of low, medium, high, default."
    )


def test_good_settings_start_quietly(tmp_path, caplog):
    env = {"ANTIDRIFT_AI_BACKEND": "codex", "ANTIDRIFT_AI_MODEL": "gpt-5.5"}
    with caplog.at_level(logging.WARNING, logger="antidrift"):
        _, info = build_coach(load(env, data_dir=tmp_path))
    assert info.tuning == "gpt-5.5, low effort"
    assert not any("ANTIDRIFT_AI_" in r.getMessage() for r in caplog.records)
