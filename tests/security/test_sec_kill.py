"""kill -9 mid-burst loses nothing that was acknowledged; SIGTERM mid-coach leaves no CLI."""

from __future__ import annotations

import http.client
import json
import random
import sqlite3
import threading
import time

from tests.fakes import wait_until
from tests.support.timing import assert_within

NEXT = {"locked": "planning", "planning": "active", "active": "review", "review": "locked"}


class Client:
    """One keep-alive connection; a dead server is an OSError."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)

    def post(self, path: str, body: dict | None = None) -> tuple[int, dict]:
        self.conn.request(
            "POST", path, json.dumps(body or {}), {"Content-Type": "application/json"}
        )
        resp = self.conn.getresponse()
        return resp.status, json.loads(resp.read())


def _db(server) -> sqlite3.Connection:
    return sqlite3.connect(server.data_dir / "antidrift.sqlite3")


def _integrity_ok(server) -> bool:
    with _db(server) as db:
        return db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_kill_9_during_a_burst_of_transitions_keeps_every_acknowledged_one(lab, sec):
    server = lab.start()
    ended: list[str] = []  # commitments whose /end answered 200
    last = ["locked", None]  # the state the last acknowledged transition led to, its commitment
    stop = threading.Event()

    def burst() -> None:
        client = Client(server.port)
        i = 0
        try:
            while not stop.is_set():
                i += 1
                assert client.post("/planning")[0] == 200
                last[:] = ["planning", None]
                status, body = client.post(
                    "/commitment",
                    {
                        "next_action": f"burst {i}",
                        "success_condition": "done",
                        "timebox_minutes": 5,
                    },
                )
                assert status == 200
                cid = body["commitment"]["id"]
                last[:] = ["active", cid]
                assert client.post("/finish")[0] == 200
                last[:] = ["review", cid]
                assert client.post("/end", {"outcome": "met", "note": f"n{i}"})[0] == 200
                ended.append(cid)
                last[:] = ["locked", None]
        except (OSError, http.client.HTTPException):
            pass  # the server was killed under us

    thread = threading.Thread(target=burst)
    thread.start()
    # Kill once the burst is going (a fixed sleep saw fewer than ten rounds on a busy
    # machine), at a random point of whichever round it is in.
    wait_until(lambda: len(ended) > 10, timeout=60, message="the burst never got going")
    time.sleep(random.uniform(0, 0.3))
    server.kill()  # SIGKILL to master and worker
    stop.set()
    thread.join(10)

    assert _integrity_ok(server)
    with _db(server) as db:
        stored = {
            row[0] for row in db.execute("SELECT id FROM commitments WHERE outcome IS NOT NULL")
        }
    assert set(ended) <= stored, f"{len(set(ended) - stored)} acknowledged ends lost"

    server.start()  # same data dir, same port
    state = server.get("/state")
    # The last acknowledged transition is there; the one in flight may have landed too.
    assert state["runtime_state"] in (last[0], NEXT[last[0]]), (state, last)
    if state["runtime_state"] == last[0] and last[1]:
        assert state["commitment"]["id"] == last[1]
    history = {c["id"] for c in server.get("/history")}
    assert set(ended[-min(len(ended), 50) :]) <= history
    assert _integrity_ok(server)


def test_kill_9_during_evidence_recording_keeps_every_acknowledged_sample(lab, sec):
    server = lab.start()
    cid = sec.to_active(server)
    acked: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()

    def record(worker: int) -> None:
        client = Client(server.port)
        i = 0
        try:
            while not stop.is_set():
                i += 1
                title = f"w{worker}-{i}"
                status, body = client.post("/evidence/window", {"app": "Editor", "title": title})
                assert status == 202 and body == {"recorded": True}
                with lock:
                    acked.append(title)
        except (OSError, http.client.HTTPException):
            pass

    threads = [threading.Thread(target=record, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    time.sleep(random.uniform(0.6, 1.2))
    server.kill()
    stop.set()
    for t in threads:
        t.join(10)
    assert len(acked) > 50, "the recording never got going"

    assert _integrity_ok(server)
    with _db(server) as db:
        titles = {
            row[0]
            for row in db.execute("SELECT title FROM samples WHERE commitment_id = ?", (cid,))
        }
    assert set(acked) <= titles, f"{len(set(acked) - titles)} acknowledged samples lost"

    server.start()
    state = server.get("/state")
    assert state["runtime_state"] == "active" and state["commitment"]["id"] == cid
    assert state["evidence"]["last"]["title"] in titles
    assert server.post("/evidence/window", {"app": "Editor", "title": "after"})[0] == 202
    assert _integrity_ok(server)


CLI_WITH_CHILD = """
sys.stdin.read()
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
with open({pidfile!r}, "w") as f:
    f.write(f"{{os.getpid()}} {{child.pid}}\\n")
time.sleep(30)
print(json.dumps({{"next_action": "late", "success_condition": "late", "timebox_minutes": 5}}))
"""


def test_sigterm_while_a_coach_cli_runs_exits_fast_and_leaves_no_process(lab, sec):
    pidfile = lab.root / "sigterm.pids"
    lab.write_cli(CLI_WITH_CHILD.format(pidfile=str(pidfile)))
    server = lab.start(env={"ANTIDRIFT_AI_TIMEOUT": "60"})
    sec.to_planning(server)
    assert server.post("/coach", {"intent": "take your time"})[0] == 200
    deadline = time.monotonic() + 10
    while len(sec.pids_in(pidfile)) < 2:
        assert time.monotonic() < deadline, "the fake CLI never started its child"
        time.sleep(0.02)
    cli, child = sec.pids_in(pidfile)
    assert sec.alive(cli) and sec.alive(child)
    worker = sec.worker_pid(server)

    started = time.monotonic()
    server.proc.terminate()  # SIGTERM to the gunicorn master, as a service manager would
    server.proc.wait(15)
    took = time.monotonic() - started
    assert_within(took, 5, "the exit")
    for pid, what in ((cli, "the coach CLI"), (child, "the CLI's child"), (worker, "worker")):
        assert sec.wait_dead(pid, within=1.0), f"{what} (pid {pid}) survived the server"
