"""The planning draft keeps the picked task through the store (Draft.to_json/from_json): what
it wrote reads back the same; what it did not write is no task, and never a crash."""

from __future__ import annotations

import json

import pytest

from antidrift.core.domain import TaskRef
from antidrift.session.drafts import Draft

TASK = TaskRef("github", "octo/app#7", "Fix login", "https://github.example/octo/app/7")


@pytest.mark.parametrize("task", [TASK, TaskRef("markdown", "abc-1", "Call the bank"), None])
def test_a_draft_reads_back_with_its_task(task):
    draft = Draft(intent="x", next_action="y", edited=frozenset({"next_action"}), task=task)
    assert Draft.from_json(draft.to_json()) == draft


def test_only_a_web_address_is_kept_as_the_tasks_link():
    body = json.loads(Draft(task=TASK).to_json())
    body["task"][3] = "javascript:alert(1)"
    assert Draft.from_json(json.dumps(body)).task == TaskRef(*TASK.key.split(":"), "Fix login")


@pytest.mark.parametrize(
    "stored",
    [["github", "", "t", None], ["github", "1", 7, None], ["github", "1", "x" * 2001, None]],
)
def test_a_stored_task_out_of_shape_is_no_task(stored):
    body = json.loads(Draft(intent="kept", task=TASK).to_json()) | {"task": stored}
    draft = Draft.from_json(json.dumps(body))
    assert draft.task is None and draft.intent == "kept"


@pytest.mark.parametrize("stored", ["github:1", ["a", "b"], {"source": "github"}, 7])
def test_an_unreadable_task_is_an_empty_draft_not_a_crash(stored):
    body = json.loads(Draft(intent="kept", task=TASK).to_json()) | {"task": stored}
    assert Draft.from_json(json.dumps(body)) == Draft()
