"""A child that leaves its process group (setsid) is killed with the program that started it
(issue 24: a notifier's setsid child survived the 5 s kill). Real processes: the notifier
through the real notify adapter, and the seam directly."""

from __future__ import annotations

import sys

import pytest

from antidrift.notify import build_notifier
from antidrift.process import TimedOut
from antidrift.process import run as run_cli

pytestmark = pytest.mark.skipif(
    sys.platform != "linux", reason="the process tree is read from /proc"
)

# A helper in a session of its own (so outside our process group), with one more process
# below it; each writes its pid, then sleeps.
HELPER = """
os.setsid()
below = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
with open(os.environ["PIDS"], "a") as f:
    f.write(f"{os.getpid()} {below.pid}\\n")
time.sleep(60)
"""
# The program: starts the helper, waits for its two pids, writes its own, sleeps (hangs, as a
# stuck notifier). Three pids in the file: all three were running before any kill.
PROGRAM = """
subprocess.Popen([os.path.join(os.path.dirname(sys.argv[0]), "helper")])
while not (os.path.exists(os.environ["PIDS"]) and open(os.environ["PIDS"]).read().strip()):
    time.sleep(0.01)
with open(os.environ["PIDS"], "a") as f:
    f.write(f"{os.getpid()}\\n")
time.sleep(60)
"""


@pytest.fixture
def escaper(write_cli, tmp_path, monkeypatch, procs):
    """escaper(run): run(timeout) with the program, at 1.5 s; on a busy machine, where three
    Python starts can take longer than that, again at 5 s and 15 s until all three processes
    were up before the timeout. Their pids."""
    pidfile = tmp_path / "pids"
    monkeypatch.setenv("PIDS", str(pidfile))  # the children inherit the environment
    write_cli("helper", HELPER)
    program = write_cli("escaper", PROGRAM)

    def attempt(run) -> list[int]:
        for timeout in (1.5, 5.0, 15.0):
            pidfile.unlink(missing_ok=True)
            run(program, timeout)
            found = [int(p) for p in pidfile.read_text().split()] if pidfile.exists() else []
            for pid in found:
                procs.track(pid)
            if len(found) == 3:
                return found
        raise AssertionError("the program and its helpers never all started within 15 s")

    return attempt


def test_a_notifier_whose_helper_left_the_group_with_setsid_is_killed_with_it(escaper, procs):
    def notify(program, timeout: float) -> None:
        build_notifier("command", str(program), timeout=timeout).notify("Time's up", "Write")

    pids = escaper(notify)
    assert all(procs.wait_dead(pid, within=3) for pid in pids), pids


def test_the_seam_kills_a_setsid_child_and_what_is_below_it_at_the_timeout(escaper, procs):
    def run(program, timeout: float) -> None:
        with pytest.raises(TimedOut):
            run_cli([str(program)], "", timeout=timeout)

    pids = escaper(run)
    assert all(procs.wait_dead(pid, within=3) for pid in pids), pids
