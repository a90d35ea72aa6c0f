"""GET /tasks, POST /planning with task=, POST /tasks/writeback: through the real app, over
real Markdown and todo.txt files (and a fake source that counts its calls or fails)."""

from __future__ import annotations

import json
import threading

import pytest

from antidrift.server.app import create_app
from antidrift.server.bootstrap import Runtime
from antidrift.session.snapshot import CoachInfo
from antidrift.settings import Settings
from antidrift.tasks import Board, SourceError, Task
from antidrift.tasks.markdown import MarkdownSource
from antidrift.tasks.todotxt import TodoTxtSource
from tests.support.html import parse
from tests.support.plans import PLAN
from tests.support.session import build_controller
from tests.support.web import HX, state

NOTES = (
    "# This week\n- [ ] Draft the <b>intro</b> & outline\n- [ ] Call the bank\n- [x] Already done\n"
)


class CountingSource:
    """A GitHub-like source that answers from memory and counts every call."""

    kind, label, actions = "github", "GitHub", frozenset({"note"})

    def __init__(self, fail: str | None = None) -> None:
        self.calls = 0
        self.written: list[tuple[str, str]] = []
        self.fail = fail

    def tasks(self):
        self.calls += 1
        if self.fail:
            raise SourceError(self.fail)
        return [Task("github", "octo/app#7", "Fix login", "https://github.example/octo/app/7")]

    def owns(self, task_id):
        return task_id.startswith("octo/")

    def current(self, task):
        return task  # as GitHub's source does: no look-up for a pick

    def write_back(self, task, text, done):
        self.calls += 1
        self.written.append((task.id, text))
        return "Added a comment to the issue on GitHub."


@pytest.fixture
def notes(tmp_path):
    path = tmp_path / "todo.md"
    path.write_text(NOTES)
    return path


@pytest.fixture
def sources(notes):
    return [MarkdownSource(notes), CountingSource()]


def client_over(tmp_path, controller, store, clock, fake_coach, sources):
    coach = CoachInfo(fake_coach.name, None, fake_coach)
    runtime = Runtime(controller, store, clock, coach, tasks=Board(lambda: sources))
    app = create_app(Settings(data_dir=tmp_path), runtime=runtime)
    app.config.update(TESTING=True)
    return app.test_client()


@pytest.fixture
def client(tmp_path, controller, store, clock, fake_coach, sources):
    return client_over(tmp_path, controller, store, clock, fake_coach, sources)


def listed(client) -> list[dict]:
    response = client.get("/tasks")
    assert response.status_code == 200 and response.is_json
    return response.get_json()


def key_of(client, title: str) -> str:
    task = next(t for t in listed(client) if t["title"] == title)
    return f"{task['source']}:{task['id']}"


# -- GET /tasks ---------------------------------------------------------------------------------


def test_tasks_lists_open_tasks_of_every_source_in_turn(client):
    tasks = listed(client)
    assert [(t["source"], t["title"]) for t in tasks] == [
        ("markdown", "Draft the <b>intro</b> & outline"),
        ("github", "Fix login"),
        ("markdown", "Call the bank"),
    ]
    assert all(list(t) == ["source", "id", "title", "url"] for t in tasks)
    assert tasks[1]["url"] == "https://github.example/octo/app/7" and tasks[0]["url"] is None


def test_tasks_are_at_most_ten(client, notes):
    notes.write_text("".join(f"- [ ] Task {n}\n" for n in range(15)))
    assert len(listed(client)) == 10


def test_tasks_are_fresh_each_time(client, notes):
    assert len(listed(client)) == 3
    notes.write_text("- [ ] Only this one\n")
    assert [t["title"] for t in listed(client)] == ["Only this one", "Fix login"]


