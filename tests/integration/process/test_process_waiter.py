"""The same subprocess-seam tests on a system without pidfd (macOS, Linux before 5.3), where
the seam waits for the CLI's exit in a thread: here os has no pidfd_open, as there."""

from __future__ import annotations

import time

import pytest
from test_process import *  # noqa: F403  (collect the same tests again, patched below)

from antidrift import process as process_module

_PIDFD_OPEN = getattr(process_module.os, "pidfd_open", None)


@pytest.fixture(autouse=True)
def _no_pidfd(monkeypatch):
    # The platform's condition itself, not a private switch: the seam must notice it alone.
    monkeypatch.delattr(process_module.os, "pidfd_open", raising=False)


def test_without_pidfd_a_run_still_notices_the_exit_at_once(write_cli):
    cli = write_cli("ok", "print('fine')\n")
    started = time.monotonic()
    assert process_module.run([str(cli)], "", timeout=30).stdout == "fine\n"
    assert time.monotonic() - started < 10  # not the 30 s timeout: the exit was seen


def test_linux_takes_the_pidfd_path(write_cli, monkeypatch):
    if _PIDFD_OPEN is None:
        pytest.skip("no os.pidfd_open here")
    monkeypatch.setattr(process_module.os, "pidfd_open", _PIDFD_OPEN, raising=False)
    waited = []
    real = process_module._wait_pidfd
    monkeypatch.setattr(process_module, "_wait_pidfd", lambda *a: (waited.append(1), real(*a))[1])
    monkeypatch.setattr(process_module, "_wait_exit", lambda *a: pytest.fail("waiter thread"))
    cli = write_cli("ok", "print('fine')\n")
    assert process_module.run([str(cli)], "", timeout=5).stdout == "fine\n"
    assert waited == [1]
