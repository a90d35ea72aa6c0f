"""Desktop notifications: the notifier port and its adapters (D-Bus, notify-send, osascript,
command).

`ANTIDRIFT_NOTIFY=auto|off|command`. A notification's body (the next action, what was put
away) is private: `auto` never puts it on a command line, where `ps` shows it to every local
user. On Linux it goes over the session bus itself (org.freedesktop.Notifications.Notify,
through jeepney); without a bus it can reach, notify-send shows the title alone. On macOS
osascript reads a script from stdin that holds the texts as code points. Every program runs
through the one subprocess seam (own process group, bounded in time and output, argv only,
never a shell). A notifier never raises and, wrapped in `Background`, never blocks the caller:
a transition must not wait for a notification daemon that hangs. The D-Bus notifier is
dbus.py's, loaded when a session bus is found (issue 40: the footprint).
"""

from __future__ import annotations

import logging
import os
import shlex
import shutil
import stat
import sys
import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

from antidrift.core.choices import NOTIFY_MODES
from antidrift.process import ProcessError, run

# jeepney is imported where a session bus is used, not by every start (issue 33: memory).

log = logging.getLogger("antidrift.notify")

TIMEOUT = 5.0  # seconds: a desktop notifier answers in milliseconds or is stuck
_MAX_OUTPUT = 4096  # its stdout is only logged
_MAX_PENDING = 8  # notifications are rare; more waiting than this means the tool hangs


class Notifier(Protocol):
    """The port: show one desktop notification. Never raises."""

    name: str

    def notify(self, title: str, body: str) -> None: ...


class NoNotifier:
    """Notifications off or impossible: `reason` says why (logged once, at start-up)."""

    def __init__(self, reason: str = "notifications off") -> None:
        self.name = "off"
        self.reason = reason

    def notify(self, title: str, body: str) -> None:
        log.debug("notification not shown (%s): %s", self.reason, title)


class CommandNotifier:
    """Runs `argv + [title, body]`: the base of every adapter and the `command` mode itself."""

    def __init__(
        self, argv: list[str], *, name: str | None = None, timeout: float = TIMEOUT
    ) -> None:
        self.argv = list(argv)
        self.name = name or argv[0]
        self.timeout = timeout

    def command(self, title: str, body: str) -> list[str]:
        """The argument list for one notification: title and body last, as given when the
        command ends its options with `--`, else never beginning with "-"."""
        if self.argv[-1:] != ["--"]:
            # The user's command (`notify-send -a AntiDrift`) would read a next action such
            # as "--help" as an option and show nothing: a leading space keeps it text.
            title, body = _not_an_option(title), _not_an_option(body)
        return [*self.argv, title, body]

    def stdin(self, title: str, body: str) -> str:
        """What the program reads on stdin: nothing, for a command given the texts as argv."""
        return ""

    def notify(self, title: str, body: str) -> None:
        try:
            result = run(
                self.command(title, body),
                self.stdin(title, body),
                timeout=self.timeout,
                max_output=_MAX_OUTPUT,
                name=self.name,
            )
        except ProcessError as exc:
            log.warning("notification not shown: %s", exc)
            return
        if result.returncode != 0:
            log.warning(
                "notification not shown: %s exited %d: %s",
                self.name,
                result.returncode,
                (result.stderr or result.stdout).strip()[:500],
            )


def _not_an_option(text: str) -> str:
    return " " + text if text.startswith("-") else text


def _dbus_text(text: str) -> str:
    """A D-Bus string: valid UTF-8 (a lone surrogate replaced) and no NUL."""
    return text.encode("utf-8", errors="replace").decode("utf-8").replace("\0", "")


def session_bus(env: Mapping[str, str]) -> str | None:
    """The session bus address jeepney can reach: DBUS_SESSION_BUS_ADDRESS, else the socket
    a systemd user session keeps at $XDG_RUNTIME_DIR/bus (libdbus's own fallback)."""
    address = env.get("DBUS_SESSION_BUS_ADDRESS", "").strip()
    if not address and env.get("XDG_RUNTIME_DIR"):
        socket_path = os.path.join(env["XDG_RUNTIME_DIR"], "bus")
        try:
            if stat.S_ISSOCK(os.stat(socket_path).st_mode):
                address = f"unix:path={socket_path}"
        except OSError:
            pass
    if not address:
        return None
    from jeepney.bus import get_connectable_addresses

    try:
        next(get_connectable_addresses(address))
    except (RuntimeError, ValueError, StopIteration):  # tcp:, launchd:, or not an address
        log.info("the session bus address %r is not one AntiDrift can reach", address)
        return None
    return address


