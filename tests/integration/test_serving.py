"""Running it the ways users will: the console script, gunicorn with the repo's config, flask run.

Each test starts a real process on an ephemeral port and checks what a user would see: the
page answers, there is exactly one worker, more are refused, SIGTERM ends it quickly and
takes a running coach CLI with it; `antidrift doctor` names every backend.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import websocket

from antidrift.ai import backends
from tests.support import procs
from tests.support.fake_cli import FakeCLI, path_with
from tests.support.server import REPO, RunningServer, free_port
from tests.support.timing import assert_within

BIN = Path(sys.executable).parent
ANTIDRIFT = BIN / "antidrift"
GUNICORN = BIN / "gunicorn"
FLASK = BIN / "flask"


children = procs.children


alive = procs.alive


def get_state(port: int) -> dict | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/state", timeout=2) as resp:
            return json.loads(resp.read())
    except (urllib.error.URLError, ConnectionError, OSError):
        return None


class Process:
    """A server command started in its own session; killed at teardown whatever happens."""

    def __init__(self, argv: list[str], env: dict[str, str], log: Path) -> None:
        self.log_path = log
        self._log = open(log, "wb")  # noqa: SIM115 - open for the life of the process
        self.proc = subprocess.Popen(
            argv,
            env=env,
            cwd=REPO,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_serving(self, port: int, timeout: float = 15.0) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"exited {self.proc.returncode}:\n{self.log()}")
            state = get_state(port)
            if state is not None:
                return state
            time.sleep(0.05)
        raise AssertionError(f"not serving after {timeout} s:\n{self.log()}")

    def terminate(self, timeout: float = 10.0) -> float:
        """SIGTERM; the seconds it took to exit."""
        began = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout)
        return time.monotonic() - began

    def cleanup(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(5)
        self._log.close()


@pytest.fixture
def run(tmp_path):
    started: list[Process] = []

    def start(argv: list[str], **env: str) -> Process:
        full_env = {
            **os.environ,
            "ANTIDRIFT_WINDOW_SOURCE": "off",
            "ANTIDRIFT_DATA_DIR": str(tmp_path / "data"),
            "PYTHONUNBUFFERED": "1",
            **env,
        }
        process = Process(argv, full_env, tmp_path / f"server-{len(started)}.log")
        started.append(process)
        return process

    yield start
    for process in started:
        process.cleanup()


def test_the_console_script_runs_gunicorn_with_exactly_one_gthread_worker(run, tmp_path):
    port = free_port()
    server = run([str(ANTIDRIFT), "serve", "--port", str(port), "--data-dir", str(tmp_path / "d")])
    assert server.wait_serving(port)["runtime_state"] == "locked"
    workers = children(server.proc.pid)
    assert len(workers) == 1, workers
    log = server.log()
    assert "Starting gunicorn" in log and "Using worker: antidrift.server.httpworker.Worker" in log
    assert f"Booting worker with pid: {workers[0]}" in log
    assert f"127.0.0.1:{port}" in log  # loopback by default
    assert "[WARNING]" not in log  # a quiet start: gunicorn has nothing to warn about
    assert (tmp_path / "d" / "antidrift.sqlite3").exists()  # --data-dir is honoured
    assert server.terminate() < 5
    assert server.proc.returncode == 0


def test_antidrift_alone_serves_too(run):
    port = free_port()
    server = run([str(ANTIDRIFT), "--port", str(port)])
    assert server.wait_serving(port)["runtime_state"] == "locked"
    assert len(children(server.proc.pid)) == 1


def test_gunicorn_with_the_repo_config_serves_the_app_with_one_worker(run):
    port = free_port()
    server = run(
        [str(GUNICORN), "-c", "gunicorn.conf.py", "antidrift:create_app()"],
        ANTIDRIFT_PORT=str(port),
    )
    server.wait_serving(port)
    assert len(children(server.proc.pid)) == 1
    assert "Using worker: antidrift.server.httpworker.Worker" in server.log()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as resp:
        assert resp.status == 200 and b'id="view"' in resp.read()
    assert server.terminate() < 5


@pytest.mark.parametrize("flag", [["-w", "2"], ["--workers", "3"]])
def test_gunicorn_refuses_more_than_one_worker(run, flag):
    port = free_port()
    server = run(
        [str(GUNICORN), "-c", "gunicorn.conf.py", *flag, "antidrift:create_app()"],
        ANTIDRIFT_PORT=str(port),
    )
    assert server.proc.wait(15) != 0
    assert "exactly one worker" in server.log()
    assert get_state(port) is None


def test_flask_run_serves_the_state_for_development(run):
    port = free_port()
    server = run([str(FLASK), "--app", "antidrift", "run", "--port", str(port)])
    assert server.wait_serving(port)["runtime_state"] == "locked"
    server.terminate()


def test_sigterm_exits_within_seconds_kills_the_coach_cli_and_closes_sockets_with_1012(
    tmp_path,
):
    cli = FakeCLI(tmp_path / "bin")
    pidfile = tmp_path / "cli.pid"
    cli.configure(delay=30, pidfile=str(pidfile))
    server = RunningServer(tmp_path / "data", env={"PATH": path_with(cli.folder)}).start()
    try:
        assert server.post("/planning")[0] == 200
        page = websocket.create_connection(f"{server.ws_base}/ws", timeout=5)
        page.recv()  # the view
        assert server.post("/coach", {"intent": "the report"})[0] == 200
        deadline = time.monotonic() + 10
        while not (pidfile.exists() and pidfile.read_text().strip()):
            assert time.monotonic() < deadline, "the fake claude never started"
            time.sleep(0.02)
        cli_pid = int(pidfile.read_text().split()[0])
        assert alive(cli_pid)
        began = time.monotonic()
        assert server.stop(timeout=10) is not None, "SIGTERM did not stop the server"
        # A page that never answers the close frame (this one reads nothing) costs gunicorn's
        # 2 s keep-alive linger, no more: its reader thread must not hold the exit.
        assert_within(time.monotonic() - began, 4, "the exit")
        deadline = time.monotonic() + 3
        while alive(cli_pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not alive(cli_pid), "the coach CLI outlived the server"
        page.settimeout(5)
        code = None
        with contextlib.suppress(websocket.WebSocketException, OSError):
            while True:
                frame = page.recv_data_frame(True)[1]
                if frame.opcode == websocket.ABNF.OPCODE_CLOSE:
                    code = int.from_bytes(frame.data[:2], "big")
                    break
        assert code == 1012  # htmx's extension reconnects on 1012
    finally:
        server.kill()
        with contextlib.suppress(OSError, ValueError):
            if pidfile.exists():
                for line in pidfile.read_text().split():
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(int(line), signal.SIGKILL)


def test_doctor_prints_each_backend(tmp_path):
    cli = FakeCLI(tmp_path / "bin")
    cli.configure(answer="2.1.197 (Claude Code)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTIDRIFT_")}
    env["PATH"] = path_with(cli.folder)
    result = subprocess.run(
        [str(ANTIDRIFT), "doctor"], env=env, capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stderr
    coach = result.stdout.split("\n\n")[0]  # the evidence section follows a blank line
    lines = {line.split()[0]: line for line in coach.splitlines()[1:] if line.strip()}
    assert set(lines) == set(backends.names())  # every registered backend, none listed twice
    assert str(cli.path) in lines["claude"] and "2.1.197" in lines["claude"]
    codex = shutil.which("codex", path=env["PATH"])
    assert (codex in lines["codex"]) if codex else ("not found on PATH" in lines["codex"])
    assert "ANTIDRIFT_AI_COMMAND" in lines["command"]
    assert result.stdout.splitlines()[0] == "ANTIDRIFT_AI_BACKEND=claude"
    assert "ANTIDRIFT_WINDOW_SOURCE=auto" in result.stdout.split("\n\n")[1]

    env["ANTIDRIFT_AI_COMMAND"] = "claude --model x"
    env["ANTIDRIFT_AI_BACKEND"] = "command"
    result = subprocess.run(
        [str(ANTIDRIFT), "doctor"], env=env, capture_output=True, text=True, timeout=30
    )
    coach = result.stdout.split("\n\n")[0]  # the evidence section follows a blank line
    lines = {line.split()[0]: line for line in coach.splitlines()[1:] if line.strip()}
    assert str(cli.path) in lines["command"]
    assert result.stdout.splitlines()[0] == "ANTIDRIFT_AI_BACKEND=command"
