"""The listing across sources: parallel, bounded by one deadline, one line per failure."""

from __future__ import annotations

import threading
import time

import pytest

from antidrift.tasks import Board, Gone, SourceError, Task, outcome_text
from antidrift.tasks.board import doctor_lines, interleave
from tests.support.timing import assert_within


class FakeSource:
    """A source whose answer a test decides: tasks, an error, a hang until released."""

    def __init__(self, kind, titles=(), *, error=None, hang=False, bug=False, actions=("note",)):
        self.kind, self.label = kind, kind.capitalize()
        self.actions = frozenset(actions)
        self._tasks = [Task(kind, f"{kind}-{i}", t) for i, t in enumerate(titles)]
        self._error, self._bug = error, bug
        self.release = threading.Event()
        if not hang:
            self.release.set()
        self.written: list[tuple[str, str, bool]] = []

    def tasks(self):
        self.release.wait(10)
        if self._bug:
            raise KeyError(self._bug if isinstance(self._bug, str) else "a bug")
        if self._error:
            raise SourceError(self._error)
        return list(self._tasks)

    def owns(self, task_id):
        return task_id.startswith(f"{self.kind}-")

    def current(self, task):
        return next((t for t in self.tasks() if t.id == task.id), None)

    def write_back(self, task, text, done):
        self.written.append((task.id, text, done))
        return "written"


def test_sources_take_turns_so_none_crowds_out_the_others():
    a = [Task("a", str(i), f"a{i}") for i in range(8)]
    b = [Task("b", str(i), f"b{i}") for i in range(2)]
    c = [Task("c", str(i), f"c{i}") for i in range(8)]
    titles = [t.title for t in interleave([a, b, c], 10)]
    assert titles == ["a0", "b0", "c0", "a1", "b1", "c1", "a2", "c2", "a3", "c3"]
    assert interleave([], 10) == []


def test_a_hanging_failing_or_broken_source_is_one_line_and_the_rest_still_list():
    hanging = FakeSource("taskwarrior", ["never"], hang=True)
    sources = [
        FakeSource("github", ["Fix login"]),
        hanging,
        FakeSource("markdown", error="todo.md: the file does not exist."),
        FakeSource("todotxt", bug=True),
    ]
    board = Board(lambda: sources, deadline=0.3)
    started = time.monotonic()
    listing = board.listing()
    took = time.monotonic() - started
    hanging.release.set()
    assert [t.title for t in listing.tasks] == ["Fix login"]
    assert listing.problems == (
        "Taskwarrior did not answer in time.",
        "todo.md: the file does not exist.",
        "Todotxt failed unexpectedly; see the log.",
    )
    assert_within(took, 5, "the listing")  # the deadline decides, not the hanging source


def test_a_broken_source_is_logged_without_what_it_said(caplog):
    """Its message may quote a task's title: the log has the type and the frames alone."""
    broken = FakeSource("todotxt", bug=True)
    broken._bug = "Call the bank about the mortgage"
    Board(lambda: [broken]).listing()
    (record,) = [r for r in caplog.records if r.name == "antidrift.tasks"]
    logged = record.getMessage() + (caplog.text or "")
    assert "KeyError" in logged and "in tasks" in logged  # the frame that raised
    assert "mortgage" not in logged


def test_no_sources_list_nothing():
    board = Board(lambda: [])
    assert board.listing().tasks == () and not board.configured()


def test_a_listed_task_is_found_by_its_key_and_an_unknown_one_is_not():
    source = FakeSource("github", ["Fix login", "Write docs"])
    board = Board(lambda: [source])
    board.listing()
    assert board.find("github:github-1") == Task("github", "github-1", "Write docs")
    assert board.find("github:github-9") is None
    assert board.find("jira:1") is None
    assert board.find("no colon") is None
    assert board.find(None) is None


def test_a_task_never_listed_is_asked_of_its_source():
    board = Board(lambda: [FakeSource("github", ["Fix login"])])
    assert board.find("github:github-0").title == "Fix login"


def test_write_back_goes_to_the_tasks_own_source_and_only_with_an_offered_action():
    gh, md = FakeSource("github"), FakeSource("markdown", actions=("note", "done"))
    board = Board(lambda: [gh, md])
    assert board.write_back(Task("markdown", "markdown-3", "x"), "done", "met") == "written"
    assert md.written == [("markdown-3", "met", True)] and gh.written == []
    with pytest.raises(SourceError, match="Github can't do that: add a note"):
        board.write_back(Task("github", "github-1", "x"), "done", "met")
    with pytest.raises(Gone, match="no longer in your settings"):
        board.write_back(Task("taskwarrior", "u", "x"), "note", "met")
    assert gh.written == []


def test_the_written_text_says_outcome_action_time_and_note():
    assert outcome_text("met", "Draft intro", "25 min", "", "2026-12-03") == (
        "AntiDrift 2026-12-03: met — Draft intro (25 min)"
    )
    assert outcome_text("missed", "Draft intro", "40 s", "phone rang", "2026-12-03").endswith(
        "(40 s). phone rang"
    )


def test_doctor_says_what_each_source_answers_now():
    lines = doctor_lines(
        [FakeSource("github", ["a", "b"]), FakeSource("markdown", error="x.md: gone.")]
    )
    assert lines == [
        "task sources (ANTIDRIFT_TASKS):",
        "  github       Github: 2 open task(s) listed",
        "  markdown     x.md: gone.",
    ]
    assert doctor_lines([]) == ["task sources: none (ANTIDRIFT_TASKS)"]


def test_a_task_ticked_since_the_listing_cannot_be_picked_from_it():
    source = FakeSource("markdown", ["Call the bank", "Write docs"])
    board = Board(lambda: [source])
    board.listing()
    source._tasks = source._tasks[1:]  # ticked in the file after the page listed it
    assert board.find("markdown:markdown-0") is None
    assert board.find("markdown:markdown-1") == Task("markdown", "markdown-1", "Write docs")
