"""Notifications over the session bus (org.freedesktop.Notifications.Notify, through
jeepney): the texts travel on the user's own socket, never on a command line. Loaded when
build_notifier finds a session bus (antidrift/notify/__init__.py), not at every start."""

from __future__ import annotations

import html
import logging
import time
from typing import TYPE_CHECKING

from antidrift.notify import TIMEOUT, _dbus_text

if TYPE_CHECKING:
    from jeepney import Message

log = logging.getLogger("antidrift.notify")


class DBusNotifier:
    """org.freedesktop.Notifications.Notify over the session bus at `address`: the texts
    travel in a message on the user's own socket, never on a command line. A daemon that
    announces "body-markup" reads the body as markup (<b>, <a href>, <img src>), so for it
    the body is escaped: no text (a next action, a judge's reason from an AI) is ever shown
    as markup. The summary is plain text by the spec."""

    def __init__(self, address: str, *, timeout: float = TIMEOUT) -> None:
        self.address = address
        self.name = "D-Bus"
        self.timeout = timeout

    def notify(self, title: str, body: str) -> None:
        from jeepney.wrappers import DBusErrorResponse

        try:
            self._send(_dbus_text(title), _dbus_text(body))
        except (OSError, ValueError, RuntimeError, DBusErrorResponse) as exc:
            # ConnectionRefused, TimeoutError, an AuthenticationError, no notification daemon
            log.warning("notification not shown: D-Bus: %s", str(exc) or type(exc).__name__)

    def _send(self, title: str, body: str) -> None:
        from jeepney import DBusAddress, new_method_call
        from jeepney.bus_messages import message_bus
        from jeepney.wrappers import unwrap_msg

        notifications = DBusAddress(
            "/org/freedesktop/Notifications",
            bus_name="org.freedesktop.Notifications",
            interface="org.freedesktop.Notifications",
        )
        call = _Bus(self.address, self.timeout)
        try:
            call(message_bus.Hello())
            (capabilities,) = unwrap_msg(call(new_method_call(notifications, "GetCapabilities")))
            if "body-markup" in capabilities:
                body = html.escape(body, quote=False)
            shown = new_method_call(
                notifications,
                "Notify",
                "susssasa{sv}i",
                ("AntiDrift", 0, "", title, body, [], {}, -1),  # -1: the daemon's own expiry
            )
            unwrap_msg(call(shown))
        finally:
            call.close()


class _Bus:
    """One connection to a bus whose every step (connect, authenticate, each reply) is held
    to one deadline: a bus or a daemon that stops answering costs `timeout`, never a thread.
    (jeepney's blocking connection waits for the bus's Hello reply without a bound.)"""

    def __init__(self, address: str, timeout: float) -> None:
        from jeepney import Parser
        from jeepney.bus import get_connectable_addresses
        from jeepney.io.blocking import prep_socket

        self.deadline = time.monotonic() + timeout
        self.sock = prep_socket(next(get_connectable_addresses(address)), timeout=timeout)
        self.parser = Parser()
        self.serial = 0

    def __call__(self, message: Message) -> Message:
        from jeepney import HeaderFields

        self.serial += 1
        self.sock.settimeout(self._left())
        self.sock.sendall(message.serialise(serial=self.serial))
        while True:
            reply = self.parser.get_next_message()
            if reply is None:
                self.sock.settimeout(self._left())
                data = self.sock.recv(65536)
                if not data:
                    raise ConnectionResetError("the bus closed the connection")
                self.parser.add_data(data)
            elif reply.header.fields.get(HeaderFields.reply_serial) == self.serial:
                return reply  # anything else (a signal, NameAcquired) is not ours

    def _left(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no answer in time")
        return left

    def close(self) -> None:
        self.sock.close()
