"""Whether a host is this machine: the one test of "loopback" for every address AntiDrift
checks (the AI server's URL, ActivityWatch's, the address `serve` listens on, the Host a
page was opened under)."""

from __future__ import annotations

import ipaddress
import socket


def is_loopback(host: str) -> bool:
    """`localhost` or a loopback address: 127.0.0.0/8 (in any form the resolver reads without
    DNS, e.g. 127.1) or ::1, an IPv6 literal's brackets allowed. Anything else is not, and
    neither is a host with a space or a control character in it (inet_aton would read
    `127.0.0.1 evil.example` as 127.0.0.1 and ignore the rest)."""
    if not host or not host.isprintable() or any(c.isspace() for c in host):
        return False
    name = host.lower()
    name = name[1:-1] if name.startswith("[") and name.endswith("]") else name
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        pass
    try:
        return ipaddress.ip_address(socket.inet_aton(name)).is_loopback
    except OSError:
        return False
