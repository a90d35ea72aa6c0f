"""Taskwarrior through the user's own `task` binary: pending tasks, most urgent first.

Verified against Debian's taskwarrior 2.6.2 (tests/integration/tasks/test_taskwarrior_real.py
and docs/CLI-VERIFIED.md). Every run adds configuration overrides so the user's taskrc cannot
add hooks, colour, chatter or prompts, nor change what a read writes:

* `rc.hooks=off`: hooks in `<data>/hooks` do not run (an on-launch hook that exits 1 would
  fail every call; one that prints would corrupt the JSON).
* `rc.verbose=nothing`, `rc.color=off`: no "TASKRC override" header, footnotes or colour.
* `rc.json.array=on`: `export` prints one JSON array even if the user turned it off.
* `rc.gc=off`, `rc.recurrence=off`: a read neither renumbers tasks nor generates recurring
  instances, so listing writes nothing.
* `rc.recurrence.confirmation=no`: annotating a recurring instance otherwise asks "Do you want
  to annotate all pending recurrences…?"; `no` answers it (only this instance changes).
* `rc.exit.on.missing.db=yes`: a data directory that does not exist is an error (exit 2),
  not a new directory made behind the user's back.
* NOT `rc.confirmation=off`: without any taskrc, task asks whether to create ~/.taskrc, and
  with confirmation off it silently writes one. With stdin empty and closed, the question
  reads end-of-file, task says "Cannot proceed without rc file." and exits 2.
* The listing is a report defined on the command line (`rc.report.antidrift.*`, sorted by
  `urgency-`, filter `status:pending -WAITING`) with `limit:10`, so a store of thousands of
  tasks still prints ten; the user's own report definitions cannot change it.
* Annotation text follows `--`, so words in it like `project:x`, `+tag` or `rc.hooks=on`
  are text, not modifications or overrides.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from antidrift.tasks.source import (
    CLI_TIMEOUT,
    DONE,
    NOTE,
    Gone,
    SourceError,
    Task,
    clean_title,
    one_line,
    run_cli,
)

LABEL = "Taskwarrior"
LIMIT = 10
RC = [
    "rc.hooks=off",
    "rc.verbose=nothing",
    "rc.color=off",
    "rc.json.array=on",
    "rc.gc=off",
    "rc.recurrence=off",
    "rc.recurrence.confirmation=no",
    "rc.exit.on.missing.db=yes",
]
REPORT = [
    "rc.report.antidrift.filter=status:pending -WAITING",
    "rc.report.antidrift.sort=urgency-",
    "rc.report.antidrift.columns=id",
]
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _failure(stdout: str, stderr: str, returncode: int) -> SourceError:
    # task's own lines can quote a task's description: they are matched, never echoed.
    text = f"{stdout}\n{stderr}"
    if "without rc file" in text or "configuration file could not be found" in text:
        return SourceError(
            "Taskwarrior is not set up yet: run task once in a terminal to create its settings."
        )
    if "data.location does not exist" in text:
        return SourceError("Taskwarrior's data folder does not exist yet.")
    return SourceError(f"Taskwarrior failed (task exited with status {returncode}).")


def _rows(text: str) -> list[object]:
    """The export's rows. task writes a description's control characters (an escape, a bell)
    into its JSON raw, which strict JSON refuses: they are read (and cleaned from the title)
    rather than losing the whole list; a row that is still not JSON is dropped alone (task
    prints one row a line)."""
    try:
        rows = json.loads(text, strict=False)
    except (ValueError, RecursionError):
        rows = None
    if isinstance(rows, list):
        return rows
    if rows is not None:
        raise SourceError("Taskwarrior's export is not a list of tasks.")
    kept = []
    for line in text.splitlines():
        line = line.strip().rstrip(",")
        if line.startswith("{"):
            try:
                kept.append(json.loads(line, strict=False))
            except (ValueError, RecursionError):
                continue  # this task alone is left out
    if not kept:
        raise SourceError("Taskwarrior printed something that is not its JSON export.")
    return kept


def parse_export(text: str, limit: int = LIMIT) -> list[Task]:
    """`task export`'s JSON array → tasks, in the order given (the report sorts them)."""
    tasks = []
    for row in _rows(text):
        if not isinstance(row, dict) or row.get("status") != "pending":
            continue
        uuid, title = row.get("uuid"), clean_title(row.get("description"))
        if isinstance(uuid, str) and _UUID.fullmatch(uuid) and title:
            tasks.append(Task("taskwarrior", uuid, title))
        if len(tasks) == limit:
            break
    return tasks


class TaskwarriorSource:
    """The user's Taskwarrior, through `task` with their TASKRC/TASKDATA."""

    kind = "taskwarrior"
    label = LABEL
    actions = frozenset({NOTE, DONE})

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        program: str = "task",
        timeout: float = CLI_TIMEOUT,
    ) -> None:
        self._env = env
        self._program = program
        self._timeout = timeout

    def _run(self, *args: str) -> str:
        argv = [self._program, *RC, *args]
        result = run_cli(argv, label=LABEL, env=self._env, timeout=self._timeout)
        if result.returncode != 0:
            raise _failure(result.stdout, result.stderr, result.returncode)
        return result.stdout

    def tasks(self) -> list[Task]:
        return parse_export(self._run(*REPORT, f"limit:{LIMIT}", "export", "antidrift"))

    def owns(self, task_id: str) -> bool:
        return _UUID.fullmatch(task_id) is not None

    def current(self, task: Task) -> Task | None:
        if not self.owns(task.id):
            return None
        found = parse_export(self._run(task.id, "export"), limit=1)
        return found[0] if found else None  # done or deleted meanwhile: not pending

    def write_back(self, task: Task, text: str, done: bool) -> str:
        if not self.owns(task.id):
            raise Gone("That is not a Taskwarrior task.")
        found = parse_export(self._run(task.id, "export"), limit=1)
        if not found:
            raise Gone("The task is no longer pending in Taskwarrior (done or deleted?).")
        self._run(task.id, "annotate", "--", one_line(text))
        if not done:
            return "Added a note to the task in Taskwarrior."
        self._run(task.id, "done")
        return "Added a note to the task in Taskwarrior and marked it done."