class TitleOnly(CommandNotifier):
    """notify-send when there is no session bus AntiDrift can reach: the title alone, since
    anything on its command line is visible to every local user (`ps`)."""

    def command(self, title: str, body: str) -> list[str]:
        return [*self.argv, title]


def notify_send(binary: str = "notify-send", *, timeout: float = TIMEOUT) -> CommandNotifier:
    """libnotify's CLI, title only. `--` ends its options, so a title starting with "-" stays
    text."""
    return TitleOnly([binary, "--app-name=AntiDrift", "--"], name="notify-send", timeout=timeout)


class Osascript(CommandNotifier):
    """macOS: `display notification`. osascript reads the script from stdin (no argument
    given); the texts are in it as lists of code points (`string id {…}`), so its command line
    holds no text and no quote or backslash in a next action can change the AppleScript."""

    def command(self, title: str, body: str) -> list[str]:
        return list(self.argv)

    def stdin(self, title: str, body: str) -> str:
        return f"display notification {_applescript(body)} with title {_applescript(title)}\n"


def _applescript(text: str) -> str:
    """AppleScript text made of digits and commas only, whatever `text` holds."""
    points = [ord(ch) for ch in _dbus_text(text)]
    return f"(string id {{{', '.join(map(str, points))}}})" if points else '""'


def osascript(binary: str = "osascript", *, timeout: float = TIMEOUT) -> CommandNotifier:
    """macOS: `display notification`, the script (with the texts) on osascript's stdin."""
    return Osascript([binary], name="osascript", timeout=timeout)


class Background:
    """Runs a notifier on its own thread: `notify` returns at once and never raises."""

    def __init__(self, inner: Notifier) -> None:
        self.inner = inner
        self.name = inner.name
        self._lock = threading.Lock()
        self._pending = 0
        self._closed = False
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="antidrift-notify")

    def notify(self, title: str, body: str) -> None:
        with self._lock:
            if self._closed or self._pending >= _MAX_PENDING:
                log.warning("notification dropped (%s is not keeping up): %s", self.name, title)
                return
            self._pending += 1
        try:
            self._executor.submit(self._deliver, title, body)
        except RuntimeError:  # shut down under us: the server is stopping
            self._done()

    def _deliver(self, title: str, body: str) -> None:
        try:
            self.inner.notify(title, body)
        except Exception:  # an adapter's bug must not kill the notifier thread's next call
            log.exception("notifier %s failed", self.name)
        finally:
            self._done()

    def _done(self) -> None:
        with self._lock:
            self._pending -= 1

    def shutdown(self, wait: bool = False) -> None:
        """Refuse new notifications; a running one is bounded by its own timeout."""
        with self._lock:
            self._closed = True
        self._executor.shutdown(wait=wait, cancel_futures=True)


def build_notifier(
    mode: str,
    command: str = "",
    *,
    env: Mapping[str, str] | None = None,
    platform: str = sys.platform,
    timeout: float = TIMEOUT,
) -> Notifier:
    """The configured notifier; anything missing or wrong is one log line and NoNotifier."""
    mode = (mode or "auto").strip().lower()
    path = (env or {}).get("PATH")
    if mode == "off":
        log.info("desktop notifications off (the notify setting is off)")
        return NoNotifier()
    if mode == "command":
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            return _without(
                f"the notify_command setting cannot be split like a shell would ({exc})"
            )
        if not argv:
            return _without("the notify setting is command, and notify_command is empty")
        if shutil.which(argv[0], path=path) is None:
            # Still used: the command may appear later, and each failure is logged then.
            log.warning("the notify_command setting: %s was not found", argv[0])
        log.info("desktop notifications: %s", shlex.join(argv))
        return CommandNotifier(argv, timeout=timeout)
    if mode != "auto":
        return _without(f"the notify setting {mode!r} is not one of {', '.join(NOTIFY_MODES)}")
    if platform == "darwin":
        found = shutil.which("osascript", path=path)
        if found:
            log.info("desktop notifications: osascript")
            return osascript(found, timeout=timeout)
        return _without("osascript was not found")
    address = session_bus(env or {})
    if address is not None:
        from antidrift.notify.dbus import DBusNotifier

        log.info("desktop notifications: over the D-Bus session bus")
        return DBusNotifier(address, timeout=timeout)
    found = shutil.which("notify-send", path=path)
    if found:
        log.info(
            "desktop notifications: notify-send, the title alone (no D-Bus session bus: a body"
            " on its command line would be visible to every local user)"
        )
        return notify_send(found, timeout=timeout)
    return _without(
        "no D-Bus session bus and notify-send was not found (install libnotify-bin,"
        " or set the notify setting to command)"
    )


def _without(reason: str) -> NoNotifier:
    log.warning("no desktop notifications: %s", reason)
    return NoNotifier(reason)
