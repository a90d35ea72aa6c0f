"""A write the disk refuses while running: a real SQLite store hitting a real SQLITE_FULL
(`PRAGMA max_page_count` caps the file where it stands). The cause is named, nothing changes,
it is logged once however often the ticker retries, and saving resumes when space returns."""

from __future__ import annotations

import logging
import threading

import pytest

from antidrift.core.domain import RuntimeState
from antidrift.core.errors import WriteFailed
from antidrift.session.ticker import Ticker
from antidrift.store.sqlite import SQLiteStore
from tests.fakes import FakeClock, wait_until
from tests.support.session import build_controller
from tests.support.tmpfs import fill, small_tmpfs

ACTIVE, REVIEW = RuntimeState.ACTIVE, RuntimeState.REVIEW


def _fill(store: SQLiteStore) -> None:
    """No page may be added from now on: the next write that needs one gets SQLITE_FULL."""
    pages = store._writer.execute("PRAGMA page_count").fetchone()[0]
    store._writer.execute(f"PRAGMA max_page_count = {pages}")


def _free(store: SQLiteStore) -> None:
    store._writer.execute("PRAGMA max_page_count = 1073741823")


@pytest.fixture
def running(tmp_path):
    clock = FakeClock()
    store = SQLiteStore(tmp_path / "antidrift.sqlite3")
    controller = build_controller(store, clock)
    controller.enter_planning()
    c = controller.start_manual_commitment("Write the intro", "Intro done", 5)
    yield store, controller, clock, c
    controller.shutdown()
    store.close()


def _store_errors(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_a_full_disk_is_named_changes_nothing_and_is_logged_once(running, tmp_path, caplog):
    store, controller, _, c = running
    # Enough samples that the commitment's next save needs a new page.
    for i in range(200):
        controller.record_window("code", f"main.py {i} " + "x" * 200)
    _fill(store)
    caplog.set_level(logging.INFO)
    for _ in range(3):
        with pytest.raises(WriteFailed) as failed:
            for i in range(50):  # until a sample needs a page
                controller.record_window("code", f"more {i} " + "y" * 400)
        assert failed.value.message.startswith("the disk is full")
        assert str(tmp_path) in failed.value.message
        assert "cannot rollback" not in failed.value.message
    errors = _store_errors(caplog)
    assert len(errors) == 1 and "the disk is full" in errors[0].getMessage()
    assert controller.snapshot().state is ACTIVE
    assert SQLiteStore(tmp_path / "antidrift.sqlite3").load().commitment.id == c.id


def test_past_the_deadline_the_ticker_retries_quietly_until_it_can_save(tmp_path, caplog):
    """A real full disk (tmpfs): the move to review cannot be saved, tick after tick."""
    with small_tmpfs(tmp_path / "disk") as disk:
        clock = FakeClock()
        store = SQLiteStore(disk / "antidrift.sqlite3")
        controller = build_controller(store, clock)
        ticks, many = [], threading.Event()

        def tick() -> bool:  # the ticker's call, counted
            try:
                return controller.expire_if_due()
            finally:
                ticks.append(1)
                if len(ticks) >= 25:
                    many.set()

        ticker = Ticker(tick, interval=0.02)
        try:
            controller.enter_planning()
            c = controller.start_manual_commitment("Write the intro", "Intro done", 5)
            filler = fill(disk)
            caplog.set_level(logging.INFO)
            clock.set(c.deadline)
            ticker.start()
            assert many.wait(10), "the ticker stopped"  # 25 ticks, each failing to save
            assert controller.snapshot().state is ACTIVE
            errors = [r.getMessage() for r in _store_errors(caplog)]
            assert len(errors) == 1 and "the disk is full" in errors[0], errors
            assert not any("cannot rollback" in r.getMessage() for r in caplog.records)
            filler.unlink()
            wait_until(lambda: controller.snapshot().state is REVIEW, message="never saved")
            assert controller.snapshot().commitment.ended_at == c.deadline
            assert any("saves again" in r.getMessage() for r in caplog.records)
        finally:
            ticker.stop()
            controller.shutdown()
            store.close()


def test_a_server_starting_on_a_full_disk_past_a_deadline_starts_and_saves_later(tmp_path):
    with small_tmpfs(tmp_path / "disk") as disk:
        clock = FakeClock()
        store = SQLiteStore(disk / "antidrift.sqlite3")
        first = build_controller(store, clock)
        first.enter_planning()
        c = first.start_manual_commitment("Write the intro", "Intro done", 5)
        first.shutdown()
        store.close()
        clock.set(c.deadline)  # down past the deadline
        store = SQLiteStore(disk / "antidrift.sqlite3")
        filler = fill(disk)
        second = build_controller(store, clock)
        second.start()  # the move to review cannot be saved: no crash
        try:
            assert second.snapshot().state is ACTIVE
            filler.unlink()
            assert second.expire_if_due()
            assert second.snapshot().commitment.ended_at == c.deadline
        finally:
            second.shutdown()
            store.close()
