"""The one transition routine (session/unit_of_work.py): the listeners hear of a change once,
after the lock, after the work that waited for it; nothing changed, nothing said; and no part
of the session takes a lock or tells the listeners by hand."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from antidrift.session.unit_of_work import UnitOfWork

PACKAGE = Path(__file__).resolve().parents[2] / "antidrift"


def recording() -> tuple[UnitOfWork, list[str]]:
    work, heard = UnitOfWork(), []
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


def test_a_refusal_drops_the_waiting_work_but_a_change_before_it_is_announced():
    work, heard = recording()
    with pytest.raises(ValueError), work:
        work.then(lambda: heard.append("then"))
        raise ValueError("refused")
    assert heard == []
    with pytest.raises(ValueError), work:
        work.changed()
        work.then(lambda: heard.append("then"))
        raise ValueError("failed after a change")
    assert heard == ["listeners"]


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
