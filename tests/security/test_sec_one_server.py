"""One server per data directory, and a taken port: a second start is one line and a non-zero
exit, and the first server and its database carry on untouched. Real processes throughout."""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import procs
from tests.support.plans import PLAN
from tests.support.server import REPO, RunningServer, free_port
from tests.support.timing import assert_within

BIN = Path(sys.executable).parent


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "ANTIDRIFT_WINDOW_SOURCE": "off", **extra}


def _run(argv: list[str], env: dict[str, str], timeout: float = 20) -> tuple[int, str, float]:
    began = time.monotonic()
    done = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)
    return done.returncode, done.stdout + done.stderr, time.monotonic() - began


def _serve(data_dir: Path, port: int) -> tuple[int, str, float]:
    argv = [sys.executable, "-m", "antidrift", "serve", "--port", str(port)]
    return _run([*argv, "--data-dir", str(data_dir), "--threads", "8"], _env())


def _digest(data_dir: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(data_dir.glob("antidrift.sqlite3*"))
    }


def _one_line(out: str) -> str:
    lines = [ln for ln in out.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in out, out
    return lines[0]


def test_a_second_serve_on_the_same_data_directory_says_already_running(tmp_path):
    data = tmp_path / "data"
    first = RunningServer(data).start()
    try:
        first.post("/planning")
        assert first.post("/commitment", PLAN)[0] == 200
        before_state, before_files = first.get("/state"), _digest(data)

        code, out, took = _serve(data, free_port())

        assert code != 0
        assert_within(took, 5, "the refusal")
        line = _one_line(out)
        assert "already running" in line and first.base in line, line
        assert first.get("/state") == before_state  # the first server is untouched
        assert _digest(data) == before_files  # and so is the database
    finally:
        first.kill()  # kill -9: the kernel drops the lock, nothing stale is left
    again = RunningServer(data).start()
    try:
        assert again.get("/state")["commitment"]["id"] == before_state["commitment"]["id"]
    finally:
        again.stop()


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[RunningServer]:
    """A server holding its data directory, for the entry points that must be turned away
    (each leaves it as it was)."""
    first = RunningServer(tmp_path_factory.mktemp("served") / "data").start()
    yield first
    first.stop()


def test_gunicorn_with_the_repo_config_is_turned_away_too(served):
    first = served
    env = _env(ANTIDRIFT_DATA_DIR=str(first.data_dir), ANTIDRIFT_PORT=str(free_port()))
    code, out, took = _run(
        [str(BIN / "gunicorn"), "-c", "gunicorn.conf.py", "antidrift:create_app()"], env
    )
    assert code != 0, out
    assert_within(took, 5, "the refusal")
    assert "already running" in out and first.base in out, out
    assert first.get("/state")["runtime_state"] == "locked"


def test_flask_run_on_a_served_data_directory_does_not_start(served):
    env = _env(ANTIDRIFT_DATA_DIR=str(served.data_dir))
    argv = [str(BIN / "flask"), "--app", "antidrift", "run", "--port", str(free_port())]
    code, out, _ = _run(argv, env)
    assert code != 0 and "already running" in out, out
    assert "Traceback" not in out, out  # a sentence, not a stack
    assert served.get("/state")["runtime_state"] == "locked"


def test_a_port_in_use_is_one_line_naming_the_port_and_the_flag(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, took = _serve(tmp_path / "data", port)
    assert code != 0, out
    assert_within(took, 3, "the refusal")
    line = _one_line(out)
    assert str(port) in line and "--port" in line and "in use" in line, line


def test_after_kill_9_of_the_master_alone_a_new_server_starts_once_its_worker_is_gone(tmp_path):
    """The orphaned worker holds the inherited lock until it notices, within about a second:
    the recorded holder is dead, so the new server waits for it instead of refusing."""
    data = tmp_path / "data"
    first = RunningServer(data).start()
    workers = procs.children(first.proc.pid)
    os.kill(first.proc.pid, signal.SIGKILL)
    first.proc.wait(5)
    again = RunningServer(data, log_path=tmp_path / "again.log").start()
    try:
        assert again.get("/state")["runtime_state"] == "locked"
        # The orphan let go of the lock on its way out; it is gone moments later.
        assert all(procs.wait_dead(w, within=5) for w in workers)
    finally:
        again.stop()
        first.kill()


def test_gunicorn_with_the_repo_config_names_a_taken_port_at_once(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = _env(ANTIDRIFT_DATA_DIR=str(tmp_path / "data"), ANTIDRIFT_PORT=str(port))
        code, out, took = _run(
            [str(BIN / "gunicorn"), "-c", "gunicorn.conf.py", "antidrift:create_app()"], env
        )
    assert code != 0, out
    assert_within(took, 3, "the refusal")
    assert f"Port {port}" in out and "--port" in out and "Can't connect" not in out, out
