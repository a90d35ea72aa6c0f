"""At start-up an unusable ANTIDRIFT_AI_EFFORT / ANTIDRIFT_AI_MODEL is a warning and ignored."""

from __future__ import annotations

import logging

from antidrift.bootstrap import build_coach
from antidrift.config import Config


def test_a_bad_effort_is_a_start_up_warning_and_the_default_stays(tmp_path, caplog):
    env = {"ANTIDRIFT_AI_BACKEND": "claude", "ANTIDRIFT_AI_EFFORT": "max"}
    with caplog.at_level(logging.WARNING, logger="antidrift"):
        coach, info = build_coach(Config.from_env(env, data_dir=tmp_path))
    assert coach is not None and info.tuning == "haiku, low effort"
    assert any("ANTIDRIFT_AI_EFFORT='max'" in r.getMessage() for r in caplog.records)


def test_good_settings_start_quietly(tmp_path, caplog):
    env = {"ANTIDRIFT_AI_BACKEND": "codex", "ANTIDRIFT_AI_MODEL": "gpt-5.5"}
    with caplog.at_level(logging.WARNING, logger="antidrift"):
        _, info = build_coach(Config.from_env(env, data_dir=tmp_path))
    assert info.tuning == "gpt-5.5, low effort"
    assert not any("ANTIDRIFT_AI_" in r.getMessage() for r in caplog.records)
