"""The planning page's coach line names the backend with the model and effort it asks for."""

from __future__ import annotations

import pytest

from antidrift import ai
from tests.support.html import parse
from tests.support.settings import backend_from_env


def coach_line(make_app, controller, backend) -> str:
    client = make_app(controller, backend).test_client()
    assert client.post("/planning").status_code == 200
    response = client.get("/")
    assert response.status_code == 200
    return " ".join(parse(response.get_data(as_text=True)).by_id("coach").text().split())


@pytest.mark.parametrize(
    ("name", "env", "shown"),
    [
        ("claude", {}, "Coach: claude (haiku, low effort)"),
        (
            "claude",
            {"ANTIDRIFT_AI_MODEL": "sonnet", "ANTIDRIFT_AI_EFFORT": "high"},
            "Coach: claude (sonnet, high effort)",
        ),
        (
            "codex",
            {"ANTIDRIFT_AI_EFFORT": "default"},
            "Coach: codex (default model, default effort)",
        ),
    ],
)
def test_the_coach_line_shows_model_and_effort(make_app, controller, name, env, shown):
    assert shown in coach_line(make_app, controller, backend_from_env(name, env))


def test_a_command_backend_shows_no_model_or_effort(make_app, controller):
    line = coach_line(make_app, controller, ai.CommandBackend("llm -m gpt-4o-mini"))
    assert "Coach: command" in line
    assert "Coach: command (" not in line and "effort" not in line
