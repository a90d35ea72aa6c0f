"""What every task source is: a kind, a list of open tasks, and a write-back on the user's click.

Sources reach the outside only through the one subprocess seam (antidrift/process.py) or a
bounded file read (textfile.py); every failure is a SourceError whose message is one sentence
for people. A task's title is never part of such a sentence (titles are private)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Protocol

from antidrift import process
from antidrift.core.domain import TaskRef as Task  # one shape for a task, listed or remembered
from antidrift.core.errors import Error

MAX_TITLE = 500  # a title becomes the rough intent and may become the next action (500)
CLI_TIMEOUT = 5.0  # seconds per CLI run; the listing's overall deadline is a little longer
OUTPUT_CAP = 1 << 20  # bytes of a CLI's stdout
NOTE = "note"
DONE = "done"
_SPACES = re.compile(r"\s+")


class SourceError(Error):
    """The source failed; the message is one sentence for people (never a task's title);
    409: the task cannot take it now."""

    status = 409


class Gone(SourceError):
    """The task is no longer where it was (deleted, moved, closed elsewhere)."""


class Conflict(SourceError):
    """The task's file changed while AntiDrift was writing: nothing was written."""


class TaskSource(Protocol):
    kind: str  # the registry's name
    label: str  # what the page calls it ("Taskwarrior", "todo.md")
    actions: frozenset[str]  # the write-backs it offers: note, done

    def tasks(self) -> list[Task]:
        """Open tasks, most urgent first (bounded); SourceError when the source fails."""
        ...

    def owns(self, task_id: str) -> bool:
        """Whether a task id is this source's (several files may share a kind)."""
        ...

    def current(self, task: Task) -> Task | None:
        """The task as its source has it now, None when it is no longer open (ticked, done,
        gone): a pick from an older listing must not plan a finished task. A source whose
        look-up is a network call may answer the task as listed."""
        ...

    def write_back(self, task: Task, text: str, done: bool) -> str:
        """Record `text` with the task (and mark it done); the sentence says what was done."""
        ...


def clean_title(value: object) -> str:
    """A title as one line of printable text, at most MAX_TITLE characters ("" if none)."""
    if not isinstance(value, str):
        return ""
    text = "".join(
        " " if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp", "Cs") else c for c in value
    )
    text = _SPACES.sub(" ", text).strip()
    if len(text) > MAX_TITLE:
        text = text[: MAX_TITLE - 1].rstrip() + "…"
    return text


def one_line(text: str) -> str:
    """Write-back text as a single line (annotations, Markdown list items, todo.txt)."""
    return _SPACES.sub(" ", "".join(" " if c.isspace() or not c.isprintable() else c for c in text))


def run_cli(
    argv: list[str],
    *,
    label: str,
    env: Mapping[str, str] | None,
    timeout: float = CLI_TIMEOUT,
    max_output: int = OUTPUT_CAP,
) -> process.Result:
    """Run a source's CLI through the one seam (stdin empty and closed, so a prompt reads
    end-of-file and gives up); a process failure becomes a SourceError naming `label`."""
    try:
        return process.run(
            argv,
            timeout=timeout,
            max_output=max_output,
            env=dict(env) if env is not None else None,
            name=argv[0],
        )
    except process.ProgramMissing:
        raise SourceError(f"{label}: {argv[0]} is not installed.") from None
    except process.TimedOut:
        raise SourceError(f"{label} did not answer within {timeout:g} s.") from None
    except process.TooLarge:
        raise SourceError(f"{label} printed more than {max_output // 1024} KiB.") from None
    except process.ProcessError as exc:
        raise SourceError(f"{label}: {exc}.") from None


def first_line(result: process.Result, limit: int = 200) -> str:
    """The first line a failing CLI printed (stderr, else stdout), else its exit status."""
    for stream in (result.stderr, result.stdout):
        for line in stream.splitlines():
            if line.strip():
                return line.strip()[:limit]
    return f"exit status {result.returncode}"
