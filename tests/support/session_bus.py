"""A private D-Bus session bus (a real dbus-daemon) and the system python3 that runs the
stand-ins on it (python3-dbus and python3-gi are distribution packages, not in our venv)."""

from __future__ import annotations

import os
import selectors
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.procs import stop

INSTALL = (
    "apt-get install --no-install-recommends dbus-daemon dbus-session-bus-common libglib2.0-bin"
    " python3-dbus python3-gi"
)


def system_python() -> str | None:
    """A python3 with python3-dbus and python3-gi (the distribution's, not our venv)."""
    for candidate in (shutil.which("python3"), "/usr/bin/python3"):
        if candidate and os.access(candidate, os.X_OK):
            probe = [candidate, "-c", "import dbus.mainloop.glib, gi.repository.GLib"]
            if subprocess.run(probe, capture_output=True, timeout=30).returncode == 0:
                return candidate
    return None


def read_line(proc: subprocess.Popen, timeout: float = 15.0) -> str:
    """The next line a helper prints, or RuntimeError after timeout."""
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        if not sel.select(timeout):
            raise RuntimeError(f"{proc.args[0]} printed nothing within {timeout:g} s")
    return proc.stdout.readline().decode().strip()


@contextmanager
def private_bus() -> Iterator[tuple[dict[str, str], Path]]:
    """(env with PATH and DBUS_SESSION_BUS_ADDRESS, a scratch folder) while the bus runs."""
    folder = Path(tempfile.mkdtemp(prefix="antidrift-dbus-"))
    daemon = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", f"--address=unix:path={folder}/bus",
         "--print-address=1"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        address = read_line(daemon)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "DBUS_SESSION_BUS_ADDRESS": address}
        yield env, folder
    finally:
        stop(daemon)
        shutil.rmtree(folder, ignore_errors=True)
