"""Release 0.3's settings, given bad values: `antidrift serve` either refuses in one line with a
non-zero exit (a value it cannot run with) or starts and says what it ignored in one logged
warning. Never a traceback, never a worker that fails to boot."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes import wait_until
from tests.support.server import REPO, free_port

REFUSED = [
    ("ANTIDRIFT_DRIFT_MAX_CALLS", "0"),
    ("ANTIDRIFT_DRIFT_MAX_CALLS", "-1"),
    ("ANTIDRIFT_DRIFT_MAX_CALLS", "1.5"),
    ("ANTIDRIFT_DRIFT_MAX_CALLS", "99999999999999999999"),
    ("ANTIDRIFT_DRIFT_MAX_CALLS", "\u00b2"),  # a digit to str.isdigit, not to int()
    ("ANTIDRIFT_DRIFT_MAX_CALLS", "\u0663"),  # Arabic-Indic three
    ("ANTIDRIFT_DRIFT_GRACE", "nan"),
    ("ANTIDRIFT_DRIFT_GRACE", "inf"),
    ("ANTIDRIFT_DRIFT_GRACE", "-1"),
    ("ANTIDRIFT_DRIFT_GRACE", "1e400"),
    ("ANTIDRIFT_DRIFT_GRACE", "a minute"),
    ("ANTIDRIFT_DRIFT_COOLDOWN", "86401"),
    ("ANTIDRIFT_DRIFT_COOLDOWN", "NaN"),
    ("ANTIDRIFT_WINDOW_SOURCE", "wayland"),
    ("ANTIDRIFT_WINDOW_SOURCE", "x11;off"),
    ("ANTIDRIFT_AW_URL", "file:///etc/passwd"),
    ("ANTIDRIFT_AW_URL", "ftp://127.0.0.1:5600"),
    ("ANTIDRIFT_AW_URL", "http://[::1"),
    ("ANTIDRIFT_AW_URL", "http://127.0.0.1:99999"),
    ("ANTIDRIFT_AW_URL", "http://127.0.0.1:5600?x=1"),
    ("ANTIDRIFT_AW_URL", "http://aw server:5600"),  # http.client refuses it at the first read
    ("ANTIDRIFT_AW_URL", "http://127.0.0.1:5600/a\tb"),
    ("ANTIDRIFT_AW_URL", "http://me:secret@127.0.0.1:5600"),  # would reach the log
    ("ANTIDRIFT_SAMPLE_INTERVAL", "0.001"),  # a probe process every millisecond
    ("ANTIDRIFT_SAMPLE_INTERVAL", "nan"),
    ("ANTIDRIFT_AW_URL", "http://10.1.2.3:5600"),  # off this machine: never contacted
    ("ANTIDRIFT_AW_URL", "http://aw.example.net:5600"),
    ("ANTIDRIFT_BACKUPS", "-1"),
    ("ANTIDRIFT_BACKUPS", "366"),
    ("ANTIDRIFT_BACKUPS", "seven"),
]


def _serve(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "antidrift.serve", "serve", "--data-dir", str(tmp_path / "d")]
        + ["--port", str(free_port()), "--threads", "8"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **env},
    )


@pytest.mark.parametrize(("name", "value"), REFUSED)
def test_an_unusable_value_is_one_line_and_a_non_zero_exit(tmp_path, name, value):
    result = _serve(tmp_path, {"ANTIDRIFT_WINDOW_SOURCE": "auto", name: value})
    out = result.stdout + result.stderr
    assert result.returncode != 0, out
    assert "Traceback" not in out and "gunicorn" not in out.lower(), out
    lines = [ln for ln in out.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("antidrift: "), out
    assert name in lines[0], lines[0]


# -- values that are ignored with a warning: the server runs ---------------------------------


@contextlib.contextmanager
def _not_http(greeting: bytes) -> Iterator[int]:
    """A loopback port that answers anything but HTTP (the wrong port in ANTIDRIFT_AW_URL)."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn, contextlib.suppress(OSError):
                conn.settimeout(1)
                conn.recv(4096)
                conn.sendall(greeting)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join(2)
        listener.close()


