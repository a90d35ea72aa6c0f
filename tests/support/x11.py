"""A real X server for tests: Xvfb on a free display, optionally a real window manager
(openbox), and real X clients (xmessage) with titles of our choosing."""

from __future__ import annotations

import os
import selectors
import shutil
import subprocess
import time

from tests.support.procs import stop

WINDOW_PROGRAM = next((p for p in ("xmessage", "xterm") if shutil.which(p)), "xmessage")
XVFB = ["Xvfb", "-nolisten", "tcp", "-noreset", "-screen", "0", "800x600x24"]
INSTALL = "apt-get install xvfb xdotool x11-utils openbox"


def missing(*more: str) -> list[str]:
    """The tools this machine lacks for the X11 tests (more: e.g. "openbox")."""
    wanted = ("Xvfb", "xdotool", "xprop", WINDOW_PROGRAM, *more)
    return [t for t in wanted if not shutil.which(t)]


def start_xvfb() -> tuple[subprocess.Popen, str]:
    """A fresh Xvfb on a free display number (it reports it via -displayfd) that answers."""
    read_fd, write_fd = os.pipe()
    server = subprocess.Popen(
        [*XVFB, "-displayfd", str(write_fd)],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    try:
        number = b""
        with selectors.DefaultSelector() as sel:
            sel.register(read_fd, selectors.EVENT_READ)
            deadline = time.monotonic() + 10
            while not number.endswith(b"\n") and time.monotonic() < deadline:
                if sel.select(deadline - time.monotonic()):
                    chunk = os.read(read_fd, 16)
                    if not chunk:
                        break
                    number += chunk
    finally:
        os.close(read_fd)
    if not number.strip().isdigit():
        stop(server)
        raise AssertionError(f"Xvfb did not report a display: {number!r}")
    name = f":{number.strip().decode()}"
    deadline = time.monotonic() + 10
    env = {**os.environ, "DISPLAY": name}
    # Xvfb may report its number a moment before a client can connect.
    while subprocess.run(["xprop", "-root", "-len", "0"], capture_output=True, env=env).returncode:
        if time.monotonic() > deadline:
            stop(server)
            raise AssertionError("Xvfb never accepted a client")
        time.sleep(0.05)
    return server, name


def tool(display: str, *argv: str) -> str:
    """A real X11 tool's stdout against this display."""
    env = {**os.environ, "DISPLAY": display}
    return subprocess.run(
        list(argv), capture_output=True, text=True, timeout=10, check=False, env=env
    ).stdout


def start_openbox(display: str) -> subprocess.Popen:
    """openbox managing this display; returns once it manages windows: it names
    _NET_ACTIVE_WINDOW as it claims the screen, and _OB_THEME only after loading its theme
    and fonts. Waiting for the first alone once let a window mapped in between wait past a
    test's patience (CI, under the whole suite's load on a fresh machine)."""
    wm = subprocess.Popen(
        ["openbox", "--sm-disable"],
        env={**os.environ, "DISPLAY": display},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not _managing(tool(display, "xprop", "-root", "_NET_SUPPORTED", "_OB_THEME")):
        if wm.poll() is not None or time.monotonic() > deadline:
            stop(wm)
            raise AssertionError("openbox did not start")
        time.sleep(0.05)
    return wm


def _managing(root: str) -> bool:
    """Whether xprop's answer about the root window says openbox is up (see start_openbox)."""
    return "_NET_ACTIVE_WINDOW" in root and "_OB_THEME(" in root


def open_window(display: str, title: str) -> tuple[subprocess.Popen, str]:
    """A real X client with this title; returns it and its window id once mapped."""
    if WINDOW_PROGRAM == "xmessage":
        argv = ["xmessage", "-name", "antidrift-test", "-title", title, "hello"]
    else:
        argv = ["xterm", "-name", "antidrift-test", "-title", title]
    env = {**os.environ, "DISPLAY": display}
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 10
    while not (ids := tool(display, "xdotool", "search", "--name", f"^{title}$").split()):
        if proc.poll() is not None:
            raise AssertionError(f"{WINDOW_PROGRAM} died: {proc.stderr.read()!r}")
        if time.monotonic() > deadline:
            stop(proc)
            raise AssertionError(f"{WINDOW_PROGRAM} window {title!r} never appeared")
        time.sleep(0.05)
    return proc, ids[0]
