"""Settings given bad values: `antidrift serve`, gunicorn with the repo's config and `flask run`
refuse in one line naming the variable, the value and what is accepted, with a non-zero exit
within 3 s, before binding. An aw-server that is not one is a warning (the value is fine).
Never a traceback, never a worker that fails to boot."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes import wait_until
from tests.support.server import REPO, free_port
from tests.support.timing import assert_within

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
    # Release 0.4: every closed set and range refuses; none is a warning that runs on. One
    # value per variable here (a process each); tests/unit/test_settings.py has the variants.
    ("ANTIDRIFT_DRIFT", "of"),  # meant off: once kept the guard on and sent titles
    ("ANTIDRIFT_AI_BACKEND", "gpt"),
    ("ANTIDRIFT_AI_EFFORT", "max"),
    ("ANTIDRIFT_NOTIFY", "loud"),
    ("ANTIDRIFT_ENFORCE", "close"),
    ("ANTIDRIFT_ENFORCE_AFTER", "0"),
    ("ANTIDRIFT_BACKUPS", "-1"),
    ("ANTIDRIFT_PORT", "70000"),
    ("ANTIDRIFT_AI_TIMEOUT", "0"),
    ("ANTIDRIFT_AI_WARM", "maybe"),
    ("ANTIDRIFT_AI_ALLOW_REMOTE", "perhaps"),
    ("ANTIDRIFT_AI_MODEL", "--dangerously-skip-permissions"),  # would read as a flag
    ("ANTIDRIFT_AI_URL", "ftp://127.0.0.1:11434"),
    ("ANTIDRIFT_NOTIFY_COMMAND", '"unbalanced'),
    ("ANTIDRIFT_AI_COMMAND", '"unbalanced'),
    ("ANTIDRIFT_EVIDENCE_EXCLUDE", "bank("),
    ("ANTIDRIFT_TASKS", "jira"),
    ("ANTIDRIFT_AW_URL", "http://10.1.2.3:5600"),  # off this machine: titles would come from it
]
# Values fine alone and refused together: the line names both variables.
REFUSED_TOGETHER = [
    ({"ANTIDRIFT_AI_BACKEND": "ollama"}, ("ANTIDRIFT_AI_BACKEND=ollama", "ANTIDRIFT_AI_MODEL")),
    ({"ANTIDRIFT_AI_BACKEND": "openai"}, ("ANTIDRIFT_AI_BACKEND=openai", "ANTIDRIFT_AI_URL")),
    ({"ANTIDRIFT_AI_BACKEND": "command"}, ("ANTIDRIFT_AI_BACKEND=command", "ANTIDRIFT_AI_COMMAND")),
    ({"ANTIDRIFT_NOTIFY": "command"}, ("ANTIDRIFT_NOTIFY=command", "ANTIDRIFT_NOTIFY_COMMAND")),
    (
        {"ANTIDRIFT_AI_BACKEND": "openai", "ANTIDRIFT_AI_URL": "http://10.0.0.9:8080/v1"},
        ("ANTIDRIFT_AI_URL='http://10.0.0.9:8080/v1'", "ANTIDRIFT_AI_ALLOW_REMOTE"),
    ),
]


BIN = Path(sys.executable).parent
ENTRIES = {
    "serve": [sys.executable, "-m", "antidrift", "serve", "--threads", "8"],
    "gunicorn": [str(BIN / "gunicorn"), "-c", "gunicorn.conf.py", "antidrift:create_app()"],
    "flask": [str(BIN / "flask"), "--app", "antidrift", "run"],
}


def _start(tmp_path: Path, env: dict[str, str], entry: str = "serve") -> tuple[str, float]:
    """Start an entry point that must refuse: its one line of output, and how long it took.
    The port it was given is still free afterwards (nothing was ever bound to it)."""
    port = free_port()
    argv = ENTRIES[entry] + (["--port", str(port)] if entry != "gunicorn" else [])
    began = time.monotonic()
    result = subprocess.run(
        argv,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=30,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
            "ANTIDRIFT_DATA_DIR": str(tmp_path / "d"),
            "ANTIDRIFT_PORT": str(port),
            **env,
        },
    )
    took = time.monotonic() - began
    out = result.stdout + result.stderr
    assert result.returncode != 0, out
    assert "Traceback" not in out and "gunicorn" not in out.lower(), out
    # One line: no "Listening at" or "Running on" — the port was never bound.
    lines = [ln for ln in out.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("antidrift: "), out
    assert not (tmp_path / "d" / "antidrift.sqlite3").exists()  # nothing was opened either
    return lines[0], took


@pytest.mark.parametrize(("name", "value"), REFUSED)
def test_an_unusable_value_is_one_line_and_a_non_zero_exit(tmp_path, name, value):
    line, took = _start(tmp_path, {"ANTIDRIFT_WINDOW_SOURCE": "auto", name: value})
    assert_within(took, 3, "the refusal")
    assert name in line and "accepted" in line, line
    if "SECRET" not in value:
        assert repr(value) in line, line  # the value as given, quoted


@pytest.mark.parametrize(("env", "words"), REFUSED_TOGETHER)
def test_values_that_rule_each_other_out_are_one_line_naming_both(tmp_path, env, words):
    line, _ = _start(tmp_path, env)
    assert all(word in line for word in words), line


@pytest.mark.parametrize("entry", ["gunicorn", "flask"])
@pytest.mark.parametrize(
    ("name", "value", "accepted"),
    [
        ("ANTIDRIFT_DRIFT", "of", "one of ai, off"),
        ("ANTIDRIFT_ENFORCE_AFTER", "0", "a whole number from 1 to 600"),
        ("ANTIDRIFT_AW_URL", "http://10.1.2.3:5600", "on this machine"),
    ],
)
def test_gunicorn_and_flask_run_refuse_the_same_way(tmp_path, entry, name, value, accepted):
    line, took = _start(tmp_path, {name: value}, entry)
    assert_within(took, 3, "the refusal")
    assert f"{name}={value!r} is not accepted" in line and accepted in line, line


def test_the_ai_key_is_never_echoed_in_a_refusal(tmp_path):
    line, _ = _start(
        tmp_path, {"ANTIDRIFT_AI_KEY": "sk-SECRET", "ANTIDRIFT_AI_URL": "http://10.0.0.9/v1"}
    )
    assert "SECRET" not in line and "ANTIDRIFT_AI_URL" in line, line


def test_a_hand_edited_saved_value_is_one_line_naming_the_file_and_the_key(tmp_path):
    saved = tmp_path / "d" / "settings.json"
    saved.parent.mkdir()
    saved.write_text(json.dumps({"drift": "of", "drift_grace": 30}))
    line, took = _start(tmp_path, {})
    assert_within(took, 3, "the refusal")
    assert str(saved) in line and "drift='of'" in line and "one of ai, off" in line, line
    # The environment wins over the file, so it can also get a server going again at once.
    result = subprocess.run(
        [sys.executable, "-m", "antidrift", "doctor"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "ANTIDRIFT_DRIFT": "off"}
        | {"ANTIDRIFT_DATA_DIR": str(tmp_path / "d"), "ANTIDRIFT_WINDOW_SOURCE": "off"},
    )
    assert result.returncode == 0, result.stdout + result.stderr


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
