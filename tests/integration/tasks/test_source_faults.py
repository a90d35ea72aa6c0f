"""A source that hangs, floods, is missing or fails: one line in the listing, the others
still listed, and no process of it left running."""

from __future__ import annotations

import json
import time

from antidrift.tasks import Board
from antidrift.tasks.markdown import MarkdownSource
from antidrift.tasks.taskwarrior import TaskwarriorSource
from tests.support.fake_cli import FakeCLI
from tests.support.procs import wait_dead
from tests.support.timing import assert_within


def board_with(tmp_path, fake_env, **kwargs) -> Board:
    notes = tmp_path / "todo.md"
    notes.write_text("- [ ] Still listed\n")
    sources = [TaskwarriorSource(fake_env, timeout=1.0), MarkdownSource(notes)]
    return Board(lambda: sources, deadline=2.0, **kwargs)


def fake_task(tmp_path):
    fake = FakeCLI(tmp_path / "bin", "task")
    return fake, {"PATH": str(fake.folder), "HOME": str(tmp_path)}


def test_a_hanging_task_is_killed_and_is_one_line(tmp_path):
    fake, env = fake_task(tmp_path)
    pids = tmp_path / "pids"
    fake.configure(answer="[]", delay=60, pidfile=str(pids))
    started = time.monotonic()
    listing = board_with(tmp_path, env).listing()
    assert_within(time.monotonic() - started, 2.0, "the listing")
    assert [t.title for t in listing.tasks] == ["Still listed"]
    assert listing.problems == ("Taskwarrior did not answer within 1 s.",)
    assert wait_dead(int(pids.read_text().split()[0]), within=0.5)


def test_a_flooding_task_is_cut_off_and_is_one_line(tmp_path):
    fake, env = fake_task(tmp_path)
    row = {"uuid": "13841924-e10e-45de-821d-9c9ceeb65dc8", "status": "pending"}
    fake.configure(answer=json.dumps([dict(row, description="x" * 1000)] * 2000))
    listing = board_with(tmp_path, env).listing()
    assert [t.title for t in listing.tasks] == ["Still listed"]
    assert listing.problems == ("Taskwarrior printed more than 1024 KiB.",)


def test_a_missing_task_binary_is_one_line(tmp_path):
    listing = board_with(tmp_path, {"PATH": str(tmp_path / "empty")}).listing()
    assert [t.title for t in listing.tasks] == ["Still listed"]
    assert listing.problems == ("Taskwarrior: task is not installed.",)


def test_a_failing_task_is_one_line_that_echoes_none_of_its_output(tmp_path):
    fake, env = fake_task(tmp_path)
    fake.configure(answer="Task 3 'My secret project' is broken", exit=3)
    listing = board_with(tmp_path, env).listing()
    assert listing.problems == ("Taskwarrior failed (task exited with status 3).",)
