"""The same subprocess-seam tests through the fallback that waits for the CLI's exit in a thread
(macOS, Linux before 5.3), since on Linux the pidfd path is the one the other file takes."""

from __future__ import annotations

import pytest
from test_process import *  # noqa: F403  (collect the same tests again, patched below)

from antidrift import process as process_module

_open_pidfd = process_module._open_pidfd


@pytest.fixture(autouse=True)
def _no_pidfd(monkeypatch):
    monkeypatch.setattr(process_module, "_open_pidfd", lambda proc: None)


def test_the_fallback_is_the_path_taken(write_cli, monkeypatch):
    seen = []
    real = process_module._wait_exit
    monkeypatch.setattr(process_module, "_wait_exit", lambda *a: (seen.append(1), real(*a))[1])
    cli = write_cli("ok", "print('fine')\n")
    assert process_module.run([str(cli)], "", timeout=5).stdout == "fine\n"
    assert seen == [1]


def test_linux_takes_the_pidfd_path(write_cli, monkeypatch):
    if not hasattr(process_module.os, "pidfd_open"):
        pytest.skip("no os.pidfd_open here")
    monkeypatch.setattr(process_module, "_open_pidfd", _open_pidfd)  # not the fallback here
    waited = []
    real = process_module._wait_pidfd
    monkeypatch.setattr(process_module, "_wait_pidfd", lambda *a: (waited.append(1), real(*a))[1])
    monkeypatch.setattr(process_module, "_wait_exit", lambda *a: pytest.fail("waiter thread"))
    cli = write_cli("ok", "print('fine')\n")
    assert process_module.run([str(cli)], "", timeout=5).stdout == "fine\n"
    assert waited == [1]