def test_the_page_gets_an_escaped_list_and_one_line_per_failing_source(client, sources):
    sources[1].fail = "GitHub CLI is not logged in: run gh auth login in a terminal."
    response = client.get("/tasks", headers=HX)
    assert response.status_code == 200 and response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    assert "<b>" not in html
    root = parse(html).by_id("tasks")
    buttons = root.find_all("button")
    assert [b.find_all("span")[0].text() for b in buttons] == [
        "Draft the <b>intro</b> & outline",
        "Call the bank",
    ]
    picks = [json.loads(b.get("hx-vals"))["task"] for b in buttons]
    assert all(p.startswith("markdown:") for p in picks)
    assert [p.text() for p in root.find_all("p", class_="task-problem")] == [
        "GitHub CLI is not logged in: run gh auth login in a terminal."
    ]


def test_another_site_cannot_make_the_sources_run(client, sources):
    response = client.get("/tasks", headers={"Sec-Fetch-Site": "cross-site"})
    assert response.status_code == 403
    response = client.get("/tasks", headers={"Origin": "http://evil.example"})
    assert response.status_code == 403
    assert sources[1].calls == 0


# -- POST /planning with task= --------------------------------------------------------------------


def test_picking_a_task_opens_planning_with_its_title_as_the_intent(client):
    key = key_of(client, "Call the bank")
    assert client.post("/planning", data={"task": key}).status_code == 200
    assert state(client)["runtime_state"] == "planning"
    page = parse(client.get("/").get_data(as_text=True))
    assert page.by_id("intent").value() == "Call the bank"
    assert "Call the bank" in page.by_id("task-pick").text()


def test_the_commitment_remembers_its_task_in_state_and_history(client):
    key = key_of(client, "Fix login")
    client.post("/planning", json={"task": key})
    client.post("/commitment", json=PLAN)
    task = state(client)["commitment"]["task"]
    assert task == {
        "source": "github",
        "id": "octo/app#7",
        "title": "Fix login",
        "url": "https://github.example/octo/app/7",
    }
    client.post("/finish")
    client.post("/end", json={"outcome": "met"})
    assert client.get("/history").get_json()[0]["task"] == task
    page = parse(client.get("/").get_data(as_text=True))
    row = next(li for li in page.find_all("li") if "history-item" in li.get("class", ""))
    assert [a.get("href") for a in row.find_all("a") if "github" in (a.get("href") or "")] == [
        "https://github.example/octo/app/7"
    ]


def test_a_commitment_without_a_task_says_so(client):
    client.post("/planning")
    client.post("/commitment", json=PLAN)
    assert state(client)["commitment"]["task"] is None


def test_picking_while_planning_fills_the_intent_and_another_pick_replaces_it(client):
    client.post("/planning")
    key = key_of(client, "Call the bank")
    response = client.post("/planning", data={"task": key}, headers=HX)
    assert response.status_code == 200
    intent, count = parse(response.get_data(as_text=True)).elements  # the box and its count
    assert (count.id, count.text(), count.get("hx-swap-oob")) == (
        "count-intent",
        "13 / 2000",
        "true",
    )
    assert (intent.id, intent.value(), intent.get("hx-swap-oob")) == (
        "intent",
        "Call the bank",
        "true",
    )
    assert "autofocus" not in intent.attrs  # focus must not jump while the user types on
    client.post("/planning", data={"task": key_of(client, "Fix login")})
    client.post("/commitment", json=PLAN)
    assert state(client)["commitment"]["task"]["title"] == "Fix login"


def test_not_for_this_task_forgets_the_pick(client):
    client.post("/planning", data={"task": key_of(client, "Call the bank")})
    assert client.post("/planning", data={"task": ""}).status_code == 200
    assert state(client)["runtime_state"] == "planning"
    client.post("/commitment", json=PLAN)
    assert state(client)["commitment"]["task"] is None


@pytest.mark.parametrize("value", ["nocolon", ":id", "markdown:", "x" * 500, 7])
def test_a_malformed_task_is_400_and_nothing_changes(client, value):
    response = client.post("/planning", json={"task": value})
    assert response.status_code == 400 and "task" in response.get_json()["error"]
    assert state(client)["runtime_state"] == "locked"


