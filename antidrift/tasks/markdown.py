"""A Markdown task file (an Obsidian or Logseq note, a TODO.md): its open `- [ ] …` lines.

Write-back adds one list item under the task (after its own sub-items, so notes stay in the
order they were written) and, for done, ticks the box; every other byte of the file stays as
it was: line endings, encoding (even invalid UTF-8), a missing final newline, a BOM."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from antidrift.tasks import textfile
from antidrift.tasks.source import DONE, NOTE, Gone, Task, clean_title, one_line

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


def add_note(text: str, item: Item, note: str, tick: bool) -> str:
    """text with one list item under `item` (and its box ticked); nothing else changes."""
    lines = textfile.split_lines(text)
    match = item.match
    if tick and item.open:
        body, ending = textfile.body_and_ending(lines[item.line])
        at = match.start("box")
        lines[item.line] = body[:at] + "x" + body[at + 1 :] + ending
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

    def _read(self) -> tuple[textfile.Snapshot, list[Item]]:
        snapshot = textfile.read(self.path, self.label)
        return snapshot, items(textfile.split_lines(snapshot.text))

    def tasks(self) -> list[Task]:
        _, found = self._read()
        return [
            Task(self.kind, f"{self._key}-{item.key}", item.title) for item in found if item.open
        ][:LIMIT]

    def owns(self, task_id: str) -> bool:
        return task_id.startswith(f"{self._key}-")

    def write_back(self, task: Task, text: str, done: bool) -> str:
        snapshot, found = self._read()
        wanted = task.id.removeprefix(f"{self._key}-")
        item = next((i for i in found if i.key == wanted), None)
        if item is None:
            raise Gone(f"The task is no longer in {self.label}.")
        textfile.replace(snapshot, add_note(snapshot.text, item, text, tick=done), self.label)
        if done and item.open:
            return f"Added a line under the task in {self.label} and ticked it."
        return f"Added a line under the task in {self.label}."
