"""Issue 30, items 8 and 10: what the command line prints and whom it talks to.

A plan, a task title or an AI's answer may hold escape sequences, C1 controls and bidi
overrides; none reaches the terminal as such (status, --json, waybar, --follow, start,
errors), and the API refuses them in a typed plan. The lock file's URL is followed only to
this machine; a /state of the wrong shape is a sentence, never a traceback.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import threading
import time
import unicodedata
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from antidrift.ai import Proposal
from antidrift.cli import remote, statusline
from antidrift.cli.client import Client
from antidrift.core.plaintext import CONTROL
from antidrift.core.terminal import printable
from antidrift.server import commands
from antidrift.store import datalock
from tests.fakes import FakeCoach, wait_until
from tests.support.server import REPO

# Every kind the terminal must not obey: CSI (clear the screen), OSC (retitle the window, a
# hyperlink), a bare CR that rewrites the line, BEL, a tab, DEL, C1 CSI and NEL, each bidi
# override and isolate, and a lone surrogate (a JSON "\ud800").
HOSTILE = (
    "Write\x1b[2J\x1b]0;pwned\x07 it\r\x08\t\x7f\x9b31m\x85"
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ud800 now"
)


START = ["start", "x", "--done", "y", "--minutes", "5"]


def _bad(text: str) -> list[str]:
    """The characters in `text` a terminal would obey (newline aside)."""
    return [
        c
        for c in text
        if (ord(c) < 32 and c != "\n")
        or 0x7F <= ord(c) <= 0x9F
        or 0x202A <= ord(c) <= 0x202E
        or 0x2066 <= ord(c) <= 0x2069
        or 0xD800 <= ord(c) <= 0xDFFF
    ]


def test_the_hostile_text_holds_every_kind_the_fence_must_stop():
    assert len(set(_bad(HOSTILE))) == 18
    assert _bad(printable(HOSTILE)) == []


# -- a stand-in for whatever answers on the port -------------------------------------------------


class Standin:
    """An HTTP server on an ephemeral loopback port answering each path as told; `hits`
    counts the requests it got."""

    def __init__(self) -> None:
        self.routes: dict[str, tuple[int, bytes, dict[str, str]]] = {}
        self.hits = 0
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                standin.hits += 1
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                status, body, headers = standin.routes.get(
                    self.path.split("?")[0], (404, b'{"error": "no"}', {})
                )
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _answer  # noqa: N815

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, path: str, body: object, status: int = 200, **headers: str) -> None:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.routes[path] = (status, raw, {k.replace("_", "-"): v for k, v in headers.items()})

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def standin() -> Iterator[Standin]:
    server = Standin()
    yield server
    server.close()


def _active(text: str) -> dict:
    return {
        "runtime_state": "active",
        "paused": False,
        "commitment": {
            "id": "c1",
            "next_action": text,
            "success_condition": text,
            "timebox_secs": 1500,
            "task": {"source": "markdown", "id": "3", "title": text},
        },
        "drift": {"status": "drifting", "reason": text},
        "evidence": {"health": "healthy", "last": {"app": text, "title": text}},
    }


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = commands.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- item 8: the fence at output ---------------------------------------------------------------


def test_status_in_every_shape_prints_no_control_and_json_means_the_same(standin, capsys):
    state = _active(HOSTILE)
    standin.answer("/state", state, AntiDrift_Left_Secs="600")
    for shape in ([], ["--json"], ["--format", "waybar"]):
        code, out, err = run(capsys, "status", *shape, "--url", standin.url)
        assert code == 0 and err == "", (shape, err)
        assert _bad(out) == [], (shape, out)
        assert out.endswith("\n") and out.count("\n") == 1
    # The JSON lines are JSON still, and read back as exactly what the server said.
    code, out, _ = run(capsys, "status", "--json", "--url", standin.url)
    assert json.loads(out) == {**state, "left_secs": 600}
    code, out, _ = run(capsys, "status", "--format", "waybar", "--url", standin.url)
    assert json.loads(out)["class"] == "drifting"


def test_follow_as_a_process_prints_no_control(standin):
    """What --follow writes to its stdout, as a bar reads it."""
    standin.answer("/state", _active(HOSTILE), AntiDrift_Left_Secs="600")
    proc = subprocess.Popen(
        [sys.executable, "-m", "antidrift", "status", "--follow", "--url", standin.url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    try:
        first = proc.stdout.readline().decode("utf-8", "surrogateescape")
    finally:
        proc.kill()
        proc.wait(10)
    assert "10:00" in first and _bad(first) == []


def test_start_and_a_refusal_print_no_control(standin, capsys):
    standin.answer("/state", {"runtime_state": "planning", "commitment": None})
    standin.answer("/commitment", _active(HOSTILE))
    code, out, err = run(
        capsys, "start", "x", "--done", "y", "--minutes", "5", "--url", standin.url
    )
    assert code == 0 and _bad(out) == [] and "Write" in out
    standin.answer("/finish", {"error": f"No: {HOSTILE}"}, status=409)
    code, out, err = run(capsys, "finish", "--url", standin.url)
    assert code == 2 and out == "" and _bad(err) == [] and "No: Write" in err
    standin.answer("/pause", {"error": HOSTILE}, status=503)
    code, _, err = run(capsys, "pause", "--url", standin.url)
    assert code == 3 and _bad(err) == []


def test_every_line_the_command_line_prints_goes_through_the_fence():
    """No print() or direct stream write anywhere in the package (the command line, serve,
    service, backup and restore): `say` (antidrift/core/terminal.py) is the one way out."""
    package = REPO / "antidrift"
    offenders = []
    # The one writer to a pipe, not a terminal: the calendar's child answers its parent in
    # JSON (ASCII, every control character escaped), which reads it as data.
    pipes = {package / "core" / "terminal.py", package / "calendar" / "child.py"}
    for path in package.rglob("*.py"):
        if path in pipes:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if re.search(r"\bprint\(|\.(stdout|stderr)\.write", code):
                offenders.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert offenders == []


# -- item 8: the API refuses a plan with control characters -------------------------------------


@pytest.mark.parametrize(
    "bad", ["\x1b[2J", "\x07", "\x7f", "\x9b", "\u202e", "\u2066", "\x0b"], ids=repr
)
@pytest.mark.parametrize("field", ["next_action", "success_condition"])
def test_a_plan_with_a_control_character_is_a_400_with_a_sentence(client, field, bad):
    client.post("/planning")
    plan = {"next_action": "Write it", "success_condition": "Done", "timebox_minutes": 25}
    plan[field] = f"Write {bad} it"
    for send in ({"json": plan}, {"data": plan}):
        response = client.post("/commitment", **send)
        assert response.status_code == 400
        message = response.get_json()["error"] if "json" in send else response.get_data(True)
        assert "control character" in message and f"U+{ord(bad[0]):04X}" in message
        assert client.get("/state").get_json()["runtime_state"] == "planning"


@pytest.mark.parametrize("bad", ["\x1b[2J", "\x9b", "\u202e"], ids=repr)
def test_a_review_note_with_a_control_character_is_a_400_and_saves_nothing(client, bad):
    # The note reaches the CSV, a task file's write-back and the command line's lines.
    client.post("/planning")
    plan = {"next_action": "Write it", "success_condition": "Done", "timebox_minutes": 25}
    assert client.post("/commitment", json=plan).status_code == 200
    client.post("/finish")
    response = client.post("/end", json={"outcome": "met", "note": f"went {bad} well"})
    assert response.status_code == 400
    assert f"U+{ord(bad[0]):04X}" in response.get_json()["error"]
    assert client.get("/state").get_json()["runtime_state"] == "review"
    # Line breaks and tabs are a note's own.
    assert (
        client.post("/end", json={"outcome": "met", "note": "one\r\ntwo\tthree"}).status_code == 200
    )
    assert client.get("/state").get_json()["runtime_state"] == "locked"


def test_a_plan_typed_in_a_textarea_keeps_its_line_breaks_and_tabs(client):
    client.post("/planning")
    plan = {
        "next_action": "Write\tit",
        "success_condition": "one\r\ntwo",
        "timebox_minutes": "25",
    }
    assert client.post("/commitment", data=plan).status_code == 200
    assert client.get("/state").get_json()["runtime_state"] == "active"


def test_a_coach_proposal_with_control_characters_is_offered_without_them(make_controller):
    typed = HOSTILE.replace("\ud800", "")  # the AI wing makes a lone surrogate U+FFFD
    coach = FakeCoach(Proposal(f"Draft {typed}", "3\x1b[31m paragraphs\u202e", 25))
    controller = make_controller(coach)
    controller.enter_planning()
    controller.coaching.request("write")
    wait_until(lambda: controller.snapshot().coach.status != "pending")
    proposal = controller.snapshot().coach.proposal
    assert proposal is not None, controller.snapshot().coach.error
    assert not CONTROL.search(proposal.next_action + proposal.success_condition)
    assert proposal.success_condition == "3[31m paragraphs"
    # Started as proposed, the commitment holds none either.
    controller.start_manual_commitment(proposal.next_action, proposal.success_condition, 25)
    stored = controller.snapshot().commitment
    assert not CONTROL.search(stored.next_action + stored.success_condition)


# -- item 10: only this machine ----------------------------------------------------------------

# Records every connection and name look-up the command makes, on stderr, before it runs.
_WATCHED = textwrap.dedent("""\
    import sys
    def hook(event, args):
        if event in ("socket.connect", "socket.getaddrinfo"):
            print("NETWORK", event, args[1] if event == "socket.connect" else args[0],
                  file=sys.stderr)
    sys.addaudithook(hook)
    from antidrift.server.commands import main
    sys.exit(main(sys.argv[1:]))
    """)


def _watched(*argv: str) -> tuple[subprocess.CompletedProcess, float]:
    began = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-c", _WATCHED, *argv],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=REPO,
    )
    return result, time.monotonic() - began


@pytest.mark.parametrize(
    "url",
    [
        "http://10.255.255.1:7717/",
        "http://antidrift-nowhere.invalid:7717/",
        "http://127.0.0.1.example.com:7717/",
        "http://[::ffff:10.0.0.1]:7717/",
        "http://[fe80::1]:7717/",
        "http://[::1:7717/",
        "http://127.0.0.1:99999/",
    ],
)
def test_a_lock_naming_another_host_is_refused_at_once_without_a_connection(tmp_path, url):
    data = tmp_path / "data"
    lock = datalock.acquire(data, url=url)
    try:
        for argv in (["status"], START, ["finish"]):
            result, took = _watched(*argv, "--data-dir", str(data))
            assert result.returncode != 0 and took < 5, (argv, result.stderr)
            assert "NETWORK" not in result.stderr, result.stderr
            assert "Traceback" not in result.stderr
            assert result.stderr.count("\n") == 1 and url in result.stderr
            assert "not an address on this machine" in result.stderr
    finally:
        lock.release()


def test_a_lock_naming_this_machine_is_followed(tmp_path, standin):
    standin.answer("/state", {"runtime_state": "locked", "commitment": None})
    data = tmp_path / "data"
    for url in (standin.url, standin.url.replace("127.0.0.1", "localhost")):
        lock = datalock.acquire(data, url=url)
        try:
            result, _ = _watched("status", "--data-dir", str(data))
        finally:
            lock.release()
        assert (result.returncode, result.stdout) == (0, "No commitment\n"), result.stderr
        assert "NETWORK socket.connect" in result.stderr  # the watch sees connections


DEEP = b"[" * 100_000 + b"]" * 100_000


@pytest.mark.parametrize(
    ("body", "headers"),
    [
        ([], {}),
        (["runtime_state"], {}),
        ({"runtime_state": 5}, {}),
        ({"runtime_state": "flying"}, {}),
        ({"runtime_state": "active", "commitment": "c1"}, {}),
        ({"runtime_state": "active", "commitment": [1, 2]}, {}),
        ({"runtime_state": "active", "commitment": {"timebox_secs": "abc"}}, {}),
        ({"runtime_state": "active", "commitment": {"timebox_secs": True}}, {}),
        ({"runtime_state": "active", "commitment": {"extended_secs": 1e400}}, {}),
        ({"runtime_state": "review", "commitment": {"next_action": ["x"]}}, {}),
        ({"runtime_state": "active", "commitment": {"success_condition": {}}}, {}),
        ({"runtime_state": "active", "drift": [1]}, {}),
        ({"runtime_state": "active", "drift": "drifting"}, {}),
        (DEEP, {}),
        (b"\xff\xfe not json", {}),
    ],
    ids=lambda v: repr(v)[:40],
)
def test_an_odd_state_is_a_sentence_not_a_traceback(standin, capsys, body, headers):
    standin.answer("/state", body, **headers)
    for shape in ([], ["--json"], ["--format", "waybar"]):
        code, out, err = run(capsys, "status", *shape, "--url", standin.url)
        assert code == 1 and out == "", (shape, out)
        assert err.startswith("antidrift: Something at") and err.count("\n") == 1, err
    code, out, err = run(
        capsys, "start", "x", "--done", "y", "--minutes", "5", "--url", standin.url
    )
    assert code == 1 and err.startswith("antidrift: Something at")


@pytest.mark.parametrize("left", ["²", "1e3", "-5", "9" * 40, "abc"])
def test_an_odd_time_left_is_ignored_not_a_traceback(standin, capsys, left):
    state = _active("Write")
    state["left_secs"] = "soon"  # in the body, where AntiDrift never puts it
    standin.answer("/state", state, AntiDrift_Left_Secs=left)
    for shape in ([], ["--json"], ["--format", "waybar"]):
        code, out, err = run(capsys, "status", *shape, "--url", standin.url)
        assert code == 0 and err == "", err
    assert "soon" not in out


def test_an_odd_state_while_following_is_a_line_and_it_keeps_going(standin):
    standin.answer("/state", {"runtime_state": "active", "commitment": "c1"})
    lines: list[str] = []
    stop = threading.Event()

    def write(text: str) -> None:
        lines.append(text)
        if len(lines) == 2:
            stop.set()

    client = Client(standin.url)
    thread = threading.Thread(
        target=remote.follow,
        args=(lambda: client, statusline.line, lambda m: m, write),
        kwargs={"stop": stop},
        daemon=True,
    )
    thread.start()
    wait_until(lambda: lines, timeout=10)
    assert lines[0].startswith("Something at")
    standin.answer("/state", {"runtime_state": "locked", "commitment": None})
    thread.join(10)
    assert lines[-1] == "No commitment"


def test_backup_and_restore_print_a_crafted_file_name_escaped(tmp_path):
    """A backup file named with an escape sequence (a file anyone with the folder can make)
    reaches the terminal as text: restore's refusal names it through the fence."""
    import subprocess
    import sys

    crafted = tmp_path / "evil\x1b]0;owned\x07.sqlite3"
    crafted.write_bytes(b"not a database")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "antidrift",
            "restore",
            str(crafted),
            "--data-dir",
            str(tmp_path / "d"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "\x1b" not in result.stderr + result.stdout and "\x07" not in result.stderr
    assert "\\u001b]0;owned\\u0007" in result.stderr  # said, escaped


# -- the server's log: `antidrift serve` in a terminal writes it there ---------------------------


def test_an_ai_cli_s_raw_output_in_the_server_log_reaches_the_terminal_fenced(tmp_path):
    """A coach CLI that fails has its raw output logged (the page says one sentence): the
    log is the terminal of `antidrift serve` run in the foreground, and the output is any
    model's (or a quoted window title's) text."""
    from tests.support.fake_cli import FakeCLI, path_with
    from tests.support.server import RunningServer

    hostile = HOSTILE.replace("\ud800", "")  # a CLI's output is bytes: no lone surrogate
    cli = FakeCLI(tmp_path / "bin")
    cli.configure(answer=f"out {hostile}", exit=3, stderr=f"err {hostile}")
    server = RunningServer(tmp_path / "data", env={"PATH": path_with(cli.folder)})
    server.env.pop("ANTIDRIFT_CLAUDE_BIN", None)
    server.start()
    try:
        assert server.post("/planning")[0] == 200
        assert server.post("/coach", {"intent": "the report"})[0] == 200
        wait_until(lambda: "exit code 3" in server.log_path.read_text(errors="replace"))
    finally:
        server.stop()
    logged = server.log_path.read_bytes().decode("utf-8", "surrogateescape")
    line = next(ln for ln in logged.splitlines() if "exit code 3" in ln)
    assert "Write" in line and _bad(logged) == [], line


def test_every_format_character_is_written_escaped_as_json_reads_it():
    """Issue 41: direction marks, the soft hyphen, zero-width characters, the BOM and tags
    passed through to the command line; now every character of category Cf is escaped."""
    every = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"]
    text = "a" + "".join(every) + "b"
    shown = printable(text)
    assert shown.isascii() and shown.startswith("a") and shown.endswith("b")
    assert json.loads(f'"{shown}"') == text  # the escape JSON reads back as the same text
    for word in ("soft\u00adhyphen", "zero\u200bwidth", "\ufeffbom", "mark\u200f", "tag\U000e0041"):
        assert printable(word).isascii()
