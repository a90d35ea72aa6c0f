"""The seam never signals a process group whose leader it has reaped: once reaped, the pid
(and with it the group id) may belong to another program of the user's.

The window is made certain, not raced: Popen.wait is wrapped so that, the moment a child has
been reaped, the test cancels its scope and calls kill_all_running() (what a Cancel click or
server shutdown would do at that moment), and os.killpg is watched for a reaped pid."""

from __future__ import annotations

import os
import subprocess
import threading

import pytest

from antidrift import process
from antidrift.process import CancelScope, RunCancelled, kill_all_running
from antidrift.process.warm import start


class ReapWatch:
    """Runs `between` right after each reap; records every killpg of a reaped pid."""

    def __init__(self, monkeypatch) -> None:
        self.reaped: set[int] = set()
        self.signalled_after_reap: list[int] = []
        self.between: list = []
        real_wait, real_killpg = subprocess.Popen.wait, os.killpg

        def wait(proc, *args, **kwargs):
            code = real_wait(proc, *args, **kwargs)
            if proc.pid not in self.reaped:
                self.reaped.add(proc.pid)
                for action in self.between:
                    action()
            return code

        def killpg(pgid, sig):
            if pgid in self.reaped:
                self.signalled_after_reap.append(pgid)
                return  # never let the test itself signal a pid that may be reused
            real_killpg(pgid, sig)

        monkeypatch.setattr(subprocess.Popen, "wait", wait)
        monkeypatch.setattr(os, "killpg", killpg)


@pytest.fixture
def watch(monkeypatch) -> ReapWatch:
    return ReapWatch(monkeypatch)


def test_a_cancel_or_shutdown_right_after_a_run_reaps_signals_nothing(write_cli, watch):
    scope = CancelScope()
    watch.between += [scope.cancel, kill_all_running]
    cli = write_cli("quick", "print('done')\n")
    with pytest.raises(RunCancelled):  # cancelled before the call returned: the caller's word
        process.run([str(cli)], "", timeout=10, scope=scope)
    assert len(watch.reaped) == 1  # the hook ran: the window was entered
    assert watch.signalled_after_reap == []
    assert process._running == {}


def test_a_timed_out_run_is_not_signalled_after_its_reaping(write_cli, watch):
    scope = CancelScope()
    watch.between += [scope.cancel, kill_all_running]
    cli = write_cli("slow", "time.sleep(30)\n")
    with pytest.raises(RunCancelled):  # timed out, then cancelled before the call returned
        process.run([str(cli)], "", timeout=0.2, scope=scope)
    assert len(watch.reaped) == 1
    assert watch.signalled_after_reap == []


def test_a_warm_process_stopped_then_cancelled_or_shut_down_signals_nothing(write_cli, watch):
    cli = write_cli("echo", "for line in sys.stdin:\n    print(line, end='', flush=True)\n")
    kept = start([str(cli)], name="echo")
    scope = CancelScope()
    done = threading.Event()

    def answer_then_stop(line: bytes) -> bool:
        kept.stop()  # a failure mid-exchange stops it while the scope is still attached
        done.set()
        return True

    watch.between += [scope.cancel, kill_all_running]
    assert kept.exchange(b"hi\n", done=answer_then_stop, timeout=10, scope=scope) == [b"hi\n"]
    assert done.is_set() and len(watch.reaped) == 1
    assert watch.signalled_after_reap == []
    assert process._running == {}


def test_a_reaped_child_is_never_signalled_by_its_own_readers(write_cli, watch):
    cli = write_cli("quick", "print('x')\n")
    proc, child = process._spawn([str(cli)], None, None, None, "quick")
    child.reap()
    child.kill_group()  # what an overflowing reader or a late kill would do
    assert proc.returncode == 0
    assert watch.signalled_after_reap == []