def test_a_task_no_source_has_is_404_and_nothing_changes(client):
    response = client.post("/planning", data={"task": "markdown:ffffff-0000000000"})
    assert response.status_code == 404
    assert state(client)["runtime_state"] == "locked"


def test_picking_a_task_while_a_commitment_runs_is_409_and_asks_no_source(client, sources):
    client.post("/planning")
    client.post("/commitment", json=PLAN)
    before = sources[1].calls
    response = client.post("/planning", data={"task": "github:octo/app#7"})
    assert response.status_code == 409
    assert sources[1].calls == before
    assert state(client)["runtime_state"] == "active"


def test_picking_a_task_from_another_site_is_refused(client, sources):
    response = client.post(
        "/planning", data={"task": "github:octo/app#7"}, headers={"Origin": "http://evil.example"}
    )
    assert response.status_code == 403
    assert state(client)["runtime_state"] == "locked" and sources[1].calls == 0


# -- the pick is part of the planning draft --------------------------------------------------------


def test_a_pick_sets_the_drafts_intent_and_keeps_the_plan_fields_typed(client):
    client.post("/planning")
    typed = {"intent": "something else", "next_action": "Ring them", "timebox_minutes": "15"}
    client.post("/planning/draft", data=typed)
    client.post("/planning", data={"task": key_of(client, "Call the bank")}, headers=HX)
    draft = state(client)["draft"]
    assert draft["intent"] == "Call the bank"  # the title replaces the rough intent
    assert (draft["next_action"], draft["success_condition"], draft["timebox_minutes"]) == (
        "Ring them",
        "",
        "15",
    )
    assert draft["edited"] == ["next_action", "timebox_minutes"]
    assert draft["task"]["title"] == "Call the bank" and draft["task"]["source"] == "markdown"
    page = parse(client.get("/").get_data(as_text=True))  # a reload shows the same form
    assert page.by_id("intent").value() == "Call the bank"
    assert page.by_id("next_action").value() == "Ring them"
    assert "Call the bank" in page.by_id("task-pick").text()


def test_the_picked_intent_box_keeps_saving_the_draft(client):
    client.post("/planning")
    response = client.post("/planning", data={"task": key_of(client, "Fix login")}, headers=HX)
    intent, _ = parse(response.get_data(as_text=True)).elements
    saves = (intent.get("hx-post"), intent.get("hx-params"), intent.get("hx-include"))
    assert saves == ("/planning/draft", "intent,draft_version", "#draft_version")
    assert intent.get("hx-target") == "#count-intent" and "input" in intent.get("hx-trigger")
    page = parse(client.get("/").get_data(as_text=True))
    assert page.by_id("intent").get("hx-post") == "/planning/draft"  # the same box on the page


def test_typing_over_a_picked_title_keeps_the_task(client):
    client.post("/planning", data={"task": key_of(client, "Call the bank")})
    client.post("/planning/draft", data={"intent": "Call the bank about the loan"})
    client.post("/commitment", json=PLAN)
    assert state(client)["commitment"]["task"]["title"] == "Call the bank"


def test_not_for_this_task_keeps_everything_typed(client):
    client.post("/planning", data={"task": key_of(client, "Call the bank")})
    client.post("/planning/draft", data={"intent": "my words", "success_condition": "Done"})
    client.post("/planning", data={"task": ""}, headers=HX)
    draft = state(client)["draft"]
    assert (draft["intent"], draft["success_condition"]) == ("my words", "Done")
    assert draft["task"] is None
    assert parse(client.get("/").get_data(as_text=True)).by_id("task-pick").text().strip() == ""


def test_a_restart_keeps_the_pick(client, store, clock, controller):
    client.post("/planning", data={"task": key_of(client, "Fix login")})
    client.post("/planning/draft", data={"next_action": "Reproduce it"})
    controller.shutdown()
    again = build_controller(store, clock)  # a new process over the same store
    try:
        draft = again.snapshot().draft
        assert again.snapshot().task == draft.task
        assert (draft.intent, draft.next_action) == ("Fix login", "Reproduce it")
        assert draft.task.key == "github:octo/app#7"
        assert draft.task.url == "https://github.example/octo/app/7"
        again.start_manual_commitment(*PLAN.values())
        assert again.snapshot().commitment.task == draft.task
    finally:
        again.shutdown()


