"""Hostile coach CLIs, end to end through the server: each is a short, clear coach error in
/state and on the page, never raw output, never a hang, never a leftover process."""

from __future__ import annotations

import time

import pytest

from tests.support.timing import assert_within

MARK = "RAW-CLI-OUTPUT-7f3a"

# PIDFILE and MARK are replaced before the script is written.
HANG_WITH_CHILD = """
sys.stdin.read()
print("MARK", flush=True)
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])  # holds stdout
open("PIDFILE", "w").write(f"{os.getpid()} {child.pid}\\n")
time.sleep(120)
"""

EXIT_LEAVING_CHILD = """
sys.stdin.read()
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])  # holds stdout
open("PIDFILE", "w").write(f"{os.getpid()} {child.pid}\\n")
sys.stderr.write("MARK")
"""

FLOOD = """
sys.stdin.read()
open("PIDFILE", "w").write(f"{os.getpid()}\\n")
chunk = b"MARK " * 13000
for _ in range(25 * (1 << 20) // len(chunk) + 1):
    sys.stdout.buffer.write(chunk)
"""

EMPTY = """
sys.stdin.read()
open("PIDFILE", "w").write(f"{os.getpid()}\\n")
"""

INVALID_UTF8 = """
sys.stdin.read()
open("PIDFILE", "w").write(f"{os.getpid()}\\n")
sys.stdout.buffer.write(b"\\xff\\xfe\\xfd MARK \\xc3\\x28 \\xed\\xa0\\x80 { \\x80\\x81")
"""

CASES = {
    "hangs with a child holding stdout": (HANG_WITH_CHILD, "the coach took longer than 2 s"),
    "exits leaving a child holding stdout": (
        EXIT_LEAVING_CHILD,
        "the coach returned an empty answer — try again",
    ),
    "floods 25 MiB": (FLOOD, "claude wrote more than 1 MiB — its answer was dropped"),
    "exits 0 with nothing": (EMPTY, "the coach returned an empty answer — try again"),
    "writes invalid UTF-8": (INVALID_UTF8, "the coach's answer held no proposal — try again"),
}


@pytest.fixture(scope="module")
def servers(module_lab):
    """The hanging CLI meets a 2 s timeout. The others get 30 s: their error must come from
    what they do, not from a timeout that a busy machine's slow start of the fake reached
    first (a CLI that waited for the pipe its child holds would still take the 30 s)."""
    return {
        "short": module_lab.start(env={"ANTIDRIFT_AI_TIMEOUT": "2"}),
        "patient": module_lab.start(
            data_dir=module_lab.root / "patient", env={"ANTIDRIFT_AI_TIMEOUT": "30"}
        ),
    }


@pytest.mark.parametrize("case", list(CASES))
def test_hostile_cli_is_a_clear_coach_error(servers, sec, module_lab, case):
    script, expected = CASES[case]
    server = servers["short" if case.startswith("hangs") else "patient"]
    pidfile = module_lab.root / f"{case.replace(' ', '-')}.pids"
    module_lab.write_cli(script.replace("PIDFILE", str(pidfile)).replace("MARK", MARK))
    sec.to_planning(server)
    started = time.monotonic()
    assert server.post("/coach", {"intent": "plan my afternoon"})[0] == 200
    state = sec.wait_coach(server, "error", within=10)
    took = time.monotonic() - started
    error = state["coach"]["error"]
    assert error == expected, error
    assert len(error) < 100 and error.isprintable() and "\ufffd" not in error
    assert set(state["coach"]) == {"status", "error"}  # no proposal, no raw output
    page = server.get("/")
    said = expected[:1].upper() + expected[1:]  # the page starts a sentence with a capital
    assert said.replace("'", "&#39;") in page and MARK not in page
    assert MARK not in str(state) and "Traceback" not in page
    assert_within(took, 6, "the error")
    for pid in sec.pids_in(pidfile):
        assert sec.wait_dead(pid, within=2), f"pid {pid} of the hostile CLI survived"
    # The server is fine afterwards: a good CLI works again.
    module_lab.restore_fake()
    assert server.post("/coach", {"intent": "again"})[0] == 200
    assert sec.wait_coach(server, "ready")["coach"]["proposal"]["timebox_secs"] == 40 * 60
