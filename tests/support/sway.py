"""A real sway, headless, run as an unprivileged user (sway refuses to run as root), with real
Wayland clients (foot) of known app_ids."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from tests.support import procs

INSTALL = "apt-get install --no-install-recommends sway foot"
CONFIG = "output HEADLESS-1 resolution 1280x800\nxwayland disable\n"


def missing() -> str | None:
    """What this machine lacks to run the real sway tests, or None."""
    absent = [tool for tool in ("sway", "swaymsg", "foot") if not shutil.which(tool)]
    if absent:
        return f"{', '.join(absent)} not installed: {INSTALL}"
    if os.geteuid() == 0 and _nobody() is None:
        return "no unprivileged user 'nobody' to run sway as (sway refuses to run as root)"
    return None


def _nobody() -> pwd.struct_passwd | None:
    try:
        return pwd.getpwnam("nobody")
    except KeyError:
        return None


class HeadlessSway:
    """sway with WLR_BACKENDS=headless in a fresh 0700 XDG_RUNTIME_DIR of its user."""

    def __init__(self) -> None:
        self.base = Path(tempfile.mkdtemp(prefix="antidrift-sway-"))
        self.base.chmod(0o755)  # the unprivileged user reads the config in here
        user = _nobody() if os.geteuid() == 0 else None
        self.uid = user.pw_uid if user else os.geteuid()
        self.gid = user.pw_gid if user else os.getegid()
        self.runtime = self.base / "run"
        self.runtime.mkdir(mode=0o700)
        os.chown(self.runtime, self.uid, self.gid)
        config = self.base / "config"
        config.write_text(CONFIG)
        config.chmod(0o644)
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.runtime),
            "XDG_RUNTIME_DIR": str(self.runtime),
            "WLR_BACKENDS": "headless",
            "WLR_LIBINPUT_NO_DEVICES": "1",
            "WLR_RENDERER": "pixman",
        }
        self._log = open(self.base / "sway.log", "wb")  # noqa: SIM115 — open while it runs
        self.clients: list[subprocess.Popen] = []
        self.proc = self._spawn(["sway", "-c", str(config)], self.env)
        self.swaysock, self.wayland_display = self._wait_for_sockets()

    def _spawn(self, argv: list[str], env: dict[str, str]) -> subprocess.Popen:
        as_user = {}
        if self.uid != os.geteuid():
            as_user = {"user": self.uid, "group": self.gid, "extra_groups": []}
        return subprocess.Popen(
            argv, env=env, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True, **as_user,
        )  # fmt: skip

    def _wait_for_sockets(self, timeout: float = 20.0) -> tuple[str, str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ipc = sorted(self.runtime.glob("sway-ipc.*.sock"))
            wayland = sorted(p for p in self.runtime.glob("wayland-*") if p.suffix != ".lock")
            if ipc and wayland:
                return str(ipc[0]), wayland[0].name
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        log = (self.base / "sway.log").read_text(errors="replace")[-2000:]
        raise RuntimeError(f"headless sway did not start:\n{log}")

    def session_env(self) -> dict[str, str]:
        """The variables a program started inside this sway session would see."""
        return {
            "PATH": self.env["PATH"],
            "WAYLAND_DISPLAY": self.wayland_display,
            "SWAYSOCK": self.swaysock,
            "XDG_CURRENT_DESKTOP": "sway",
            "XDG_SESSION_TYPE": "wayland",
        }

    def open_window(self, app_id: str, title: str) -> subprocess.Popen:
        """A real Wayland client (foot) with this app_id and title; sway focuses it."""
        env = {**self.env, "WAYLAND_DISPLAY": self.wayland_display}
        client = self._spawn(["foot", "--app-id", app_id, "--title", title, "sleep", "600"], env)
        self.clients.append(client)
        return client

    def msg(self, *args: str) -> str:
        """swaymsg against this sway (as the test's own user: the socket accepts root too)."""
        argv = ["swaymsg", "-s", self.swaysock, *args]
        return subprocess.run(argv, capture_output=True, text=True, timeout=10, check=True).stdout

    def stop(self) -> None:
        for proc in [*self.clients, self.proc]:
            procs.stop(proc)
        self._log.close()
        shutil.rmtree(self.base, ignore_errors=True)