def test_sharpen_keeps_the_pick(client, fake_coach):
    client.post("/planning", data={"task": key_of(client, "Call the bank")})
    client.post("/coach", data={"intent": "Call the bank"})
    fake_coach.wait_calls(1)
    assert state(client)["draft"]["task"]["title"] == "Call the bank"


def test_again_plans_the_same_task_once_more(client):
    cid = review_of(client, "Fix login")
    client.post("/end", json={"outcome": "missed"})
    assert client.post("/planning", data={"again": cid}).status_code == 200
    draft = state(client)["draft"]
    assert draft["next_action"] == PLAN["next_action"] and draft["task"]["id"] == "octo/app#7"


# -- POST /tasks/writeback ------------------------------------------------------------------------


def page(client):
    return parse(client.get("/").get_data(as_text=True))


def review_of(client, title: str) -> str:
    client.post("/planning", data={"task": key_of(client, title)})
    client.post("/commitment", json=PLAN)
    client.post("/finish")
    return state(client)["commitment"]["id"]


def test_from_the_review_a_note_goes_under_the_markdown_task_with_the_chosen_outcome(client, notes):
    cid = review_of(client, "Call the bank")
    response = client.post(
        "/tasks/writeback",
        data={"commitment": cid, "action": "note", "outcome": "met", "note": "all sorted"},
        headers=HX,
    )
    assert response.status_code == 200
    assert "Added a line under the task" in parse(response.get_data(as_text=True)).text()
    lines = notes.read_text().splitlines()
    assert lines[2] == "- [ ] Call the bank"
    assert lines[3].startswith("  - AntiDrift ") and lines[3].endswith(
        ": met — Write the intro (0 s). all sorted"
    )
    assert notes.read_text().replace(lines[3] + "\n", "") == NOTES
    assert state(client)["runtime_state"] == "review"  # writing back does not end the review


def test_done_on_a_markdown_task_turns_its_box_to_x_and_no_other_byte(client, notes):
    notes.write_text(NOTES.replace("- [ ] Call the bank\n", "- [ ] Call the bank  \n"))
    cid = review_of(client, "Call the bank")
    body = {"commitment": cid, "action": "done", "outcome": "met", "note": "all sorted"}
    response = client.post("/tasks/writeback", data=body, headers=HX)
    assert response.status_code == 200
    said = parse(response.get_data(as_text=True)).elements[0]
    assert said.text().strip() == "Ticked the task in todo.md."
    assert notes.read_text() == NOTES.replace("- [ ] Call the bank\n", "- [x] Call the bank  \n")


@pytest.mark.parametrize("action", ["done", "note"])
def test_after_a_write_back_finish_can_no_longer_be_undone(client, notes, action):
    """Undo would run the commitment again while the task tool says it ended (ticked done,
    or a note with its outcome): the write-back makes Finish stand, and the Undo goes."""
    cid = review_of(client, "Call the bank")
    assert page(client).by_id("undo").find_all("button")  # offered until the write-back
    body = {"commitment": cid, "action": action, "outcome": "met"}
    assert client.post("/tasks/writeback", data=body, headers=HX).status_code == 200
    assert page(client).by_id("undo").find_all("button") == []
    response = client.post("/finish/undo")
    assert response.status_code == 409 and "undo Finish" in response.get_json()["error"]
    assert state(client)["runtime_state"] == "review"


