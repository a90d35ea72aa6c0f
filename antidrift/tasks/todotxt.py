"""A todo.txt file (todotxt.org): its open lines, priority (A) first, then file order.

todo.txt has no place for notes, so its write-back is done alone: the line becomes
`x <today> …`, with a priority kept as a `pri:A` tag as most clients do (the format drops
`(A)` from completed lines); every other byte of the file stays as it was."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from antidrift.tasks import textfile
from antidrift.tasks.source import DONE, Gone, SourceError, Task, clean_title

LIMIT = 10
_OPEN = re.compile(
    r"^(?P<bom>\ufeff?)(?:\((?P<priority>[A-Z])\) )?(?:(?P<created>[0-9]{4}-[0-9]{2}-[0-9]{2}) )?"
    r"(?P<title>.*)$"
)


@dataclass(frozen=True)
class Line:
    number: int
    match: re.Match[str]
    title: str
    key: str


def open_lines(lines: list[str]) -> list[Line]:
    """Every line that is not blank and not completed (`x `), in file order."""
    found, seen = [], {}
    for number, line in enumerate(lines):
        body, _ = textfile.body_and_ending(line)
        if not body.strip() or body.lstrip("\ufeff").startswith("x "):
            continue
        match = _OPEN.match(body)
        title = clean_title(match.group("title"))
        if title:
            occurrence = seen.get(title, 0)
            seen[title] = occurrence + 1
            found.append(Line(number, match, title, textfile.task_key(title, occurrence)))
    return found


def complete(text: str, line: Line, today: date) -> str:
    """text with `line` marked done; nothing else changes."""
    lines = textfile.split_lines(text)
    _, ending = textfile.body_and_ending(lines[line.number])
    match = line.match
    created = f"{match.group('created')} " if match.group("created") else ""
    priority = f" pri:{match.group('priority')}" if match.group("priority") else ""
    lines[line.number] = (
        f"{match.group('bom')}x {today.isoformat()} {created}{match.group('title')}"
        f"{priority}{ending}"
    )
    return "".join(lines)


class TodoTxtSource:
    """Open lines of one todo.txt file."""

    kind = "todotxt"
    actions = frozenset({DONE})

    def __init__(self, path: Path, today=date.today) -> None:
        self.path = Path(path).expanduser()
        self.label = self.path.name
        self._key = textfile.file_key(self.path)
        self._today = today

    def _read(self) -> tuple[textfile.FileSnapshot, list[Line]]:
        snapshot = textfile.read(self.path, self.label)
        return snapshot, open_lines(textfile.split_lines(snapshot.text))

    def tasks(self) -> list[Task]:
        _, found = self._read()
        # Priority A first; lines without one after every prioritised line; else file order.
        ranked = sorted(found, key=lambda ln: ln.match.group("priority") or "[")
        return [Task(self.kind, f"{self._key}-{ln.key}", ln.title) for ln in ranked][:LIMIT]

    def owns(self, task_id: str) -> bool:
        return task_id.startswith(f"{self._key}-")

    def current(self, task: Task) -> Task | None:
        _, found = self._read()
        wanted = task.id.removeprefix(f"{self._key}-")
        return next((task for ln in found if ln.key == wanted), None)

    def write_back(self, task: Task, text: str, done: bool) -> str:
        if not done:
            raise SourceError(f"{self.label} has no place for notes: mark the task done instead.")
        with textfile.editing(self.path):
            snapshot, found = self._read()
            wanted = task.id.removeprefix(f"{self._key}-")
            line = next((ln for ln in found if ln.key == wanted), None)
            if line is None:
                raise Gone(f"The task is no longer open in {self.label}.")
            textfile.replace(snapshot, complete(snapshot.text, line, self._today()), self.label)
        return f"Marked the task done in {self.label}."
