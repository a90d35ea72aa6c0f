"""`antidrift status / start / finish / extend / pause / resume / back / on-task` against a
real server: the app over fakes on an ephemeral port (a WSGI layer counts the command line's
requests), and a real `antidrift serve` for finding it by its data directory, for the
not-running sentence and for `--follow` across a restart."""

from __future__ import annotations

import io
import json
import queue
import shlex
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from werkzeug.serving import make_server

from antidrift.cli.client import Client, ServerRefused
from antidrift.drift.policy import DriftSettings
from antidrift.server import commands
from tests.fakes import RecordingNotifier, wait_until
from tests.support.command import antidrift
from tests.support.server import REPO, RunningServer, free_port

NOW = DriftSettings(timedelta(0), timedelta(0), 30)  # a nudge as soon as focus is off task
START = ["start", "Write the intro", "--done", "Intro in the doc", "--minutes", "20"]


@dataclass
class Live:
    """The app on a real socket; `cli` lists what the command line asked, in order."""

    url: str
    web: object  # Flask's test client, for the test's own moves (not counted)
    cli: list[tuple[str, str, bytes]] = field(default_factory=list)
    clock: object = None
    controller: object = None

    def state(self) -> dict:
        return self.web.get("/state").get_json()


@pytest.fixture
def live(make_controller, make_app, judge, clock) -> Iterator[Live]:
    controller = make_controller(judge=judge, drift=NOW, notifier=RecordingNotifier())
    app = make_app(controller)
    seen: list[tuple[str, str, bytes]] = []
    inner = app.wsgi_app

    def counting(environ, start_response):
        if environ.get("HTTP_USER_AGENT", "").startswith("antidrift-cli/"):
            length = int(environ.get("CONTENT_LENGTH") or 0)
            body = environ["wsgi.input"].read(length) if length else b""
            environ["wsgi.input"] = io.BytesIO(body)
            query = environ.get("QUERY_STRING")
            seen.append((environ["REQUEST_METHOD"], environ["PATH_INFO"] + (query and "?"), body))
        return inner(environ, start_response)

    app.wsgi_app = counting
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/"
        yield Live(url, app.test_client(), seen, clock, controller)
    finally:
        app.extensions["antidrift.runtime"].shutting_down.set()  # frees held requests
        server.shutdown()


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """The command in this process: (exit code, stdout, stderr)."""
    code = commands.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- one-shot commands against the app --------------------------------------------------------


def test_status_start_extend_finish_with_their_lines_and_exit_codes(live, capsys):
    assert run(capsys, "status", "--url", live.url) == (0, "No commitment\n", "")
    code, out, _ = run(capsys, *START, "--url", live.url)
    assert (code, out) == (0, "20:00 · Write the intro\n")
    assert live.state()["runtime_state"] == "active"
    code, out, _ = run(capsys, "extend", "5", "--url", live.url)
    assert (code, out) == (0, "25:00 · Write the intro\n")
    code, out, _ = run(capsys, "status", "--json", "--url", live.url)
    body = json.loads(out)
    assert code == 0 and body.pop("left_secs") == 1500 and body == live.state()
    code, out, _ = run(capsys, "status", "--format", "waybar", "--url", live.url)
    bar = json.loads(out)
    assert bar["class"] == "active" and bar["text"] == "25:00 Write the intro"
    assert run(capsys, "finish", "--url", live.url)[:2] == (0, "Review · Write the intro\n")
    # The command line sent no Origin, no Sec-Fetch-*: a local client, and it was let in.
    assert [m for m, _, _ in live.cli].count("POST") == 4  # planning, commitment, extend, finish


def test_times_up_when_the_timebox_runs_out(live, capsys):
    run(capsys, *START, "--url", live.url)
    live.clock.advance(20 * 60 + 1)
    live.controller.expire_if_due()  # the server's once-a-second tick
    assert run(capsys, "status", "--url", live.url)[1] == "Time's up · Write the intro\n"
    bar = json.loads(run(capsys, "status", "--format", "waybar", "--url", live.url)[1])
    assert (bar["class"], bar["percentage"]) == ("timesup", 100)


def test_a_refused_plan_is_exit_2_with_the_servers_sentence_and_changes_nothing(live, capsys):
    code, out, err = run(
        capsys, "start", "Write", "--done", "x", "--minutes", "0", "--url", live.url
    )
    assert code == 2 and out == ""
    assert err == "antidrift: Minutes must be a whole number from 1 to 480.\n"  # the server's
    assert live.state()["runtime_state"] == "locked"  # the planning it opened is closed again