def _warned(server, *words: str) -> str:
    """The server answers; its log has a warning with every word and no traceback."""
    assert server.get("/state")["runtime_state"]  # it answers
    log = server.log()
    assert "Traceback" not in log and "Exception in worker" not in log, log
    found = [ln for ln in log.splitlines() if "WARNING" in ln and all(w in ln for w in words)]
    assert found or not words, (words, log)
    return found[0] if found else ""


GREETINGS = [
    b"SSH-2.0-OpenSSH_9.6\r\n",  # http.client: BadStatusLine
    b"HTTP/1.1 200 OK\r\n" + b"X: " + b"y" * 70000 + b"\r\n\r\n",  # LineTooLong
    b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n[",  # IncompleteRead
]


@pytest.mark.parametrize("greeting", GREETINGS, ids=["ssh", "long-header", "short-body"])
def test_an_aw_url_that_is_not_aw_server_is_a_warning_not_a_failed_boot(lab, greeting):
    with _not_http(greeting) as port:
        for source in ("auto", "activitywatch"):
            server = lab.start(
                env={
                    "ANTIDRIFT_WINDOW_SOURCE": source,
                    "ANTIDRIFT_AW_URL": f"http://127.0.0.1:{port}",
                    "ANTIDRIFT_SAMPLE_INTERVAL": "0.2",
                },
                data_dir=lab.root / f"data-{source}",
            )
            if source == "activitywatch":
                # The sampler meets the same answer while a commitment runs: one sentence.
                lab.sec.to_active(server)
                wait_until(
                    lambda s=server: "window probe activitywatch failed" in s.log(),
                    10,
                    0.1,
                    "the probe's failure in the log",
                )
                _warned(server, "activitywatch failed")
            else:
                _warned(server)  # it serves; whether a source was picked is logged either way
            server.stop()


def test_bad_notify_model_effort_and_drift_values_are_warnings(lab):
    argv_log = lab.root / "claude.argv"
    lab.fake.configure(log_argv=str(argv_log))
    cases = [
        ({"ANTIDRIFT_NOTIFY": "loud"}, ("ANTIDRIFT_NOTIFY", "loud")),
        (
            {"ANTIDRIFT_NOTIFY": "command", "ANTIDRIFT_NOTIFY_COMMAND": '"unbalanced'},
            ("ANTIDRIFT_NOTIFY_COMMAND",),
        ),
        ({"ANTIDRIFT_NOTIFY": "command", "ANTIDRIFT_NOTIFY_COMMAND": " "}, ("needs",)),
        ({"ANTIDRIFT_DRIFT": "maybe"}, ("ANTIDRIFT_DRIFT", "maybe")),
        ({"ANTIDRIFT_AI_EFFORT": "max"}, ("ANTIDRIFT_AI_EFFORT", "max")),
        ({"ANTIDRIFT_AI_WARM": "maybe"}, ("ANTIDRIFT_AI_WARM", "maybe")),
        ({"ANTIDRIFT_AI_MODEL": "--dangerously-skip-permissions"}, ("ANTIDRIFT_AI_MODEL",)),
        ({"ANTIDRIFT_AI_MODEL": "a model; rm -rf /"}, ("ANTIDRIFT_AI_MODEL",)),
    ]
    for index, (env, words) in enumerate(cases):
        server = lab.start(env=env, data_dir=lab.root / f"data-{index}")
        _warned(server, *words)
        if "ANTIDRIFT_AI_MODEL" in env:
            # The ignored value never reaches the CLI's argv: the default model goes instead.
            lab.sec.to_planning(server)
            assert server.post("/coach", {"intent": "plan the afternoon"})[0] == 200
            lab.sec.wait_coach(server, "ready")
            argv = json.loads(argv_log.read_text().splitlines()[-1])
            assert env["ANTIDRIFT_AI_MODEL"] not in argv, argv
            assert argv[argv.index("--model") + 1] == "haiku", argv
        server.stop()
