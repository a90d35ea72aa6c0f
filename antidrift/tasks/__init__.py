"""Task sources: start from the task the user already keeps (Taskwarrior, GitHub issues, a
Markdown or todo.txt file) and write the result back there on the user's click.

One module per source (taskwarrior, github, markdown, todotxt), one table of them
(registry.SOURCES), the shared shapes (source.py), bounded file edits (textfile.py) and the
parallel, bounded listing (board.py). Nothing here imports Flask or the controller.

The names below are each module's, loaded at their first use (PEP 562): the settings check
that every start runs reads only the registry's syntax, and a server whose user lists no
tasks never loads a source (issue 40: the footprint)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from antidrift.tasks.board import Board, Listing, Offer, doctor_lines, outcome_text, split_key
    from antidrift.tasks.registry import SOURCES, SourceSpec, available, build, forms, parse
    from antidrift.tasks.source import DONE, NOTE, Conflict, Gone, SourceError, Task, TaskSource

_BOARD = frozenset({"Board", "Listing", "Offer", "doctor_lines", "outcome_text", "split_key"})
_REGISTRY = frozenset({"SOURCES", "SourceSpec", "available", "build", "forms", "parse"})
_SOURCE = frozenset({"DONE", "NOTE", "Conflict", "Gone", "SourceError", "Task", "TaskSource"})


def __getattr__(name: str) -> Any:
    if name in _BOARD:
        from antidrift.tasks import board as module
    elif name in _REGISTRY:
        from antidrift.tasks import registry as module
    elif name in _SOURCE:
        from antidrift.tasks import source as module
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(module, name)
    return value


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