def test_a_refused_plan_during_a_break_leaves_the_break_running(live, capsys):
    """Opening planning ends a break (and the closure): a plan the server would refuse must
    not get that far, or a typo in `antidrift start` silently ends the break."""
    assert live.web.post("/break", json={"minutes": 10}).status_code == 200
    taken = live.state()["break"]
    for argv in (["ok", "--done", "x", "--minutes", "0"], ["", "--done", "x", "--minutes", "5"]):
        code, out, err = run(capsys, "start", *argv, "--url", live.url)
        assert code == 2 and out == "" and err.startswith("antidrift: "), (argv, err)
        assert live.state()["break"] == taken, argv
    assert [p for m, p, _ in live.cli if m == "POST"] == []  # nothing was asked to change


def test_an_illegal_move_is_exit_2_in_one_line(live, capsys):
    for argv in (["finish"], ["extend", "5"], ["back"], ["on-task"], ["pause"], ["resume"]):
        code, out, err = run(capsys, *argv, "--url", live.url)
        assert code == 2 and out == "", argv
        assert err.startswith("antidrift: ") and err.count("\n") == 1, (argv, err)
        assert "Traceback" not in err
    assert live.state()["runtime_state"] == "locked"


def test_a_route_the_server_lacks_is_a_sentence_not_a_traceback(live):
    """`pause` and `resume` against a server that predates them (the daily page adds them)."""
    with pytest.raises(ServerRefused) as refused:
        Client(live.url).post("/no-such-move")
    assert refused.value.exit_code == 2
    assert "does not know POST /no-such-move" in refused.value.message


def test_pause_and_resume_stop_and_start_the_clock(live, capsys):
    run(capsys, *START, "--url", live.url)
    live.clock.advance(60)
    assert run(capsys, "pause", "--url", live.url) == (0, "Paused · 19:00 · Write the intro\n", "")
    live.clock.advance(600)
    assert run(capsys, "status", "--url", live.url)[1] == "Paused · 19:00 · Write the intro\n"
    bar = json.loads(run(capsys, "status", "--format", "waybar", "--url", live.url)[1])
    assert (bar["class"], bar["text"], bar["percentage"]) == (
        "paused",
        "Paused 19:00 Write the intro",
        5,
    )
    code, out, err = run(capsys, "pause", "--url", live.url)
    assert code == 2 and "paused" in err
    assert run(capsys, "resume", "--url", live.url) == (0, "19:00 · Write the intro\n", "")
    assert live.state()["paused_secs"] == 600
    posts = [path for method, path, _ in live.cli if method == "POST"]
    assert posts[-3:] == ["/pause", "/pause", "/resume"]


def test_back_and_on_task_answer_a_drift_nudge(live, capsys):
    run(capsys, *START, "--url", live.url)
    live.web.post("/evidence/window", json={"app": "firefox", "title": "feed"})
    wait_until(lambda: live.state()["drift"]["status"] == "drifting")
    assert run(capsys, "status", "--url", live.url)[1].startswith("Drifting? · 20:00 ·")
    assert run(capsys, "on-task", "--url", live.url)[0] == 0
    assert live.state()["drift"]["status"] == "on_task"
    live.web.post("/evidence/window", json={"app": "videos", "title": "cats"})
    wait_until(lambda: live.state()["drift"]["status"] == "drifting")
    assert run(capsys, "back", "--url", live.url)[0] == 0
    answers = [json.loads(body) for _, path, body in live.cli if path == "/drift/ack"]
    assert answers == [{"answer": "on_task"}, {"answer": "back"}]


# -- --follow: one request per change, none per second ----------------------------------------