def test_an_undo_from_another_tab_while_the_task_is_written_is_refused(
    tmp_path, controller, store, clock, fake_coach, notes
):
    """The other tab's Undo lands while the task tool is being written: refused, so the task
    is never ticked under a commitment running again."""
    undone: list[int] = []

    class UndoMidWrite(MarkdownSource):
        def write_back(self, task, text, done):
            undone.append(other_tab.post("/finish/undo").status_code)
            return super().write_back(task, text, done)

    other_tab = client_over(tmp_path, controller, store, clock, fake_coach, [UndoMidWrite(notes)])
    cid = review_of(other_tab, "Call the bank")
    body = {"commitment": cid, "action": "done", "outcome": "met"}
    assert other_tab.post("/tasks/writeback", data=body, headers=HX).status_code == 200
    assert undone == [409]
    assert state(other_tab)["runtime_state"] == "review"
    assert "- [x] Call the bank" in notes.read_text()


def test_a_write_back_that_fails_leaves_the_undo(client, notes):
    cid = review_of(client, "Call the bank")
    notes.write_text("# This week\n- [ ] Something else\n")  # the task left its file
    body = {"commitment": cid, "action": "done", "outcome": "met"}
    assert client.post("/tasks/writeback", data=body, headers=HX).status_code == 409
    assert page(client).by_id("undo").find_all("button")
    assert client.post("/finish/undo").status_code == 200


def test_a_write_back_from_the_history_leaves_a_later_finish_undoable(client, notes):
    old = review_of(client, "Call the bank")
    client.post("/end", json={"outcome": "met"})
    review_of(client, "Draft the <b>intro</b> & outline")
    body = {"commitment": old, "action": "note"}
    assert client.post("/tasks/writeback", data=body, headers=HX).status_code == 200
    assert client.post("/finish/undo").status_code == 200
    assert state(client)["runtime_state"] == "active"


def test_the_note_counts_the_time_worked_not_the_pauses(client, notes, clock):
    client.post("/planning", data={"task": key_of(client, "Call the bank")})
    client.post("/commitment", json=PLAN)
    clock.advance(5 * 60)
    assert client.post("/pause").status_code < 400
    clock.advance(20 * 60)  # on the phone to someone else: not time worked
    assert client.post("/resume").status_code < 400
    clock.advance(3 * 60)
    client.post("/finish")
    cid = state(client)["commitment"]["id"]
    response = client.post(
        "/tasks/writeback", json={"commitment": cid, "action": "note", "outcome": "met"}
    )
    assert response.status_code == 200
    assert notes.read_text().splitlines()[3].endswith(": met — Write the intro (8 min)")


def test_from_the_review_an_outcome_must_be_chosen_first(client, notes):
    cid = review_of(client, "Call the bank")
    response = client.post("/tasks/writeback", json={"commitment": cid, "action": "note"})
    assert response.status_code == 400 and "met or missed" in response.get_json()["error"]
    assert notes.read_text() == NOTES


def test_from_the_history_the_saved_outcome_and_note_are_written(client, sources):
    cid = review_of(client, "Fix login")
    client.post("/end", json={"outcome": "missed", "note": "blocked by review"})
    response = client.post("/tasks/writeback", json={"commitment": cid, "action": "note"})
    assert response.status_code == 200
    assert response.get_json() == {
        "result": "Added a comment to the issue on GitHub.",
        "written_back": "note",
    }
    ((task_id, text),) = sources[1].written
    assert task_id == "octo/app#7"
    assert text.endswith(": missed — Write the intro (0 s). blocked by review")


def test_insights_offers_the_write_back_beside_the_entry_that_served_a_task(client):
    cid = review_of(client, "Fix login")
    client.post("/end", json={"outcome": "met"})
    client.post("/planning")
    client.post("/commitment", json=PLAN)  # a second one, for no task
    client.post("/finish")
    client.post("/end", json={"outcome": "met"})
    page = parse(client.get("/insights").get_data(as_text=True))
    buttons = [b for b in page.find_all("button") if b.get("hx-post") == "/tasks/writeback"]
    assert [json.loads(b.get("hx-vals")) for b in buttons] == [
        {"commitment": cid, "action": "note"}
    ]
    links = [a.get("href") for a in page.find_all("a")]
    assert "https://github.example/octo/app/7" in links


