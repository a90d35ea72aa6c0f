"""A stand-in for GNOME Shell with the "Focused Window D-Bus" extension, on a private session
bus: owns org.gnome.Shell and exports `Get` at one object path, answering like the
extension's extension.js (JSON.stringify of the focused window, "{}" when none).

Run by the system python3 (it needs python3-dbus and python3-gi, which the project's venv has
not): python3 gnome_shell_standin.py <object-path> <interface> <window-json-file>
The test writes the window JSON file to switch windows; "ready" on stdout once exported."""

import json
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

PATH, INTERFACE, WINDOW_FILE = sys.argv[1:4]


class FocusedWindow(dbus.service.Object):
    @dbus.service.method(INTERFACE, in_signature="", out_signature="s")
    def Get(self):  # noqa: N802 — the extension's method name
        with open(WINDOW_FILE, encoding="utf-8") as f:
            window = json.load(f)
        if not window:
            return "{}"
        # The fields extension.js sends (a few of them), compact like JSON.stringify.
        full = {"title": window.get("title"), "wm_class": window.get("wm_class"),
                "wm_class_instance": window.get("wm_class"), "pid": 4242, "id": 2274918779,
                "focus": True, "in_current_workspace": True, "maximized": 0, "display": {},
                "role": None, "area": {}}  # fmt: skip
        return json.dumps(full, separators=(",", ":"), ensure_ascii=False)


dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
name = dbus.service.BusName("org.gnome.Shell", bus)
FocusedWindow(bus, PATH)
print("ready", flush=True)
GLib.MainLoop().run()
