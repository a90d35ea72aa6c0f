"""The configured sources together: a bounded listing for planning and write-back by key.

Every source is asked in parallel, each on its own daemon thread; the listing waits at most
DEADLINE seconds in all. A source's CLI is killed by its own timeout (a little shorter than
the deadline), so when the listing answers, no source process is left running; a file read
that hangs (a dead network mount) is abandoned on its thread. A failing source becomes one
line in the listing, never an exception."""

from __future__ import annotations

import logging
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from antidrift.tasks.source import (
    CLI_TIMEOUT,
    DONE,
    NOTE,
    Gone,
    SourceError,
    Task,
    TaskSource,
)

log = logging.getLogger("antidrift.tasks")

LIMIT = 10
DEADLINE = CLI_TIMEOUT + 1.0
ACTIONS = (NOTE, DONE)


@dataclass(frozen=True)
class Listing:
    """Up to LIMIT open tasks, a few from each source in turn; one line per source that
    failed or did not answer in time."""

    tasks: tuple[Task, ...] = ()
    problems: tuple[str, ...] = ()
    labels: Mapping[str, str] = field(default_factory=dict)  # task key → its source's name

    def label(self, task: Task) -> str:
        """What the page calls the task's source ("Taskwarrior", "todo.md")."""
        return self.labels.get(task.key, task.source)


@dataclass(frozen=True)
class Offer:
    """The write-backs a task's source offers, and what the page calls that source."""

    label: str
    actions: tuple[str, ...]  # note and/or done, in that order


def interleave(per_source: Sequence[Sequence[Task]], limit: int = LIMIT) -> list[Task]:
    """The first task of each source, then the second of each, …: no source crowds out the
    others, and each keeps its own order (most urgent first)."""
    merged: list[Task] = []
    depth = 0
    while len(merged) < limit and any(depth < len(tasks) for tasks in per_source):
        merged += [tasks[depth] for tasks in per_source if depth < len(tasks)]
        depth += 1
    return merged[:limit]


def outcome_text(outcome: str, next_action: str, took: str, note: str, day: str) -> str:
    """What a write-back records: the outcome, the next action, the time it took (as the one
    rule says a duration: "25 min", "40 s"), the note."""
    text = f"AntiDrift {day}: {outcome} — {next_action} ({took})"
    return f"{text}. {note}" if note else text


def split_key(key: object) -> tuple[str, str] | None:
    """`<source>:<id>` → (source, id); None when it is not that shape."""
    if not isinstance(key, str) or len(key) > 400:
        return None
    source, colon, task_id = key.partition(":")
    return (source, task_id) if colon and source and task_id else None


class Board:
    """Lists and writes back through whatever sources are configured at the moment."""

    def __init__(
        self,
        sources: Callable[[], Sequence[TaskSource]],
        *,
        deadline: float = DEADLINE,
        limit: int = LIMIT,
    ) -> None:
        self._sources = sources
        self._deadline = deadline
        self._limit = limit
        self._lock = threading.Lock()
        self._seen: dict[str, Task] = {}  # the last listing's tasks, by key

    def configured(self) -> bool:
        """Whether any task source is configured."""
        return bool(self._sources())

    def listing(self) -> Listing:
        """Fresh from every source, in parallel, within the deadline."""
        sources = list(self._sources())
        results: list[list[Task] | str | None] = [None] * len(sources)
        done = threading.Semaphore(0)

        def ask(index: int, source: TaskSource) -> None:
            try:
                results[index] = source.tasks()
            except SourceError as exc:
                results[index] = str(exc)
            except Exception as exc:  # a bug in one source must not take the listing down
                # Where it failed, not what it said: the message may quote a title (private).
                where = "".join(traceback.format_tb(exc.__traceback__))
                log.error("task source %s failed: %s\n%s", source.kind, type(exc).__name__, where)
                results[index] = f"{source.label} failed unexpectedly; see the log."
            done.release()

        for index, source in enumerate(sources):
            threading.Thread(
                target=ask, args=(index, source), daemon=True, name=f"tasks-{source.kind}"
            ).start()
        _wait_all(done, len(sources), self._deadline)
        per_source, problems, labels = [], [], {}
        for source, result in zip(sources, list(results), strict=True):
            if isinstance(result, list):
                per_source.append(result)
                labels.update((task.key, source.label) for task in result)
            else:
                problems.append(result or f"{source.label} did not answer in time.")
        tasks = interleave(per_source, self._limit)
        with self._lock:
            self._seen = {task.key: task for task in tasks}
        return Listing(tuple(tasks), tuple(problems), labels)

    def source_of(self, task: Task) -> TaskSource | None:
        """The configured source a task belongs to; None when it is no longer configured."""
        return next((s for s in self._sources() if s.kind == task.source and s.owns(task.id)), None)

    def find(self, key: object) -> Task | None:
        """The task a `<source>:<id>` names, as its source has it now (the last listing's
        task checked again, else looked up afresh for an API client that never listed);
        None when no source has it open."""
        parts = split_key(key)
        if parts is None:
            return None
        with self._lock:
            seen = self._seen.get(f"{parts[0]}:{parts[1]}")
        source = self.source_of(seen or Task(parts[0], parts[1], ""))
        if source is None:
            return None
        try:
            if seen is not None:  # asked again: it may have been ticked since the listing
                return source.current(seen)
            return next((t for t in source.tasks() if t.id == parts[1]), None)
        except SourceError:
            return None

    def offer(self, task: Task) -> Offer | None:
        """What the page may offer for a remembered task; None when its source is gone from
        the settings."""
        source = self.source_of(task)
        if source is None:
            return None
        return Offer(source.label, tuple(a for a in ACTIONS if a in source.actions))

    def offers(self, served: Iterable[tuple[str, Task | None]]) -> dict[str, Offer]:
        """For (commitment id, its task) pairs: what each task's source offers, by id (no
        I/O; the sources are built once for all of them)."""
        sources = list(self._sources())
        found = {}
        for cid, task in served:
            if task is None:
                continue
            source = next((s for s in sources if s.kind == task.source and s.owns(task.id)), None)
            if source is not None:
                found[cid] = Offer(source.label, tuple(a for a in ACTIONS if a in source.actions))
        return found

    def write_back(self, task: Task, action: str, text: str) -> str:
        """Record text with the task (action note or done); the sentence says what happened.
        SourceError (Gone, Conflict among them) when nothing could be written."""
        source = self.source_of(task)
        if source is None:
            raise Gone("That task's source is no longer in your settings.")
        if action not in source.actions:
            raise SourceError(f"{source.label} can't do that: {_offer(source.actions)}.")
        return source.write_back(task, text, done=action == DONE)


def _offer(actions: frozenset[str]) -> str:
    words = {NOTE: "add a note", DONE: "mark it done"}
    return " or ".join(words[a] for a in ACTIONS if a in actions) or "nothing"


def _wait_all(done: threading.Semaphore, count: int, deadline: float) -> None:
    end = time.monotonic() + deadline
    for _ in range(count):
        if not done.acquire(timeout=max(end - time.monotonic(), 0)):
            return


def doctor_lines(sources: Sequence[TaskSource]) -> list[str]:
    """`antidrift doctor`'s task section: each configured source and what it answers now."""
    if not sources:
        return ["task sources: none (ANTIDRIFT_TASKS)"]
    lines = ["task sources (ANTIDRIFT_TASKS):"]
    for source in sources:
        listing = Board(lambda source=source: [source]).listing()
        count = f"{source.label}: {len(listing.tasks)} open task(s) listed"
        lines.append(f"  {source.kind:12} {listing.problems[0] if listing.problems else count}")
    return lines
