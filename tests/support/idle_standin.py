"""A stand-in for a desktop's idle time on a private session bus: GNOME's Mutter IdleMonitor
(`GetIdletime`, ms, at /org/gnome/Mutter/IdleMonitor/Core) or the freedesktop ScreenSaver
(`GetSessionIdleTime`, seconds, at /org/freedesktop/ScreenSaver), answering the idle time
in milliseconds the test writes to a file.

Run by the system python3 (python3-dbus, python3-gi): python3 idle_standin.py mutter|screensaver
<idle-ms-file>; "ready" on stdout once exported."""

import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

KIND, IDLE_FILE = sys.argv[1:3]


def idle_ms() -> int:
    with open(IDLE_FILE, encoding="utf-8") as f:
        return int(f.read().strip())


class Mutter(dbus.service.Object):
    @dbus.service.method("org.gnome.Mutter.IdleMonitor", in_signature="", out_signature="t")
    def GetIdletime(self):  # noqa: N802 — Mutter's method name
        return dbus.UInt64(idle_ms())


class ScreenSaver(dbus.service.Object):
    @dbus.service.method("org.freedesktop.ScreenSaver", in_signature="", out_signature="u")
    def GetSessionIdleTime(self):  # noqa: N802 — the interface's method name
        return dbus.UInt32(idle_ms() // 1000)


dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
if KIND == "mutter":
    name = dbus.service.BusName("org.gnome.Mutter.IdleMonitor", bus)
    Mutter(bus, "/org/gnome/Mutter/IdleMonitor/Core")
else:
    name = dbus.service.BusName("org.freedesktop.ScreenSaver", bus)
    ScreenSaver(bus, "/org/freedesktop/ScreenSaver")
print("ready", flush=True)
GLib.MainLoop().run()
