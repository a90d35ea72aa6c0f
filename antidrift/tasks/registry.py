"""The task sources AntiDrift knows: one table, `name → (available?, build)`. A new source is
one module, and here its builder (which imports the module: a start that lists no tasks never
loads one) and one line; nothing else lists them."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from antidrift.tasks.source import TaskSource

Env = Mapping[str, str]


def _on_path(program: str) -> Callable[[str | None, Env], bool]:
    return lambda _path, env: shutil.which(program, path=env.get("PATH")) is not None


def _is_file(path: str | None, _env: Env) -> bool:
    return path is not None and Path(path).expanduser().is_file()


@dataclass(frozen=True)
class Kind:
    """How to tell whether a source can work here, and how to make one."""

    available: Callable[[str | None, Env], bool]
    build: Callable[[str | None, Env], TaskSource]
    takes_path: bool = False


# Each source's module is imported when a source of its kind is built, not with the table:
# the settings check at every start reads only the names (issue 40: the footprint).
def _taskwarrior(_path: str | None, env: Env) -> TaskSource:
    from antidrift.tasks.taskwarrior import TaskwarriorSource

    return TaskwarriorSource(env)


def _github(_path: str | None, env: Env) -> TaskSource:
    from antidrift.tasks.github import GitHubSource

    return GitHubSource(env)


def _markdown(path: str | None, _env: Env) -> TaskSource:
    from antidrift.tasks.markdown import MarkdownSource

    return MarkdownSource(Path(path))


def _todotxt(path: str | None, _env: Env) -> TaskSource:
    from antidrift.tasks.todotxt import TodoTxtSource

    return TodoTxtSource(Path(path))


SOURCES: dict[str, Kind] = {
    "taskwarrior": Kind(_on_path("task"), _taskwarrior),
    "github": Kind(_on_path("gh"), _github),
    "markdown": Kind(_is_file, _markdown, takes_path=True),
    "todotxt": Kind(_is_file, _todotxt, takes_path=True),
}


@dataclass(frozen=True)
class SourceSpec:
    """One entry of the `tasks` setting: a source's name and, for a file, its path."""

    kind: str
    path: str | None = None

    def __str__(self) -> str:
        return self.kind if self.path is None else f"{self.kind}:{self.path}"


def parse(value: str) -> tuple[SourceSpec, ...]:
    """The `tasks` setting (`taskwarrior, github, markdown:<path>, todotxt:<path>`) → specs,
    duplicates dropped; ValueError naming the one fault (settings/kinds.py words the rest)."""
    specs: list[SourceSpec] = []
    for item in (part.strip() for part in value.split(",")):
        if not item:
            continue
        kind, colon, path = item.partition(":")
        kind, path = kind.strip().lower(), path.strip()
        if kind not in SOURCES:
            raise ValueError(f"{kind!r} is not a task source")
        if SOURCES[kind].takes_path:
            if not path:
                raise ValueError(f"{kind} needs the file's path, as {kind}:/path/to/file")
            if not os.path.isabs(os.path.expanduser(path)):
                raise ValueError(f"{kind}:{path} is not a full path: start it with / or ~")
            if not path.isprintable():
                raise ValueError(f"the path after {kind}: contains control characters")
            spec = SourceSpec(kind, path)
        elif colon:
            raise ValueError(f"{kind} takes no path")
        else:
            spec = SourceSpec(kind)
        if spec not in specs:
            specs.append(spec)
    return tuple(specs)


def forms() -> list[str]:
    """How each source is written in the setting: `taskwarrior`, `markdown:<path>`, …"""
    return [f"{name}:<path>" if kind.takes_path else name for name, kind in SOURCES.items()]


def build(specs: tuple[SourceSpec, ...], env: Env | None = None) -> list[TaskSource]:
    """The configured sources, in the order given (the user's environment for the CLIs)."""
    env = os.environ if env is None else env
    return [SOURCES[spec.kind].build(spec.path, env) for spec in specs]


def available(spec: SourceSpec, env: Env | None = None) -> bool:
    """Whether the source can work here: its CLI is on PATH, its file exists."""
    return SOURCES[spec.kind].available(spec.path, os.environ if env is None else env)
