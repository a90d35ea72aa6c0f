"""One calendar URL fetched the way the user allowed: https only, within one deadline for the
whole fetch (from the name's lookup and the connection to the last byte, headers included),
within a size, and named in any message by its host alone (a secret iCal address carries its
key in the path).

A redirect is followed only to the same host and port, over https, and to the very address
the first request reached (the name is looked up once): a calendar's server can move its
calendar, never send AntiDrift to another service on this machine or the network."""

from __future__ import annotations

import contextlib
import http.client
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from urllib.parse import urljoin, urlsplit

from antidrift import process
from antidrift.core.errors import Error

TIMEOUT = 5.0  # seconds for the whole fetch, redirects included
MAX_BYTES = 5 * 1024 * 1024
MAX_REDIRECTS = 5
CHUNK = 64 * 1024
_MOVED = (301, 302, 303, 307, 308)


class FetchFailed(Error):
    """The calendar could not be fetched; the message is a few words for people (503: the
    calendar's server did not give it)."""

    status = 503


def host_of(url: str) -> str:
    """What a message may say of a URL: its host (never the path, which may be a key), when
    it is a plain host name of at most 60 characters (a redirect's is the server's choice)."""
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        host = ""
    plain = all(c.isalnum() or c in ".-_:" for c in host)
    return host if host and len(host) <= 60 and plain else "another address"


def fetch(
    url: str,
    *,
    timeout: float = TIMEOUT,
    max_bytes: int = MAX_BYTES,
    context: ssl.SSLContext | None = None,
    scope: process.CancelScope | None = None,
) -> bytes:
    """The body of an https URL; FetchFailed when slow, too large, not https or refused;
    process.RunCancelled when the scope is cancelled meanwhile (its socket is shut at once)."""
    first = _parts(url)
    if first is None:
        raise FetchFailed("only https:// addresses are fetched")
    host, port, _ = first
    deadline = time.monotonic() + timeout
    context = context or ssl.create_default_context()
    try:
        address = _lookup(host, port, deadline, timeout)
        for _ in range(MAX_REDIRECTS + 1):
            status, location, body = _get(
                address, url, context, deadline, timeout, max_bytes, scope
            )
            if status not in _MOVED:
                if status != 200:
                    raise FetchFailed(f"the server answered {status}")
                return body
            url = _moved(url, location)
        raise FetchFailed("it redirects too many times")
    except FetchFailed:
        raise
    except process.RunCancelled:
        raise
    except ssl.SSLCertVerificationError:
        raise FetchFailed("its certificate is not trusted") from None
    except TimeoutError:
        raise FetchFailed(f"it took longer than {timeout:g} s") from None
    except (OSError, ssl.SSLError, ValueError, http.client.HTTPException) as exc:
        # A socket shut at the deadline or by the scope ends the read in any of these.
        if time.monotonic() >= deadline:
            raise FetchFailed(f"it took longer than {timeout:g} s") from None
        if scope is not None and scope.cancelled:
            raise process.RunCancelled("calendar fetch") from None
        if isinstance(exc, http.client.HTTPException):  # a status line or chunk of no HTTP
            raise FetchFailed("its server's answer is not HTTP") from None
        raise FetchFailed(f"it could not be reached ({_words(exc)})") from None


def _parts(url: str) -> tuple[str, int, str] | None:
    """An https URL's host, port and request target; None for anything else."""
    try:
        parts = urlsplit(url)
        if parts.scheme.lower() != "https" or not parts.hostname:
            return None
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        return parts.hostname, parts.port or 443, target
    except ValueError:
        return None


def _moved(url: str, location: str | None) -> str:
    """Where a redirect leads, if it may be followed: https, the same host and port."""
    if not location:
        raise FetchFailed("it redirects to no address")
    target = urljoin(url, location)
    if urlsplit(target).scheme.lower() != "https":
        raise FetchFailed(f"it redirects to a plain http address at {host_of(target)}")
    here, there = _parts(url), _parts(target)
    if there is None or (there[0].lower(), there[1]) != (here[0].lower(), here[1]):
        raise FetchFailed("it redirects to another server")
    return target


def _lookup(host: str, port: int, deadline: float, timeout: float) -> tuple:
    """The address to connect to, looked up once (on a thread: a lookup that hangs is left
    behind at the deadline, never waited for)."""
    found: list = []

    def look() -> None:
        try:
            found.append(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except OSError as exc:
            found.append(exc)

    thread = threading.Thread(target=look, name="antidrift-calendar-lookup", daemon=True)
    thread.start()
    thread.join(max(0.0, deadline - time.monotonic()))
    if not found:
        raise FetchFailed(f"it took longer than {timeout:g} s")
    if isinstance(found[0], OSError):
        raise found[0]
    return found[0][0][4]


def _get(address, url, context, deadline, timeout, max_bytes, scope):
    """One GET at `address`: (status, Location, body). The socket is shut when the deadline
    passes or the scope is cancelled, so no read (a header line included) outlives either."""
    host, port, target = _parts(url)
    left = deadline - time.monotonic()
    if left <= 0:
        raise FetchFailed(f"it took longer than {timeout:g} s")
    held = [socket.create_connection(address[:2], timeout=left)]
    with _shut_at(held, deadline, scope):
        held.append(context.wrap_socket(held[0], server_hostname=host))  # it takes the fd
        tls = held[-1]
        connection = http.client.HTTPSConnection(host, port, context=context)
        connection.sock = tls
        try:
            connection.request(
                "GET",
                target,
                headers={"User-Agent": "AntiDrift", "Accept": "text/calendar"},
            )
            response = connection.getresponse()
            if response.status in _MOVED:
                return response.status, response.getheader("Location"), b""
            if response.status != 200:
                return response.status, None, b""
            length = response.getheader("Content-Length") or ""
            if length.isdigit() and int(length) > max_bytes:
                raise FetchFailed(f"it is larger than {max_bytes // (1024 * 1024)} MB")
            body = bytearray()
            while chunk := response.read1(CHUNK):
                body += chunk
                if len(body) > max_bytes:
                    raise FetchFailed(f"it is larger than {max_bytes // (1024 * 1024)} MB")
            if time.monotonic() >= deadline:
                raise FetchFailed(f"it took longer than {timeout:g} s")
            if response.length:  # the server closed before the length it announced
                raise FetchFailed("its server stopped before the end of it")
            return 200, None, bytes(body)
        finally:
            connection.close()


@contextlib.contextmanager
def _shut_at(held: list[socket.socket], deadline: float, scope) -> Iterator[None]:
    """While inside: the socket (the last in `held`: TLS takes the plain one's place) is shut
    down at the deadline (monotonic), or when the scope is cancelled (a blocked read returns
    at once)."""

    def shut() -> None:
        with contextlib.suppress(OSError):
            held[-1].shutdown(socket.SHUT_RDWR)

    timer = threading.Timer(max(0.0, deadline - time.monotonic()), shut)
    timer.daemon = True
    timer.start()
    try:
        if scope is None:
            yield
        else:
            with scope.stopping(shut, "calendar fetch"):
                yield
    finally:
        timer.cancel()
        held[-1].close()


def _words(reason: object) -> str:
    text = getattr(reason, "strerror", None) or str(reason)
    return " ".join(str(text).split())[:80] or "no answer"
