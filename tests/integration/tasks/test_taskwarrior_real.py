"""The real `task` (Debian taskwarrior 2.6.2) on a throwaway TASKDATA and TASKRC: the listing,
the overrides that keep the user's configuration out, and the write-back."""

from __future__ import annotations

import json

import pytest

from antidrift.tasks import Gone, SourceError, Task
from antidrift.tasks.taskwarrior import TaskwarriorSource


def export(tw, uuid: str) -> dict:
    (row,) = json.loads(tw.task("rc.json.array=on", uuid, "export"))
    return row


def test_pending_tasks_most_urgent_first_without_waiting_or_done_ones(taskwarrior):
    tw = taskwarrior
    low = tw.add("Tidy the desk")
    high = tw.add("Ship the release", "priority:H", "due:today")
    mid = tw.add("Answer Sam", "priority:M")
    tw.add("Later, not now", "wait:tomorrow")
    done = tw.add("Done already")
    tw.task(done, "done")
    tasks = TaskwarriorSource(tw.env).tasks()
    assert [(t.id, t.title) for t in tasks] == [
        (high, "Ship the release"),
        (mid, "Answer Sam"),
        (low, "Tidy the desk"),
    ]
    assert {t.source for t in tasks} == {"taskwarrior"} and {t.url for t in tasks} == {None}


def test_a_long_list_still_prints_only_ten(taskwarrior):
    for n in range(14):
        taskwarrior.add(f"Task number {n}", f"priority:{'H' if n == 13 else 'L'}")
    tasks = TaskwarriorSource(taskwarrior.env).tasks()
    assert len(tasks) == 10 and tasks[0].title == "Task number 13"


def test_the_users_configuration_cannot_break_or_reach_into_the_listing(taskwarrior):
    tw = taskwarrior
    uuid = tw.add("Ship the release")
    hooks = tw.data / "hooks"
    hooks.mkdir(parents=True, exist_ok=True)
    ran = tw.home / "hook-ran"
    hook = hooks / "on-launch-noisy"
    hook.write_text(f"#!/bin/sh\necho ran >> {ran}\necho 'hook says hi'\nexit 1\n")
    hook.chmod(0o755)
    tw.rc.write_text(
        "json.array=off\ncolor=on\n_forcecolor=on\nverbose=on\n"
        "report.antidrift.filter=status:completed\nreport.antidrift.sort=description+\n"
    )
    assert [t.id for t in TaskwarriorSource(tw.env).tasks()] == [uuid]
    assert not ran.exists()


def test_listing_writes_nothing_to_the_task_data(taskwarrior):
    tw = taskwarrior
    # Left as a user's last run may leave them: a recurring task whose instance is not made
    # yet, and a done task not yet moved out by the garbage collector.
    quiet = ("rc.recurrence=off", "rc.gc=off")
    tw.task(*quiet, "add", "Daily standup", "recur:daily", "due:today")
    tw.task(*quiet, "add", "One-off")
    tw.task(*quiet, "add", "Finished")
    tw.task(*quiet, "description:Finished", "done")
    before = {p.name: p.read_bytes() for p in tw.data.iterdir() if p.is_file()}
    TaskwarriorSource(tw.env).tasks()
    after = {p.name: p.read_bytes() for p in tw.data.iterdir() if p.is_file()}
    assert after == before


def test_a_note_is_an_annotation_and_nothing_else_of_the_task_changes(taskwarrior):
    tw = taskwarrior
    uuid = tw.add("Ship the release", "project:work", "+urgent", "priority:H")
    before = export(tw, uuid)
    text = "AntiDrift: met — project:evil +tag due:tomorrow rc.hooks=on -- (done)"
    said = TaskwarriorSource(tw.env).write_back(Task("taskwarrior", uuid, "x"), text, done=False)
    after = export(tw, uuid)
    assert [a["description"] for a in after.pop("annotations")] == [text]
    for changing in ("modified", "urgency"):
        before.pop(changing), after.pop(changing)
    assert after == before
    assert said == "Added a note to the task in Taskwarrior."


@pytest.mark.parametrize("text", ["project:evil", "+urgent", "rc.hooks=on", "-- x"])
def test_a_note_that_looks_like_a_modification_is_still_only_text(taskwarrior, text):
    tw = taskwarrior
    uuid = tw.add("Ship the release")
    TaskwarriorSource(tw.env).write_back(Task("taskwarrior", uuid, "x"), text, done=False)
    row = export(tw, uuid)
    assert [a["description"] for a in row["annotations"]] == [text]
    assert "project" not in row and "tags" not in row


def test_done_annotates_then_completes_and_a_second_time_is_gone(taskwarrior):
    tw = taskwarrior
    uuid = tw.add("Ship the release")
    source = TaskwarriorSource(tw.env)
    source.write_back(Task("taskwarrior", uuid, "x"), "AntiDrift: met", done=True)
    row = export(tw, uuid)
    assert row["status"] == "completed" and row["annotations"][0]["description"] == (
        "AntiDrift: met"
    )
    with pytest.raises(Gone, match="no longer pending"):
        source.write_back(Task("taskwarrior", uuid, "x"), "again", done=False)
    assert len(export(tw, uuid)["annotations"]) == 1


def test_annotating_a_recurring_instance_changes_only_that_instance(taskwarrior):
    tw = taskwarrior
    tw.add("Daily standup", "recur:daily", "due:today")
    tw.task("list")  # task makes the first instance, as the user's own next run would
    instance = TaskwarriorSource(tw.env).tasks()[0]
    TaskwarriorSource(tw.env).write_back(instance, "AntiDrift: met", done=False)
    rows = json.loads(tw.task("rc.json.array=on", "export"))
    annotated = [r["uuid"] for r in rows if r.get("annotations")]
    assert annotated == [instance.id]


def test_without_any_taskrc_it_says_so_and_creates_none(taskwarrior):
    env = {k: v for k, v in taskwarrior.env.items() if k not in ("TASKRC", "TASKDATA")}
    with pytest.raises(SourceError, match="not set up yet: run task once"):
        TaskwarriorSource(env).tasks()
    assert list(taskwarrior.home.iterdir()) == []


def test_a_missing_data_folder_is_a_sentence_not_a_new_folder(taskwarrior, tmp_path):
    env = dict(taskwarrior.env, TASKDATA=str(tmp_path / "nowhere"))
    with pytest.raises(SourceError, match="data folder does not exist"):
        TaskwarriorSource(env).tasks()
    assert not (tmp_path / "nowhere").exists()


def test_an_escape_character_in_one_description_hides_no_other_task(taskwarrior):
    """The real task writes the escape into its JSON export raw: the list still shows every
    task, that one with its title made printable."""
    tw = taskwarrior
    first = tw.add("Ship the release", "priority:H")
    coloured = tw.add("\x1b[31mRed\x1b[0m alert \x07", "priority:M")
    last = tw.add("Tidy the desk")
    tasks = TaskwarriorSource(tw.env).tasks()
    assert [(t.id, t.title) for t in tasks] == [
        (first, "Ship the release"),
        (coloured, "[31mRed [0m alert"),
        (last, "Tidy the desk"),
    ]


def test_a_task_done_since_the_listing_is_no_longer_current(taskwarrior):
    tw = taskwarrior
    uuid = tw.add("Ship the release")
    source = TaskwarriorSource(tw.env)
    (listed,) = source.tasks()
    assert source.current(listed) == listed
    tw.task(uuid, "done")
    assert source.current(listed) is None
