"""A cancel scope also cuts short work that is no process (an HTTP request): what is
registered with stopping() is stopped by cancel(), never after its block is left."""

from __future__ import annotations

import threading

import pytest

from antidrift.process import CancelScope, RunCancelled


def test_cancel_calls_the_stop_of_the_work_in_progress():
    scope, stopped = CancelScope(), threading.Event()
    with scope.stopping(stopped.set):
        threading.Thread(target=scope.cancel).start()
        assert stopped.wait(5)


def test_a_stop_is_never_called_after_its_block_is_left():
    scope, calls = CancelScope(), []
    with scope.stopping(lambda: calls.append("stopped")):
        pass
    scope.cancel()
    assert calls == []


def test_an_already_cancelled_scope_refuses_to_begin():
    scope = CancelScope()
    scope.cancel()
    began = []
    with pytest.raises(RunCancelled), scope.stopping(lambda: None, name="ollama"):
        began.append(True)
    assert began == []


def test_one_failing_stop_does_not_spare_the_others():
    scope, stopped = CancelScope(), []

    def broken() -> None:
        raise OSError("already closed")

    with scope.stopping(broken), scope.stopping(lambda: stopped.append(True)):
        scope.cancel()
    assert stopped == [True] and scope.cancelled