def test_an_action_the_source_does_not_offer_is_409_and_writes_nothing(client, sources):
    cid = review_of(client, "Fix login")
    response = client.post(
        "/tasks/writeback", json={"commitment": cid, "action": "done", "outcome": "met"}
    )
    assert response.status_code == 409 and "can't do that" in response.get_json()["error"]
    assert sources[1].written == []


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"commitment": "x", "action": "delete"}, 400),
        ({"action": "note"}, 400),
        ({"commitment": "no-such-id", "action": "note"}, 404),
    ],
)
def test_bad_write_backs_are_refused(client, body, status):
    assert client.post("/tasks/writeback", json=body).status_code == status


def test_a_commitment_that_served_no_task_is_409(client):
    client.post("/planning")
    client.post("/commitment", json=PLAN)
    client.post("/finish")
    cid = state(client)["commitment"]["id"]
    response = client.post(
        "/tasks/writeback", json={"commitment": cid, "action": "note", "outcome": "met"}
    )
    assert response.status_code == 409


def test_a_task_that_left_its_file_is_409_and_the_file_is_untouched(client, notes):
    cid = review_of(client, "Call the bank")
    notes.write_text("- [ ] Something else entirely\n")
    response = client.post(
        "/tasks/writeback", json={"commitment": cid, "action": "note", "outcome": "met"}
    )
    assert response.status_code == 409 and "no longer in todo.md" in response.get_json()["error"]
    assert notes.read_text() == "- [ ] Something else entirely\n"


def test_a_source_removed_from_the_settings_is_409(client, sources, notes):
    cid = review_of(client, "Call the bank")
    sources[:] = [sources[1]]
    response = client.post(
        "/tasks/writeback", json={"commitment": cid, "action": "note", "outcome": "met"}
    )
    assert response.status_code == 409 and "settings" in response.get_json()["error"]
    assert notes.read_text() == NOTES


def test_another_site_cannot_write_back(client, notes):
    cid = review_of(client, "Call the bank")
    response = client.post(
        "/tasks/writeback",
        data={"commitment": cid, "action": "done", "outcome": "met"},
        headers={"Origin": "http://evil.example"},
    )
    assert response.status_code == 403 and notes.read_text() == NOTES


def test_todotxt_only_marks_done(tmp_path, controller, store, clock, fake_coach):
    todo = tmp_path / "todo.txt"
    todo.write_text("(A) Pay rent\n")
    board = Board(lambda: [TodoTxtSource(todo)])
    coach = CoachInfo(fake_coach.name, None, fake_coach)
    runtime = Runtime(controller, store, clock, coach, tasks=board)
    client = create_app(Settings(data_dir=tmp_path), runtime=runtime).test_client()
    cid = review_of(client, "Pay rent")
    review = parse(client.get("/").get_data(as_text=True))
    buttons = [b for b in review.find_all("button") if b.get("hx-post") == "/tasks/writeback"]
    assert [b.children[0].strip() for b in buttons] == ["Mark done"]  # no note: no place for one
    response = client.post(
        "/tasks/writeback", json={"commitment": cid, "action": "done", "outcome": "met"}
    )
    assert response.status_code == 200 and todo.read_text().startswith("x ")


# -- privacy: a task's title reaches the AI only as the intent the user sharpens -----------------


def test_the_title_reaches_the_coach_only_when_the_user_sharpens_it(client, fake_coach):
    client.post("/planning", data={"task": key_of(client, "Call the bank")})
    client.post("/coach", data={"intent": "sort out the mortgage paperwork"})
    fake_coach.wait_calls(1)
    assert fake_coach.intents == ["sort out the mortgage paperwork"]
    client.post(
        "/coach", data={"intent": "Call the bank"}
    )  # the picked title, as the page fills it
    fake_coach.wait_calls(2)
    assert fake_coach.intents[1] == "Call the bank"


