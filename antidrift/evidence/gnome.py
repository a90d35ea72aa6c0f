"""GNOME Shell: the "Focused Window D-Bus" extension, called through gdbus.

The extension (focused-window-dbus@flexagoon.com) exports a method `Get` that returns the
focused window as a JSON string (`title`, `wm_class`, `wm_class_instance`, `pid`, …; `{}` when
nothing has focus). Its README names the object path /org/gnome/Shell/Extensions/FocusedWindow
and interface org.gnome.Shell.Extensions.FocusedWindow, while its code exports
/org/gnome/shell/extensions/FocusedWindow with interface org.gnome.shell.extensions.FocusedWindow
(D-Bus names are case-sensitive): the code's first, then the README's, and the one that
answered is kept.

gdbus (GLib 2.74) prints the reply as a GVariant text tuple: `('<json>',)`, or `("<json>",)`
when the string holds a `'`; inside, `\\`, the quote and unprintable characters are
backslash-escaped (tests/fixtures/evidence/gdbus-*.txt, recorded from a real gdbus). It
converts the text to the locale's charset, so it runs under a UTF-8 locale.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from antidrift.evidence.idle import IdleSource, gdbus_number
from antidrift.evidence.probe import (
    Desktop,
    Fit,
    ProbeError,
    ToolFailed,
    ToolProbe,
    Window,
    desktop_names,
    load_json,
    text_field,
)

OBJECTS = (
    ("/org/gnome/shell/extensions/FocusedWindow", "org.gnome.shell.extensions.FocusedWindow"),
    ("/org/gnome/Shell/Extensions/FocusedWindow", "org.gnome.Shell.Extensions.FocusedWindow"),
)
EXTENSION = 'the "Focused Window D-Bus" GNOME Shell extension (focused-window-dbus@flexagoon.com)'
_NOT_THERE = ("UnknownMethod", "UnknownObject", "UnknownInterface")
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


def argv(path: str, interface: str) -> list[str]:
    """The gdbus call of the extension's Get method at one object path."""
    return [
        "gdbus", "call", "--session", "--dest", "org.gnome.Shell",
        "--object-path", path, "--method", f"{interface}.Get",
    ]  # fmt: skip


def gvariant_string(text: str) -> str:
    """The string inside gdbus's `('…',)` answer, its escapes undone."""
    text = text.strip()
    if not (text.startswith("(") and text.endswith(",)")) or len(text) < 5:
        raise ProbeError("gdbus printed no string reply")
    quoted = text[1:-2]
    quote = quoted[0]
    if quote not in "'\"" or quoted[-1] != quote:
        raise ProbeError("gdbus printed no string reply")
    out: list[str] = []
    body, i = quoted[1:-1], 0
    while i < len(body):
        char = body[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        code = body[i + 1 : i + 2]
        width = {"u": 4, "U": 8}.get(code)
        if width:
            try:
                out.append(chr(int(body[i + 2 : i + 2 + width], 16)))
            except ValueError:
                raise ProbeError("gdbus printed a malformed escape") from None
            i += 2 + width
        else:
            out.append(_ESCAPES.get(code, code))
            i += 2
    return "".join(out)


def parse(text: str) -> Window | None:
    """gdbus's reply → (wm_class, title); None for `{}`."""
    window = load_json(gvariant_string(text), f"{EXTENSION} answered no JSON")
    if not isinstance(window, dict):
        raise ProbeError(f"{EXTENSION} answered no window object")
    app = text_field(window.get("wm_class")) or text_field(window.get("wm_class_instance"))
    title = text_field(window.get("title"))
    return (app, title) if app or title else None


class GnomeProbe(ToolProbe):
    """Asks GNOME Shell over the session bus."""

    name = "gnome"

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        # gdbus prints through the locale's charset: under LANG=C (a service manager's
        # default) "—" comes out as "?". UTF-8 it must be, whatever the server inherited.
        super().__init__({**(os.environ if env is None else env), "LC_ALL": "C.UTF-8"})
        self._objects = list(OBJECTS)  # the one that answered moves to the front

    def active_window(self) -> Window | None:
        missing: ToolFailed | None = None
        for index, (path, interface) in enumerate(self._objects):
            try:
                out = self.out(argv(path, interface))
            except ToolFailed as exc:
                if not any(name in str(exc) for name in _NOT_THERE):
                    raise  # e.g. no GNOME Shell on the bus: the other path will not help
                missing = exc
                continue
            if index:
                self._objects.insert(0, self._objects.pop(index))
            return parse(out)
        raise ProbeError(
            f"GNOME Shell does not offer the focused window: install and enable {EXTENSION}"
            f" ({missing})"
        )


class MutterIdle(ToolProbe):
    """Mutter's idle monitor over the session bus: `GetIdletime` at
    /org/gnome/Mutter/IdleMonitor/Core answers ms; gdbus prints `(uint64 12345,)`."""

    name = "gnome"
    argv = (
        "gdbus", "call", "--session", "--dest", "org.gnome.Mutter.IdleMonitor",
        "--object-path", "/org/gnome/Mutter/IdleMonitor/Core",
        "--method", "org.gnome.Mutter.IdleMonitor.GetIdletime",
    )  # fmt: skip

    def idle_secs(self) -> float:
        return gdbus_number(self.out(self.argv), "GNOME's idle monitor") / 1000


def fits(env: Mapping[str, str], platform: str) -> Fit | None:
    """GNOME by name ("GNOME", "ubuntu:GNOME", "GNOME-Classic", …)."""
    if any(n == "gnome" or n.startswith("gnome-") for n in desktop_names(env)):
        return Fit(f"GNOME (XDG_CURRENT_DESKTOP={env.get('XDG_CURRENT_DESKTOP', '')})")
    return None


DESKTOP = Desktop(
    "gnome",
    GnomeProbe,
    fits,
    "gdbus",
    f"install and enable {EXTENSION}; gdbus comes with GLib (Debian: libglib2.0-bin)",
)
IDLE = IdleSource("gnome", MutterIdle, fits, "gdbus")  # time since the last input
