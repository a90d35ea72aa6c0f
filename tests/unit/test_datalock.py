"""datalock: one server per data directory, an flock the kernel drops with its last holder.

Real locks between real processes (a small Python holder started here), each case well under
a second; the servers' refusal around it: tests/security/test_sec_one_server.py."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from antidrift.store import datalock
from antidrift.store.datalock import LOCK_NAME, AlreadyRunning
from tests.support.procs import wait_dead
from tests.support.timing import assert_within

URL = "http://127.0.0.1:7717/"


class Holder:
    """Another server holding the lock as datalock does (an flock, then "pid N" and "url U"
    in the file), in a bare Python that starts in milliseconds. It prints "held" once it has
    the lock, or "busy" if it could not take it, then waits for its stdin to close."""

    def __init__(self, directory: Path, *, url: str | None = URL, child_keeps: float = 0) -> None:
        # child_keeps: a child inherits the descriptor and outlives the holder by that long
        # (a gunicorn worker after `kill -9` of its master).
        describe = "pid {os.getpid()}\n" + (f"url {url}\n" if url else "")
        script = textwrap.dedent(f"""
            import fcntl, os, sys, time
            os.makedirs({str(directory)!r}, exist_ok=True)
            fd = os.open({str(directory / LOCK_NAME)!r}, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                print("busy", flush=True)
                sys.exit(1)
            os.ftruncate(fd, 0)
            os.pwrite(fd, f{describe!r}.encode(), 0)
            child = os.fork() if {child_keeps!r} else None
            if child == 0:
                time.sleep({child_keeps!r})
                os._exit(0)
            print("held", child or "", flush=True)
            sys.stdin.read()
        """)
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-c", script],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.answer, _, child = self.proc.stdout.readline().strip().partition(" ")
        self.child = int(child) if child else None  # the descriptor's other holder

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(5)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.kill()
        self.proc.stdin.close()
        self.proc.stdout.close()


@pytest.fixture
def holders():
    made: list[Holder] = []

    def make(directory: Path, *, expect: str = "held", **kwargs) -> Holder:
        holder = Holder(directory, **kwargs)
        made.append(holder)
        assert holder.answer == expect
        return holder

    yield make
    for holder in made:
        holder.close()


@pytest.fixture
def data(tmp_path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def released():
    """Locks this test took, released at the end (the process outlives the test)."""
    taken: list[datalock.DataDirLock] = []
    yield taken
    for lock in taken:
        lock.release()


def test_the_lock_makes_the_directory_and_says_who_holds_it(data, released):
    lock = datalock.acquire(data, url=URL)
    released.append(lock)
    text = (data / LOCK_NAME).read_text()
    assert text == f"pid {os.getpid()}\nurl {URL}\n"


def test_a_second_process_is_refused_with_the_first_ones_page_and_pid(data, holders):
    first = holders(data)
    began = time.monotonic()
    with pytest.raises(AlreadyRunning) as err:
        datalock.acquire(data)
    assert_within(time.monotonic() - began, 1, "the refusal of a live holder")
    message = str(err.value)
    assert f"already running on the data directory {data}" in message
    assert f"at {URL} (pid {first.proc.pid})" in message
    assert "--data-dir" in message


def test_a_holder_without_a_page_is_named_by_its_pid_alone(data, holders):
    first = holders(data, url=None)
    with pytest.raises(AlreadyRunning) as err:
        datalock.acquire(data)
    assert f"{data} (pid {first.proc.pid})." in str(err.value)


def test_a_killed_holder_leaves_no_stale_lock(data, holders, released):
    holders(data).kill()  # kill -9: no chance to clean up; the kernel drops the flock
    released.append(datalock.acquire(data, url=URL))


def test_a_held_lock_keeps_others_out_and_release_lets_them_in(data, holders):
    lock = datalock.acquire(data)
    holders(data, expect="busy")
    lock.release()
    holders(data)


def test_an_orphan_of_a_killed_holder_is_waited_for_within_the_grace(data, holders, released):
    holder = holders(data, child_keeps=0.5)
    holder.kill()  # the master is gone; its child still holds the descriptor for 0.5 s
    began = time.monotonic()
    released.append(datalock.acquire(data))
    assert_within(time.monotonic() - began, datalock.ORPHAN_GRACE, "the wait for the orphan")


def test_an_orphan_that_stays_past_the_grace_is_refused(data, holders, monkeypatch):
    monkeypatch.setattr(datalock, "ORPHAN_GRACE", 0.2)
    holder = holders(data, child_keeps=30)
    holder.kill()
    with pytest.raises(AlreadyRunning):
        datalock.acquire(data)
    os.kill(holder.child, signal.SIGKILL)
    wait_dead(holder.child)


def test_taking_a_held_lock_again_keeps_it_and_updates_the_page(data, holders, released):
    first = datalock.acquire(data, url=URL)
    released.append(first)
    again = datalock.acquire(data, url="http://127.0.0.1:7718/")
    released.append(again)
    assert (data / LOCK_NAME).read_text().endswith("url http://127.0.0.1:7718/\n")
    again.release()  # one of this process's holds let go: the lock is still held
    holders(data, expect="busy")
    first.release()
    holders(data)


def test_a_forked_child_finds_the_lock_it_inherited(data, holders, released):
    # A gunicorn worker: forked from the master that took the lock, it takes it too.
    released.append(datalock.acquire(data, url=URL))
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports by its exit status
        try:
            datalock.acquire(data).release()  # the child's copy only
            os._exit(0)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the child was refused its own lock"
    holders(data, expect="busy")  # the child's release did not free the parent's lock
