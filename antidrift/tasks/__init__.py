"""Task sources: start from the task the user already keeps (Taskwarrior, GitHub issues, a
Markdown or todo.txt file) and write the result back there on the user's click.

One module per source (taskwarrior, github, markdown, todotxt), one table of them
(registry.SOURCES), the shared shapes (source.py), bounded file edits (textfile.py) and the
parallel, bounded listing (board.py). Nothing here imports Flask or the controller."""

from antidrift.tasks.board import Board, Listing, Offer, doctor_lines, outcome_text, split_key
from antidrift.tasks.registry import SOURCES, SourceSpec, available, build, forms, parse
from antidrift.tasks.source import DONE, NOTE, Conflict, Gone, SourceError, Task, TaskSource

__all__ = [
    "DONE",
    "NOTE",
    "SOURCES",
    "Board",
    "Conflict",
    "Gone",
    "Listing",
    "Offer",
    "SourceError",
    "SourceSpec",
    "Task",
    "TaskSource",
    "available",
    "build",
    "doctor_lines",
    "forms",
    "outcome_text",
    "parse",
    "split_key",
]
