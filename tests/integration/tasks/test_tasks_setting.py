"""The Settings page's `tasks`: a bad value is refused with a sentence and changes nothing; a
good one is saved and the running server plans from it at once (no restart)."""

from __future__ import annotations

import json

import pytest

from antidrift.server import bootstrap
from antidrift.server.app import create_app
from antidrift.settings import load
from tests.support.html import parse

HOST = {"Host": "127.0.0.1:7717", "Origin": "http://127.0.0.1:7717"}
PAGE = {**HOST, "Accept": "text/html"}


@pytest.fixture
def served(tmp_path, fake_bin):
    """The real runtime (build_runtime, as serve builds it) with no task source yet."""
    env = {"PATH": str(fake_bin.dir), "ANTIDRIFT_WINDOW_SOURCE": "off"}
    settings = load(env, data_dir=tmp_path / "data")
    runtime = bootstrap.build_runtime(settings)
    app = create_app(settings, runtime=runtime)
    app.config.update(TESTING=True)
    try:
        yield app.test_client()
    finally:
        runtime.stop()


def test_a_task_file_named_on_the_page_is_planned_from_without_a_restart(served, tmp_path):
    notes = tmp_path / "Today.md"
    notes.write_text("# Today\n- [ ] Pay the invoice\n")
    served.post("/planning", headers=HOST)
    assert "tasks-box" not in served.get("/", headers=HOST).get_data(as_text=True)
    assert served.get("/tasks", headers=HOST).get_json() == []
    saved = served.post("/settings", data={"tasks": f"markdown:{notes}"}, headers=PAGE)
    assert saved.status_code == 303, saved.get_data(as_text=True)
    assert json.loads((tmp_path / "data" / "settings.json").read_text()) == {
        "tasks": f"markdown:{notes}"
    }
    assert [t["title"] for t in served.get("/tasks", headers=HOST).get_json()] == [
        "Pay the invoice"
    ]
    page = parse(served.get("/", headers=HOST).get_data(as_text=True))
    assert page.by_id("tasks").get("hx-get") == "/tasks"  # the planning view lists them now


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("markdown:Today.md", "markdown:Today.md is not a full path"),
        ("taskwarrior, jira", "'jira' is not a task source"),
    ],
)
def test_a_bad_value_is_a_sentence_beside_the_field_and_nothing_changes(
    served, tmp_path, value, said
):
    answer = served.post("/settings", data={"tasks": value}, headers=PAGE)
    assert answer.status_code == 400
    page = parse(answer.get_data(as_text=True))
    assert said in page.by_id("error-tasks").text()  # beside the field, with its label
    assert "Task lists to plan from" in page.by_id("settings-message").text()
    field = page.by_id("set-tasks")
    assert field.get("aria-invalid") == "true" and field.value() == value
    assert not (tmp_path / "data" / "settings.json").exists()
    assert served.get("/tasks", headers=HOST).get_json() == []
