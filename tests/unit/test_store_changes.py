"""The store's change (store/changes.py): no write outside one, its transaction begun at its
first write, committed or rolled back whole, and invisible to every other reader until then."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from antidrift.core.domain import Commitment, RuntimeState
from antidrift.core.errors import OutsideChange, WriteFailed
from antidrift.store.sqlite import SQLiteStore
from tests.fakes import START
from tests.support.changes import FailingWrites
from tests.support.store import change

C = Commitment("c-1", "Write", "Done", 600, START, START + timedelta(minutes=10))


@pytest.fixture
def store(tmp_path):
    made = SQLiteStore(tmp_path / "antidrift.sqlite3")
    yield made
    made.close()


def test_a_write_outside_a_change_is_a_bug_and_writes_nothing(store):
    with pytest.raises(OutsideChange):
        store.save(RuntimeState.ACTIVE, C)
    assert store.load().commitment is None


def test_the_transaction_begins_at_the_first_write_not_at_the_change(store):
    store.open_change()
    try:
        store.load()
        assert not store._writer.in_transaction  # a change that only reads takes no lock
        store.save(RuntimeState.ACTIVE, C)
        assert store._writer.in_transaction
    finally:
        store.rollback_change()
    assert store.load().commitment is None


def test_another_thread_never_sees_a_change_before_its_commit(store):
    seen = []

    def read() -> None:
        seen.append(store.load().commitment)

    with change(store):
        store.save(RuntimeState.ACTIVE, C)
        assert store.load().commitment == C  # the change's own thread sees its writes
        reader = threading.Thread(target=read)
        reader.start()
        reader.join(5)
    assert seen == [None]
    read()
    assert seen == [None, C]


def test_a_failed_write_that_was_caught_still_fails_the_whole_change(store):
    """A part that catches a failed write and goes on (as a log-and-continue would) cannot
    commit what was written before it, nor write on in autocommit after it."""
    writes = FailingWrites(store._writer._db)
    store._writer._db = writes
    store.open_change()
    store.save(RuntimeState.PLANNING, None)  # write 1 (and BEGIN)
    writes.count, writes.fail_at = 0, 1
    with pytest.raises(WriteFailed):
        store.save_rhythm('{"closure": "x"}')
    writes.fail_at = None
    with pytest.raises(WriteFailed):  # it goes on writing: refused, not committed alone
        store.save_draft('{"intent": "y"}')
    with pytest.raises(WriteFailed):
        store.commit_change()
    assert store.load().state is RuntimeState.LOCKED
    assert store.load_rhythm() is None and store.load_draft() is None
    with change(store):  # the next change starts clean
        store.save(RuntimeState.PLANNING, None)
    assert store.load().state is RuntimeState.PLANNING