class Follower:
    """`antidrift status --follow` as its own process; its lines, as they come."""

    def __init__(self, *argv: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "antidrift", "status", "--follow", *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def next(self, timeout: float = 20.0) -> str:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no line in {timeout} s; so far {self.seen}") from None
        self.seen.append(line)
        return line

    def until(self, predicate, timeout: float = 30.0) -> str:
        return wait_until(lambda: (line := self.next(timeout)) and predicate(line) and line,
                          timeout=timeout, interval=0)  # fmt: skip

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def test_follow_costs_one_request_per_change_and_none_per_second(live):
    follower = Follower("--url", live.url)
    try:
        assert follower.next() == "No commitment"
        gets = lambda: [p for m, p, _ in live.cli if m == "GET"]  # noqa: E731
        wait_until(lambda: len(gets()) == 2)  # the first look, then one held request
        changes = 0
        for path, body, line in [
            ("/planning", None, "Planning"),
            (
                "/commitment",
                {
                    "next_action": "Write the intro",
                    "success_condition": "Done",
                    "timebox_minutes": 20,
                },
                "20:00 · Write the intro",
            ),  # fmt: skip
        ]:
            live.web.post(path, json=body or {})
            changes += 1
            assert follower.next() == line
        # A line every second while it runs, counted down here: no request for them.
        wait_until(lambda: len(gets()) == 2 + changes)  # the next held request is in
        before = len(gets())
        assert [follower.next() for _ in range(3)] == [
            "19:59 · Write the intro",
            "19:58 · Write the intro",
            "19:57 · Write the intro",
        ]
        assert len(gets()) == before
        live.web.post("/finish", json={})
        changes += 1
        assert follower.until(lambda line: line.startswith("Review"))
        wait_until(lambda: len(gets()) == 2 + changes)
        # Bound: the first look, one per change, and the one held now; never more.
        assert len(gets()) <= 2 + changes
        assert all(p.startswith("/state") for p in gets())
    finally:
        follower.stop()


def test_follow_keeps_going_across_a_server_restart(tmp_path):
    data = tmp_path / "data"
    server = RunningServer(data).start()
    follower = Follower("--data-dir", str(data))
    try:
        assert follower.next() == "No commitment"
        server.post("/planning")
        assert follower.next() == "Planning"
        server.stop()
        down = follower.next()
        assert (
            "not running" in down and f"antidrift serve --data-dir {shlex.quote(str(data))}" in down
        )
        # Back on another port: found again through the data directory's lock.
        server = RunningServer(data, port=free_port()).start()
        assert follower.next() == "Planning"  # the state survived the restart
        server.post("/planning/cancel")
        assert follower.next() == "No commitment"
    finally:
        follower.stop()
        server.stop()


def test_follow_for_waybar_writes_json_lines_and_hides_while_down(tmp_path):
    follower = Follower("--format", "waybar", "--data-dir", str(tmp_path / "none"))
    try:
        bar = json.loads(follower.next())
        assert bar["text"] == "" and "not running" in bar["tooltip"]
    finally:
        follower.stop()


def test_follow_as_json_says_a_missing_server_in_json_too(tmp_path):
    follower = Follower("--json", "--data-dir", str(tmp_path / "none"))
    try:
        assert "not running" in json.loads(follower.next())["error"]
    finally:
        follower.stop()


# -- finding the server ------------------------------------------------------------------------


def test_not_running_is_exit_1_and_one_line_with_the_command_that_starts_one(tmp_path):
    empty = tmp_path / "nothing here"
    for argv in (["status"], ["finish"], START, ["back"]):
        result = antidrift(*argv, "--data-dir", str(empty))
        assert result.returncode == 1, (argv, result.stderr)
        assert result.stdout == ""
        assert result.stderr.count("\n") == 1 and "not running" in result.stderr
        assert f"antidrift serve --data-dir {shlex.quote(str(empty))}" in result.stderr
    assert not empty.exists()  # looking for a server creates nothing


def test_a_lock_left_by_a_dead_server_is_not_running(tmp_path):
    (tmp_path / "antidrift.lock").write_text(f"pid 999999\nurl http://127.0.0.1:{free_port()}/\n")
    result = antidrift("status", "--data-dir", str(tmp_path))
    assert result.returncode == 1 and "not running" in result.stderr


def test_a_closed_url_is_not_running(tmp_path):
    result = antidrift("status", "--url", f"http://127.0.0.1:{free_port()}/")
    assert result.returncode == 1 and "not running" in result.stderr
    assert "connection refused" in result.stderr


def test_the_data_directory_finds_the_real_server_from_the_environment(tmp_path):
    data = tmp_path / "data"
    server = RunningServer(data).start()
    try:
        result = antidrift("status", env={"ANTIDRIFT_DATA_DIR": str(data)})
        assert (result.returncode, result.stdout) == (0, "No commitment\n"), result.stderr
        started = antidrift(*START, "--data-dir", str(data))
        assert started.returncode == 0 and server.get("/state")["runtime_state"] == "active"
    finally:
        server.stop()


def test_a_server_bound_to_any_address_is_reached_on_loopback(tmp_path):
    """`serve --host 0.0.0.0 --allow-remote` records http://0.0.0.0:…/, a Host it refuses."""
    assert Client("http://0.0.0.0:7717/").url == "http://127.0.0.1:7717/"
