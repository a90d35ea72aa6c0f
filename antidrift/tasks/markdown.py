"""A Markdown task file (an Obsidian or Logseq note, a TODO.md): its open `- [ ] …` lines.

Write-back `note` adds one list item under the task (after its own sub-items, so notes stay
in the order they were written); `done` turns that one line's box to `[x]` and nothing else
(a box already ticked, `[x]` or `[X]`, stays as it is). Every other byte of the file stays
as it was: line endings, trailing spaces, encoding (even invalid UTF-8), a missing final
newline, a BOM.

A task's id is the file's key, its title's key (the title and how many same-titled tasks
precede it) and the fingerprint of its place: the line before it, its own line (box left
out) and the line after its sub-items. A write-back goes to the one same-titled task whose
place matches; a unique title follows its task through edits around it; a same-titled task
added above or below makes the place ambiguous, and the write-back is refused (Moved, 409)
rather than sent to the wrong line."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from antidrift.tasks import textfile
from antidrift.tasks.source import DONE, NOTE, Conflict, Gone, Task, clean_title, one_line

LIMIT = 10
# A list item with a task box: "- [ ] …", "* [x] …", "1. [ ] …", indented or not.
_ITEM = re.compile(
    r"^\ufeff?(?P<indent>[ \t]*)(?P<marker>[-*+]|[0-9]{1,9}[.)])(?P<gap>[ \t]+)"
    r"\[(?P<box>[ xX])\][ \t]+(?P<title>\S.*)$"
)
_FENCE = re.compile(r"^\ufeff?[ ]{0,3}(?P<fence>`{3,}|~{3,})")


@dataclass(frozen=True)
class Item:
    """A task line: where it is and what it says."""

    line: int
    match: re.Match[str]
    title: str
    key: str

    @property
    def open(self) -> bool:
        return self.match.group("box") == " "


def _width(indent: str) -> int:
    return len(indent.expandtabs(4))


def items(lines: list[str]) -> list[Item]:
    """Every task line outside fenced code, ticked or not, in file order."""
    found, seen = [], {}
    fence = None
    for number, line in enumerate(lines):
        body, _ = textfile.body_and_ending(line)
        opening = _FENCE.match(body)
        if fence is not None:
            if (
                opening
                and opening.group("fence")[0] == fence[0]
                and len(opening.group("fence")) >= len(fence)
            ):
                fence = None
            continue
        if opening:
            fence = opening.group("fence")
            continue
        match = _ITEM.match(body)
        title = clean_title(match.group("title")) if match else ""
        if title:
            occurrence = seen.get(title, 0)
            seen[title] = occurrence + 1
            found.append(Item(number, match, title, textfile.task_key(title, occurrence)))
    return found


def _end_of_item(lines: list[str], item: Item) -> int:
    """The index after the task line and its sub-items (more indented, no blank between)."""
    own = _width(item.match.group("indent"))
    end = item.line + 1
    while end < len(lines):
        body, _ = textfile.body_and_ending(lines[end])
        if not body.strip() or _width(body[: len(body) - len(body.lstrip(" \t"))]) <= own:
            break
        end += 1
    return end


def _unticked(body: str) -> str:
    """A line with its task box (if any) left blank: ticking a task does not move it."""
    match = _ITEM.match(body)
    if match is None:
        return body
    return body[: match.start("box")] + " " + body[match.end("box") :]


def _indent_of(body: str) -> int:
    return _width(body[: len(body) - len(body.lstrip(" \t"))])


def place_of(lines: list[str], item: Item) -> str:
    """The fingerprint of where a task stands: the line before it (past a sibling's own
    sub-items, so a note added there does not move it), its own line and the line after its
    sub-items, every task box in them left blank (ticking does not move a task either)."""
    own = _width(item.match.group("indent"))
    at = item.line - 1
    while at >= 0 and (body := textfile.body_and_ending(lines[at])[0]).strip():
        if _indent_of(body) <= own:
            break
        at -= 1
    before = textfile.body_and_ending(lines[at])[0] if at >= 0 else ""
    end = _end_of_item(lines, item)
    after = textfile.body_and_ending(lines[end])[0] if end < len(lines) else ""
    this = textfile.body_and_ending(lines[item.line])[0]
    parts = (_unticked(before), _unticked(this), _unticked(after))
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()[:8]


def chosen(lines: list[str], found: list[Item], task: Task, wanted: str, label: str) -> Item:
    """The task line an id (`wanted`, past the file's key) names: Gone when no task has the
    title any more, Moved when same-titled tasks make it unsure which line it is now."""
    key, _, place = wanted.partition("-")
    same = [i for i in found if i.title == task.title]
    if not place:  # an id from before places were kept: by title and occurrence alone
        same = [i for i in same if i.key == key]
    if not same:
        raise Gone(f"The task is no longer in {label}.")
    if not place:
        return same[0]
    here = [i for i in same if place_of(lines, i) == place]
    if len(here) == 1:
        return here[0]
    if not here and len(same) == 1 and key == textfile.task_key(task.title, 0):
        return same[0]  # the only task of that title, edited around: still the one picked
    raise Moved(
        f"The task moved in {label} beside another task of the same title: nothing was"
        " written. Pick it again from the list."
    )


class Moved(Conflict):
    """A same-titled task came in around the chosen one: which line it is, is not sure."""


def tick(text: str, item: Item) -> str:
    """text with `item`'s box turned to `[x]`: that one byte changes, nothing else."""
    lines = textfile.split_lines(text)
    body, ending = textfile.body_and_ending(lines[item.line])
    at = item.match.start("box")
    lines[item.line] = body[:at] + "x" + body[at + 1 :] + ending
    return "".join(lines)


def add_note(text: str, item: Item, note: str) -> str:
    """text with one list item under `item`; nothing else changes."""
    lines = textfile.split_lines(text)
    match = item.match
    marker, gap = match.group("marker"), match.group("gap")
    bullet = marker if marker in "-*+" else "-"
    step = len(marker) + (len(gap) if gap.strip(" ") == "" and len(gap) <= 4 else 1)
    child = f"{match.group('indent')}{' ' * step}{bullet} {one_line(note)}"
    at = _end_of_item(lines, item)
    before, ending = textfile.body_and_ending(lines[at - 1])
    if ending:
        lines.insert(at, child + ending)
    else:  # the task block ends the file without a newline: so does the added line
        lines[at - 1] = before + textfile.newline_of(text)
        lines.insert(at, child)
    return "".join(lines)


class MarkdownSource:
    """Open `- [ ]` tasks of one Markdown file, top to bottom."""

    kind = "markdown"
    actions = frozenset({NOTE, DONE})

    def __init__(self, path: Path) -> None:
        self.path = Path(path).expanduser()
        self.label = self.path.name
        self._key = textfile.file_key(self.path)

    def _read(self) -> tuple[textfile.FileSnapshot, list[str], list[Item]]:
        snapshot = textfile.read(self.path, self.label)
        lines = textfile.split_lines(snapshot.text)
        return snapshot, lines, items(lines)

    def _task(self, lines: list[str], item: Item) -> Task:
        return Task(self.kind, f"{self._key}-{item.key}-{place_of(lines, item)}", item.title)

    def tasks(self) -> list[Task]:
        _, lines, found = self._read()
        return [self._task(lines, item) for item in found if item.open][:LIMIT]

    def owns(self, task_id: str) -> bool:
        return task_id.startswith(f"{self._key}-")

    def _wanted(self, task: Task) -> str:
        return task.id.removeprefix(f"{self._key}-")

    def current(self, task: Task) -> Task | None:
        """The task as the file has it now; None once it is ticked, gone or ambiguous."""
        _, lines, found = self._read()
        try:
            item = chosen(lines, found, task, self._wanted(task), self.label)
        except (Gone, Moved):
            return None
        return self._task(lines, item) if item.open else None

    def write_back(self, task: Task, text: str, done: bool) -> str:
        with textfile.editing(self.path):
            snapshot, lines, found = self._read()
            item = chosen(lines, found, task, self._wanted(task), self.label)
            if done:
                if not item.open:  # [x] or [X] stays as the user wrote it
                    return f"The task was already ticked in {self.label}."
                textfile.replace(snapshot, tick(snapshot.text, item), self.label)
                return f"Ticked the task in {self.label}."
            textfile.replace(snapshot, add_note(snapshot.text, item, text), self.label)
            return f"Added a line under the task in {self.label}."