def test_the_reflection_is_told_nothing_of_the_task(client, controller):
    from dataclasses import asdict

    from antidrift.core.insights import WindowTime
    from antidrift.session.reflecting import review_facts

    review_of(client, "Call the bank")
    commitment = controller.snapshot().commitment
    assert commitment.task.title == "Call the bank"
    facts = asdict(review_facts(commitment, WindowTime((), (), 0), None))
    assert "Call the bank" not in repr(facts)


# -- safety 0.5: write-backs that take turns, follow their line, or refuse with a sentence --------


def test_write_backs_at_once_to_one_file_are_all_kept(
    tmp_path, controller, store, clock, fake_coach
):
    """Real threads through the app, each with its own client, released together: each
    answers 200 only if its line is in the file (today one note was lost under two 200s).
    Two presses for one commitment (a note and a done): one is written, the other is 409."""
    notes = tmp_path / "todo.md"
    notes.write_text("".join(f"- [ ] Task {n}\n" for n in range(6)))
    client = client_over(tmp_path, controller, store, clock, fake_coach, [MarkdownSource(notes)])
    served = []
    for n in range(6):
        served.append(review_of(client, f"Task {n}"))
        client.post("/end", json={"outcome": "met", "note": f"note {n}"})
    presses = [(cid, action) for cid in served for action in ("note", "done")]
    # Each tab is built here, before any thread starts: a thread that failed before the
    # barrier would leave the others waiting at it for ever (a timeout says so instead).
    tabs = [
        client_over(tmp_path, controller, store, clock, fake_coach, [MarkdownSource(notes)])
        for _ in presses
    ]
    start = threading.Barrier(len(presses), timeout=30)
    answers: list[int] = []

    def write_back(tab, cid: str, action: str) -> None:
        start.wait()
        body = {"commitment": cid, "action": action}
        answers.append(tab.post("/tasks/writeback", json=body).status_code)

    threads = [
        threading.Thread(target=write_back, args=(tab, cid, action))
        for tab, (cid, action) in zip(tabs, presses, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads), "a write-back never answered"
    assert sorted(answers) == [200] * 6 + [409] * 6
    text = notes.read_text()
    written = {h["id"]: h["written_back"] for h in client.get("/history").get_json()}
    for n, cid in enumerate(served):  # the one that won is in the file, the other is not
        noted, ticked = text.count(f"(0 s). note {n}\n"), f"- [x] Task {n}\n" in text
        assert (noted, ticked) == ((1, False) if written[cid] == "note" else (0, True)), n


def test_a_write_back_after_undo_finish_is_409_and_writes_nothing(client, notes):
    cid = review_of(client, "Call the bank")
    assert client.post("/finish/undo").status_code == 200
    body = {"commitment": cid, "action": "done", "outcome": "met"}
    response = client.post("/tasks/writeback", json=body)
    assert response.status_code == 409
    assert "running again (Finish was undone)" in response.get_json()["error"]
    assert notes.read_text() == NOTES and state(client)["runtime_state"] == "active"


def test_undo_after_a_write_back_says_the_outcome_is_in_the_task_list(client, notes):
    cid = review_of(client, "Call the bank")
    body = {"commitment": cid, "action": "done", "outcome": "met"}
    assert client.post("/tasks/writeback", json=body).status_code == 200
    response = client.post("/finish/undo")
    assert response.status_code == 409
    assert "its outcome is in your task list already" in response.get_json()["error"]
    assert state(client)["runtime_state"] == "review" and "- [x] Call the bank" in notes.read_text()


def test_a_same_titled_task_added_above_the_chosen_one_is_409_and_the_file_untouched(client, notes):
    cid = review_of(client, "Call the bank")
    moved = NOTES.replace("- [ ] Call the bank\n", "- [ ] Call the bank\n" * 2)
    notes.write_text(moved)
    body = {"commitment": cid, "action": "done", "outcome": "met"}
    response = client.post("/tasks/writeback", json=body)
    assert response.status_code == 409 and "same title" in response.get_json()["error"]
    assert notes.read_text() == moved


def test_a_read_only_task_file_is_409_with_a_sentence_and_stays_read_only(client, notes):
    cid = review_of(client, "Call the bank")
    notes.chmod(0o444)
    body = {"commitment": cid, "action": "note", "outcome": "met"}
    response = client.post("/tasks/writeback", json=body)
    assert response.status_code == 409
    assert response.get_json()["error"] == "todo.md is read-only: nothing was written."
    assert notes.read_text() == NOTES and notes.stat().st_mode & 0o777 == 0o444


def test_a_task_ticked_after_the_listing_cannot_be_picked_from_it(client, notes):
    key = key_of(client, "Call the bank")  # the page lists it...
    notes.write_text(NOTES.replace("[ ] Call the bank", "[x] Call the bank"))  # ...then ticked
    response = client.post("/planning", data={"task": key})
    assert response.status_code == 404
    assert state(client)["runtime_state"] == "locked"


# -- 0.5: a write-back is pressed once per commitment --------------------------------------------


def writeback_buttons(html) -> list:
    return [b for b in html.find_all("button") if b.get("hx-post") == "/tasks/writeback"]


def test_a_commitment_is_written_back_once_then_shown_as_recorded(client, notes):
    """The second press (another tab, a reload) is 409 with a sentence and writes nothing; the
    review, after a reload, and the history show it recorded, with no button to press."""
    cid = review_of(client, "Call the bank")
    body = {"commitment": cid, "action": "note", "outcome": "met", "note": "sorted"}
    response = client.post("/tasks/writeback", data=body, headers=HX)
    assert response.status_code == 200
    answer = parse(response.get_data(as_text=True))
    swapped = answer.by_id(f"writeback-actions-{cid}")
    assert swapped.get("hx-swap-oob") == "true" and writeback_buttons(swapped) == []
    assert "Recorded in todo.md: note added" in swapped.text()
    once = notes.read_text()

    again = client.post("/tasks/writeback", json={**body, "action": "done"})
    assert again.status_code == 409
    assert "already recorded in your task list" in again.get_json()["error"]
    assert notes.read_text() == once  # neither ticked nor noted twice

    review = page(client).by_id("view")
    assert writeback_buttons(review) == []
    assert "Recorded in todo.md: note added" in review.by_id(f"writeback-actions-{cid}").text()

    client.post("/end", json={"outcome": "met"})
    (entry,) = [h for h in client.get("/history").get_json() if h["id"] == cid]
    assert entry["written_back"] == "note"
    for html in (page(client), parse(client.get("/insights").get_data(as_text=True))):
        recorded = html.by_id(f"writeback-actions-{cid}")
        assert "Recorded in todo.md" in recorded.text() and writeback_buttons(recorded) == []
    from_history = client.post("/tasks/writeback", json={"commitment": cid, "action": "done"})
    assert from_history.status_code == 409 and notes.read_text() == once


def test_a_write_back_that_failed_can_be_pressed_again(client, notes):
    cid = review_of(client, "Call the bank")
    notes.write_text("# This week\n- [ ] Something else\n")  # the task left its file
    body = {"commitment": cid, "action": "done", "outcome": "met"}
    assert client.post("/tasks/writeback", data=body, headers=HX).status_code == 409
    assert writeback_buttons(page(client).by_id(f"writeback-actions-{cid}"))
    notes.write_text(NOTES)  # it is back
    assert client.post("/tasks/writeback", data=body, headers=HX).status_code == 200
    assert "- [x] Call the bank" in notes.read_text()


def test_a_history_entry_written_back_once_refuses_a_second(client, sources):
    cid = review_of(client, "Fix login")
    client.post("/end", json={"outcome": "met"})
    body = {"commitment": cid, "action": "note"}
    assert client.post("/tasks/writeback", json=body).status_code == 200
    second = client.post("/tasks/writeback", json=body)
    assert second.status_code == 409 and "written there once" in second.get_json()["error"]
    assert len(sources[1].written) == 1
