"""The stack's own floor (issue 40, the house 0.6 item 5): a bare gunicorn + Flask +
flask-sock app with one route, run with the worker settings `antidrift serve` uses (one
gthread worker, as many threads), so the benchmark measures what AntiDrift adds above what
the stack itself costs (P6: start → first answer; P8: idle tree PSS)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from flask import Flask
from flask_sock import Sock

HERE = Path(__file__).resolve().parent

app = Flask(__name__)
sock = Sock(app)


@app.get("/state")
def state():
    return {"runtime_state": "locked"}


@sock.route("/ws")
def ws(socket):  # the websocket route the page uses: flask-sock loaded as AntiDrift loads it
    socket.receive()


def start(port: int, threads: int, log) -> subprocess.Popen:
    """The floor's gunicorn on `port` (127.0.0.1), its output to `log`."""
    argv = [
        sys.executable, "-m", "gunicorn", "--workers", "1", "--worker-class", "gthread",
        "--threads", str(threads), "--worker-connections", str(threads), "--keep-alive", "0",
        "--bind", f"127.0.0.1:{port}", "bench_floor:app",
    ]  # fmt: skip
    return subprocess.Popen(
        argv, cwd=HERE, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
