"""The one transition routine (session/unit_of_work.py): the listeners hear of a change once,
after the commit and the lock, after the work that waited for it; nothing changed, nothing
said; a refusal or a failed commit rolls back and puts memory back; and no part of the
session takes a lock or tells the listeners by hand."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from antidrift.session.unit_of_work import UnitOfWork

PACKAGE = Path(__file__).resolve().parents[2] / "antidrift"


def recording(changes=None) -> tuple[UnitOfWork, list[str]]:
    work, heard = UnitOfWork(changes), []
    work.subscribe(lambda: heard.append("listeners"))
    return work, heard


def test_a_change_is_announced_once_after_the_lock_and_after_the_waiting_work():
    work, heard = recording()
    held: list[bool] = []

    def free() -> bool:  # from another thread: can it take the lock now?
        got = []

        def probe() -> None:
            got.append(work._lock.acquire(blocking=False))
            if got[0]:
                work._lock.release()

        t = threading.Thread(target=probe)
        t.start()
        t.join()
        return got[0]

    work.subscribe(lambda: held.append(free()))
    with work:
        work.changed()
        work.then(lambda: heard.append("then"))
        work.changed()
        assert heard == []
    assert heard == ["then", "listeners"]
    assert held == [True]
    assert work.version == 2


def test_nothing_changed_nothing_is_announced():
    work, heard = recording()
    with work:
        pass
    assert heard == [] and work.version == 0


def test_a_block_inside_another_joins_it():
    work, heard = recording()
    with work:
        with work:
            work.changed()
            work.then(lambda: heard.append("inner then"))
        assert heard == []  # the outer block still holds the lock
        work.changed()
    assert heard == ["inner then", "listeners"]


class _Part:
    """A part of the session in memory, kept by the unit of work."""

    def __init__(self) -> None:
        self.value = "before"

    def memento(self) -> object:
        return self.value

    def restore(self, memento: object) -> None:
        self.value = memento


class _Changes:
    """The store's side of a change, as a list of what happened to it."""

    def __init__(self, fail_commit: bool = False) -> None:
        self.said: list[str] = []
        self.fail_commit = fail_commit

    def open_change(self) -> None:
        self.said.append("open")

    def commit_change(self) -> None:
        self.said.append("commit")
        if self.fail_commit:
            raise ValueError("the commit failed")

    def rollback_change(self) -> None:
        self.said.append("rollback")


def test_a_refusal_rolls_back_puts_memory_back_and_announces_nothing():
    changes, part = _Changes(), _Part()
    work, heard = recording(changes)
    work.keep(part)
    with pytest.raises(ValueError), work:
        work.then(lambda: heard.append("then"))
        raise ValueError("refused")
    assert heard == [] and changes.said == ["open", "rollback"]
    with pytest.raises(ValueError), work:
        part.value = "changed"
        work.changed()
        work.then(lambda: heard.append("then"))
        raise ValueError("failed after a change")
    assert heard == [] and part.value == "before" and work.version == 0
    assert changes.said[-2:] == ["open", "rollback"]


def test_a_failed_commit_is_a_rollback_too():
    changes, part = _Changes(fail_commit=True), _Part()
    work, heard = recording(changes)
    work.keep(part)
    with pytest.raises(ValueError, match="the commit failed"), work:
        part.value = "changed"
        work.changed()
        work.then(lambda: heard.append("then"))
    assert heard == [] and part.value == "before" and work.version == 0
    assert changes.said == ["open", "commit"]  # the store rolled back inside its commit
    changes.fail_commit = False
    with work:  # the lock was given back
        pass


def test_a_committed_change_keeps_its_memory_and_then_announces():
    changes, part = _Changes(), _Part()
    work, heard = recording(changes)
    work.keep(part)
    with work:
        part.value = "changed"
        work.changed()
        work.then(lambda: heard.append("then"))
    assert heard == ["then", "listeners"] and part.value == "changed"
    assert changes.said == ["open", "commit"]


def test_a_broken_listener_does_not_keep_the_others_from_hearing():
    work, heard = recording()

    def broken() -> None:
        raise RuntimeError("broken")

    work.subscribe(broken)
    work.subscribe(lambda: heard.append("after the broken one"))
    with work:
        work.changed()
    assert heard == ["listeners", "after the broken one"]


HAND_ROLLED = re.compile(r"with self\._lock\b|\bRLock\(|self\._notify\(\)|self\._changed\(\)")


def test_no_part_of_the_session_or_the_drift_guard_copies_the_routine_by_hand():
    modules = [*(PACKAGE / "session").glob("*.py"), *(PACKAGE / "drift").glob("*.py")]
    copied = {
        p.relative_to(PACKAGE).as_posix(): HAND_ROLLED.findall(p.read_text())
        for p in modules
        if p.name != "unit_of_work.py"
    }
    assert {k: v for k, v in copied.items() if v} == {}, "go through `with work:`"
    assert HAND_ROLLED.findall("        with self._lock:\n            self._changed()\n")
