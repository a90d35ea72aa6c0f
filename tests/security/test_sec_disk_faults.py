"""A write that fails under a running server: 503 with the cause in {"error": …} (and as the
page's message for htmx), the state as it was, one log line, and saving again once the disk
recovers. A real `antidrift serve` on a real full tmpfs, and on a file-size limit (EFBIG)."""

from __future__ import annotations

import resource
import time

from tests.support import procs
from tests.support.plans import PLAN
from tests.support.server import RunningServer
from tests.support.tmpfs import fill, small_tmpfs
from tests.support.walk import server_post, walk_http

HTMX = {"HX-Request": "true", "Content-Type": "application/x-www-form-urlencoded"}


def _active(server: RunningServer) -> dict:
    walk_http(server_post(server), "active", **PLAN)
    return server.get("/state")


def _log_lines(server: RunningServer, text: str) -> list[str]:
    return [ln for ln in server.log_path.read_text().splitlines() if text in ln]


def test_a_full_disk_answers_503_with_the_cause_and_changes_nothing(tmp_path):
    with small_tmpfs(tmp_path / "disk") as disk:
        server = RunningServer(disk / "data", log_path=tmp_path / "server.log").start()
        try:
            before = _active(server)
            filler = fill(disk)

            status, body = server.post("/finish")
            assert status == 503, body
            assert body["error"].startswith("the disk is full"), body
            status, page = server.request("POST", "/finish", headers=HTMX)
            assert status == 503 and "The disk is full: nothing was saved" in page, page
            assert server.post("/evidence/window", {"app": "code", "title": "x"})[0] == 503
            assert server.get("/state") == before  # nothing changed

            log = server.log_path.read_text()
            assert len(_log_lines(server, "cannot save to the database")) == 1, log
            assert "cannot rollback" not in log and "Traceback" not in log, log

            filler.unlink()
            assert server.post("/finish")[0] == 200
            assert server.get("/state")["runtime_state"] == "review"
        finally:
            server.stop()


def test_an_io_error_while_running_is_a_503_too(tmp_path):
    """The worker may not grow any file (RLIMIT_FSIZE): its next WAL append fails."""
    server = RunningServer(tmp_path / "data").start()
    try:
        before = _active(server)
        worker = procs.children(server.proc.pid)[0]
        wal = server.data_dir / "antidrift.sqlite3-wal"
        _, hard = resource.prlimit(worker, resource.RLIMIT_FSIZE)
        resource.prlimit(worker, resource.RLIMIT_FSIZE, (wal.stat().st_size, hard))
        # The log is the server's stderr, which the limit would cut too: read it afterwards.
        statuses = [server.post("/finish") for _ in range(3)]
        resource.prlimit(worker, resource.RLIMIT_FSIZE, (hard, hard))
        time.sleep(0.1)
        for status, body in statuses:
            assert status == 503, body
            assert body["error"].startswith(("the disk is full", "the disk reported an I/O")), body
        assert server.get("/state") == before
        assert len(_log_lines(server, "cannot save to the database")) <= 1
        assert server.post("/finish")[0] == 200
    finally:
        server.stop()
