"""A stand-in desktop notification server (org.freedesktop.Notifications, as a daemon such as
dunst or GNOME Shell owns it) on a private session bus: it records every Notify call as one
JSON line, so a test sees what the real notify-send delivered.

Run by the system python3 (it needs python3-dbus and python3-gi, which the project's venv has
not): python3 notification_standin.py <record-file>; "ready" on stdout once the name is owned.
"""

import json
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

RECORD = sys.argv[1]
INTERFACE = "org.freedesktop.Notifications"


class Notifications(dbus.service.Object):
    counter = 0

    @dbus.service.method(INTERFACE, in_signature="susssasa{sv}i", out_signature="u")
    def Notify(self, app, replaces, icon, summary, body, actions, hints, timeout):  # noqa: N802
        Notifications.counter += 1
        with open(RECORD, "a", encoding="utf-8") as f:
            row = {"app": str(app), "summary": str(summary), "body": str(body)}
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
        return dbus.UInt32(Notifications.counter)

    @dbus.service.method(INTERFACE, in_signature="", out_signature="as")
    def GetCapabilities(self):  # noqa: N802
        return ["body"]

    @dbus.service.method(INTERFACE, in_signature="", out_signature="ssss")
    def GetServerInformation(self):  # noqa: N802
        return ("standin", "antidrift-tests", "1.0", "1.2")

    @dbus.service.method(INTERFACE, in_signature="u", out_signature="")
    def CloseNotification(self, notification_id):  # noqa: N802
        pass


dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
name = dbus.service.BusName(INTERFACE, bus)
Notifications(bus, "/org/freedesktop/Notifications")
print("ready", flush=True)
GLib.MainLoop().run()
