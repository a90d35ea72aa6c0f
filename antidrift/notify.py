"""Desktop notifications: the notifier port and its adapters (notify-send, osascript, command).

`ANTIDRIFT_NOTIFY=auto|off|command`. Every adapter runs its program through the one subprocess
seam (own process group, bounded in time and output, argv only, never a shell). A notifier
never raises and, wrapped in `Background`, never blocks the caller: a transition must not
wait for a notification daemon that hangs.
"""

from __future__ import annotations

import html
import logging
import shlex
import shutil
import sys
import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

from antidrift.process import ProcessError, run

log = logging.getLogger("antidrift.notify")

NOTIFY_MODES = ("auto", "off", "command")
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

    def notify(self, title: str, body: str) -> None:
        try:
            result = run(
                self.command(title, body),
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


class NotifySend(CommandNotifier):
    """libnotify's CLI. Daemons that announce "body-markup" read the body as markup (<b>,
    <a href>, <img src>), so the body is escaped: no text (a next action, a judge's reason
    from an AI) is ever shown as markup. The summary is plain text by the spec."""

    def command(self, title: str, body: str) -> list[str]:
        return super().command(title, html.escape(body, quote=False))


def notify_send(binary: str = "notify-send", *, timeout: float = TIMEOUT) -> CommandNotifier:
    """libnotify's CLI. `--` ends its options, so a title starting with "-" stays text."""
    return NotifySend([binary, "--app-name=AntiDrift", "--"], name="notify-send", timeout=timeout)


# The texts travel as osascript's argv, never inside the script, so no quote or backslash in
# a next action can change the AppleScript.
_APPLESCRIPT = (
    "on run argv",
    "display notification (item 2 of argv) with title (item 1 of argv)",
    "end run",
)


def osascript(binary: str = "osascript", *, timeout: float = TIMEOUT) -> CommandNotifier:
    """macOS: `display notification`, the texts passed as the script's arguments."""
    argv = [binary]
    for line in _APPLESCRIPT:
        argv += ["-e", line]
    return CommandNotifier([*argv, "--"], name="osascript", timeout=timeout)


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
        log.info("desktop notifications off (ANTIDRIFT_NOTIFY=off)")
        return NoNotifier()
    if mode == "command":
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            return _without(f"ANTIDRIFT_NOTIFY_COMMAND cannot be split like a shell would ({exc})")
        if not argv:
            return _without("ANTIDRIFT_NOTIFY=command needs ANTIDRIFT_NOTIFY_COMMAND")
        if shutil.which(argv[0], path=path) is None:
            # Still used: the command may appear later, and each failure is logged then.
            log.warning("ANTIDRIFT_NOTIFY_COMMAND: %s was not found", argv[0])
        log.info("desktop notifications: %s", shlex.join(argv))
        return CommandNotifier(argv, timeout=timeout)
    if mode != "auto":
        return _without(f"ANTIDRIFT_NOTIFY={mode!r} is not one of {', '.join(NOTIFY_MODES)}")
    if platform == "darwin":
        found = shutil.which("osascript", path=path)
        if found:
            log.info("desktop notifications: osascript")
            return osascript(found, timeout=timeout)
        return _without("osascript was not found")
    found = shutil.which("notify-send", path=path)
    if found:
        log.info("desktop notifications: notify-send")
        return notify_send(found, timeout=timeout)
    return _without(
        "notify-send was not found (install libnotify-bin, or set ANTIDRIFT_NOTIFY=command)"
    )


def _without(reason: str) -> NoNotifier:
    log.warning("no desktop notifications: %s", reason)
    return NoNotifier(reason)
