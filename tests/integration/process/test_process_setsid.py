"""A child that leaves its process group (setsid) is killed with the program that started it
(issue 24: a notifier's setsid child survived the 5 s kill). Real processes: the notifier
through the real notify adapter, and the seam directly."""

from __future__ import annotations

import sys

import pytest

from antidrift.notify import build_notifier
from antidrift.process import TimedOut
from antidrift.process import run as run_cli
from tests.fakes import wait_until

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
# The program: starts the helper, writes its own pid, sleeps (hangs, as a stuck notifier).
PROGRAM = """
subprocess.Popen([os.path.join(os.path.dirname(sys.argv[0]), "helper")])
with open(os.environ["PIDS"], "a") as f:
    f.write(f"{os.getpid()}\\n")
time.sleep(60)
"""


@pytest.fixture
def escaper(write_cli, tmp_path, monkeypatch):
    pidfile = tmp_path / "pids"
    monkeypatch.setenv("PIDS", str(pidfile))  # the children inherit the environment
    write_cli("helper", HELPER)
    program = write_cli("escaper", PROGRAM)

    def pids() -> list[int]:
        def all_three() -> list[int]:
            found = [int(p) for p in pidfile.read_text().split()] if pidfile.exists() else []
            return found if len(found) == 3 else []

        return wait_until(all_three, timeout=10, message="the program never wrote 3 pids")

    return program, pids


def test_a_notifier_whose_helper_left_the_group_with_setsid_is_killed_with_it(escaper, procs):
    program, written = escaper
    build_notifier("command", str(program), timeout=1.5).notify("Time's up", "Write")
    pids = [procs.track(pid) for pid in written()]
    assert all(procs.wait_dead(pid, within=3) for pid in pids), pids


def test_the_seam_kills_a_setsid_child_and_what_is_below_it_at_the_timeout(escaper, procs):
    program, written = escaper
    with pytest.raises(TimedOut):
        run_cli([str(program)], "", timeout=1.5)
    pids = [procs.track(pid) for pid in written()]
    assert all(procs.wait_dead(pid, within=3) for pid in pids), pids
