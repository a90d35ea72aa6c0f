"""The subprocess seam against real child processes: bounds, group kill, cancel, shutdown."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from antidrift import process as process_module
from antidrift.process import (
    CancelScope,
    ProgramMissing,
    RunCancelled,
    TimedOut,
    TooLarge,
    kill_all_running,
)
from antidrift.process import run as run_cli
from tests.support.timing import assert_within

SLEEPER = 'subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])'


def test_prompt_goes_to_stdin_and_stdin_is_closed(write_cli):
    cli = write_cli("echo-cli", "data = sys.stdin.read()\nprint(data.upper(), end='')\n")
    result = run_cli([str(cli)], "héllo\nworld", timeout=5)
    assert (result.stdout, result.stderr, result.returncode) == ("HÉLLO\nWORLD", "", 0)


def test_stdout_and_stderr_and_exit_code_are_kept_apart(write_cli):
    cli = write_cli("both", "print('out'); print('err', file=sys.stderr); sys.exit(3)\n")
    result = run_cli([str(cli)], "", timeout=5)
    assert (result.stdout, result.stderr, result.returncode) == ("out\n", "err\n", 3)


def test_a_cli_that_never_reads_a_big_prompt_does_not_deadlock(write_cli):
    cli = write_cli("deaf", "print('answer')\n")
    started = time.monotonic()
    result = run_cli([str(cli)], "x" * (4 << 20), timeout=10)
    assert result.stdout == "answer\n"
    assert_within(time.monotonic() - started, 5, "the deaf CLI")


def test_invalid_utf8_is_replaced_not_a_crash(write_cli):
    cli = write_cli("bytes", r"sys.stdout.buffer.write(b'ok \xff\xfe end')" + "\n")
    assert run_cli([str(cli)], "", timeout=5).stdout == "ok \ufffd\ufffd end"


def test_missing_executable_is_cli_not_found(fake_bin):
    with pytest.raises(ProgramMissing):
        run_cli([str(fake_bin / "nope")], "", timeout=5, name="nope")


def test_non_executable_file_is_cli_not_found(fake_bin):
    path = fake_bin / "plain"
    path.write_text("not a program")
    with pytest.raises(ProgramMissing):
        run_cli([str(path)], "", timeout=5)


def _vm_hwm_kib() -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def _reset_hwm() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")  # resets the peak-RSS counter
        return True
    except OSError:
        return False


def test_a_25_mib_flood_is_cut_at_the_cap_without_growing_memory(write_cli):
    cli = write_cli(
        "flood",
        "chunk = b'x' * (1 << 20)\nfor _ in range(25):\n    sys.stdout.buffer.write(chunk)\n",
    )
    measurable = _reset_hwm()
    before = _vm_hwm_kib()
    started = time.monotonic()
    with pytest.raises(TooLarge) as err:
        run_cli([str(cli)], "", timeout=10, max_output=1 << 20, name="flood")
    assert_within(time.monotonic() - started, 5, "the flood")
    assert (err.value.name, err.value.limit) == ("flood", 1 << 20)
    after = _vm_hwm_kib()
    if measurable and before is not None and after is not None:
        assert after - before < 10 * 1024, f"peak RSS grew by {after - before} KiB"


def test_output_exactly_at_the_cap_is_fine(write_cli):
    cli = write_cli("exact", "sys.stdout.buffer.write(b'y' * 4096)\n")
    assert len(run_cli([str(cli)], "", timeout=5, max_output=4096).stdout) == 4096
    with pytest.raises(TooLarge):
        run_cli([str(cli)], "", timeout=5, max_output=4095)


def test_stderr_flood_is_drained_and_bounded(write_cli):
    cli = write_cli(
        "noisy",
        "for _ in range(40):\n    sys.stderr.write('e' * 65536)\nprint('fine')\n",
    )
    result = run_cli([str(cli)], "", timeout=10)
    assert result.stdout == "fine\n"
    assert len(result.stderr) <= 64 * 1024


def test_timeout_kills_the_group_even_with_a_grandchild_holding_stdout(write_cli, tmp_path, procs):
    pidfile = tmp_path / "grandchild.pid"
    cli = write_cli(
        "hang",
        f"child = {SLEEPER}\nopen({str(pidfile)!r}, 'w').write(str(child.pid))\ntime.sleep(60)\n",
    )
    started = time.monotonic()
    with pytest.raises(TimedOut) as err:
        run_cli([str(cli)], "", timeout=1.0)
    elapsed = time.monotonic() - started
    grandchild = procs.track(int(procs.wait_for_file(pidfile)))
    assert elapsed >= 1.0
    assert_within(elapsed, 2.5, "the timeout")
    assert err.value.seconds == 1.0
    assert procs.wait_dead(grandchild)


def test_child_exits_but_grandchild_keeps_the_pipe_returns_at_once(write_cli, tmp_path, procs):
    pidfile = tmp_path / "grandchild.pid"
    cli = write_cli(
        "leaky",
        f"child = {SLEEPER}\nopen({str(pidfile)!r}, 'w').write(str(child.pid))\n"
        "print('answer', flush=True)\n",
    )
    started = time.monotonic()
    result = run_cli([str(cli)], "", timeout=10)
    grandchild = procs.track(int(procs.wait_for_file(pidfile)))
    assert result.stdout == "answer\n"
    assert_within(time.monotonic() - started, 2, "the answer")
    assert procs.wait_dead(grandchild)


def _sleeping_cli(write_cli, tmp_path) -> tuple[Path, Path]:
    pidfile = tmp_path / "pids"
    cli = write_cli(
        "sleepy",
        f"child = {SLEEPER}\n"
        f"open({str(pidfile)!r}, 'w').write(f'{{os.getpid()}} {{child.pid}}')\n"
        "time.sleep(60)\n",
    )
    return cli, pidfile


def _run_in_thread(fn) -> tuple[threading.Thread, dict]:
    outcome: dict = {}

    def target():
        started = time.monotonic()
        try:
            outcome["result"] = fn()
        except Exception as err:  # the test inspects it
            outcome["error"] = err
        outcome["elapsed"] = time.monotonic() - started

    thread = threading.Thread(target=target)
    thread.start()
    return thread, outcome


def test_cancel_from_another_thread_kills_cli_and_child(write_cli, tmp_path, procs):
    cli, pidfile = _sleeping_cli(write_cli, tmp_path)
    scope = CancelScope()
    thread, outcome = _run_in_thread(lambda: run_cli([str(cli)], "", timeout=30, scope=scope))
    pids = [procs.track(int(p)) for p in procs.wait_for_file(pidfile).split()]
    cancelled_at = time.monotonic()
    scope.cancel()
    thread.join(5)
    assert not thread.is_alive()
    assert isinstance(outcome.get("error"), RunCancelled)
    assert_within(time.monotonic() - cancelled_at, 1.5, "the cancel")
    assert all(procs.wait_dead(pid) for pid in pids)


def test_a_cancelled_scope_kills_later_attaches_too(write_cli, tmp_path):
    cli, _ = _sleeping_cli(write_cli, tmp_path)
    scope = CancelScope()
    scope.cancel()
    with pytest.raises(RunCancelled):
        run_cli([str(cli)], "", timeout=30, scope=scope)


def test_kill_all_running_kills_a_running_cli(write_cli, tmp_path, procs):
    cli, pidfile = _sleeping_cli(write_cli, tmp_path)
    thread, outcome = _run_in_thread(lambda: run_cli([str(cli)], "", timeout=30))
    pids = [procs.track(int(p)) for p in procs.wait_for_file(pidfile).split()]
    assert kill_all_running() == 1
    thread.join(5)
    assert not thread.is_alive()
    assert isinstance(outcome.get("error"), RunCancelled)
    assert_within(outcome["elapsed"], 5, "the kill")
    assert all(procs.wait_dead(pid) for pid in pids)
    assert process_module._running == {}


def test_finished_calls_leave_the_registry_empty(write_cli):
    cli = write_cli("quick", "print('x')\n")
    run_cli([str(cli)], "", timeout=5)
    with pytest.raises(TimedOut):
        run_cli([str(write_cli("slow", "time.sleep(5)\n"))], "", timeout=0.2)
    assert process_module._running == {}
    assert kill_all_running() == 0
