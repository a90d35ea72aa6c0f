"""ActivityWatch: the newest event of the window watcher's bucket, read from aw-server's API.

Recorded against aw-server 0.12.0: `GET /api/0/buckets/aw-watcher-window_<host>/events?limit=1`
answers `[{"id", "timestamp", "duration", "data": {"app", "title"}}]` (`[]` before the first
heartbeat, 404 with a message for a bucket that does not exist); a watcher's heartbeats
extend the newest event, so `timestamp + duration` is when the watcher last saw that window.
aw-server answers 400 ("host header is invalid") to a Host other than localhost/127.0.0.1.
"""

from __future__ import annotations

import http.client
import io
import socket
import time
import urllib.parse
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from antidrift.core.choices import AW_URL as DEFAULT_URL
from antidrift.core.isotime import from_iso
from antidrift.core.loopback import is_loopback
from antidrift.evidence.probe import ProbeError, Window, load_json, text_field
from antidrift.evidence.tabs import PRIVATE, same_page

TIMEOUT = 2.0  # seconds per request: as long as a tool probe may take
RESPONSE_CAP = 256 * 1024  # bytes; one event is well under 1 KiB
# A watcher that has not extended its newest event for this long has stopped: what it last
# saw is no longer evidence of now (the same 30 s after which health calls evidence stale).
STALE_AFTER = timedelta(seconds=30)
WINDOW_WATCHER = "window watcher (aw-watcher-window, or awatcher on Wayland)"


def bucket_id(hostname: str) -> str:
    """The bucket aw-watcher-window (and awatcher on Wayland) write to."""
    return f"aw-watcher-window_{hostname}"


def parse_events(text: str, now: datetime) -> Window | None:
    """The newest event → (app, title); None before the first one; stale events fail."""
    events = load_json(text, "ActivityWatch answered no JSON")
    if not isinstance(events, list):
        raise ProbeError("ActivityWatch answered no list of events")
    if not events:
        return None
    event = events[0]
    data = event.get("data") if isinstance(event, dict) else None
    if not isinstance(data, dict):
        raise ProbeError("ActivityWatch's newest event has no data")
    try:
        started = from_iso(event["timestamp"], naive=UTC)  # no offset: UTC
        seen = started + timedelta(seconds=float(event.get("duration") or 0))
    except (KeyError, TypeError, ValueError, OverflowError):
        raise ProbeError("ActivityWatch's newest event has no valid timestamp") from None
    if now - seen > STALE_AFTER:
        # Names the last report, not the time since: the text stays the same while the
        # watcher is down, so the sampler logs it once rather than at every sample.
        raise ProbeError(
            "ActivityWatch's window watcher has not reported since"
            f" {seen.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC (is aw-watcher-window or awatcher"
            " running?)"
        )
    app, title = text_field(data.get("app")), text_field(data.get("title"))
    return (app, title) if app or title else None


class ActivityWatchProbe:
    """Reads the window watcher's newest event from aw-server (ANTIDRIFT_AW_URL).

    One plain HTTP/1.1 exchange per read, on loopback only, under one wall-clock deadline
    (connect, request, status line, headers and body alike): a server that trickles any
    part of its answer is cut off when the deadline passes. No proxy, no redirect.
    """

    name = "activitywatch"

    def __init__(
        self,
        url: str = DEFAULT_URL,
        *,
        hostname: str | None = None,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        timeout: float = TIMEOUT,
    ) -> None:
        self.url = url.rstrip("/")
        self.bucket = bucket_id(hostname or socket.gethostname())
        self._now, self._timeout = now, timeout

    def active_window(self) -> Window | None:
        return parse_events(self.newest(self.bucket), self._now())

    def newest(self, bucket: str, watcher: str = WINDOW_WATCHER) -> str:
        """The JSON of a bucket's newest event (`[]` before the first); ProbeError naming the
        watcher to run when the bucket does not exist."""
        path = f"/api/0/buckets/{urllib.parse.quote(bucket, safe='')}/events?limit=1"
        return self._get(path, (bucket, watcher))

    def answers(self) -> bool:
        """Whether an aw-server answers at the URL: a whole answer within the deadline."""
        try:
            self._get("/api/0/info")
        except ProbeError:
            return False
        return True

    def _get(
        self, path: str, bucket: tuple[str, str] | None = None, deadline: float | None = None
    ) -> str:
        """One GET within `deadline` (monotonic; default: the timeout from now): a call of
        several requests passes its one deadline to each."""
        deadline = deadline if deadline is not None else time.monotonic() + self._timeout
        parts = self._target()
        try:
            raw = self._exchange(parts, path, deadline)
        except TimeoutError:
            raise ProbeError(
                f"ActivityWatch at {self.url} did not answer within {self._timeout:g} s"
            ) from None
        except OSError:
            raise ProbeError(
                f"ActivityWatch does not answer at {self.url} (is aw-server running?)"
            ) from None
        try:
            status, body = _parse_response(raw) if raw is not None else (200, b"")
        except (http.client.HTTPException, ValueError):
            # Something else listens there (a wrong port): no HTTP status line, a header line
            # too long, a body cut short. A sentence, not an exception that fails the boot.
            raise ProbeError(
                f"What answers at {self.url} is not aw-server (check ANTIDRIFT_AW_URL)"
            ) from None
        if raw is None or len(body) > RESPONSE_CAP:
            raise ProbeError(f"ActivityWatch answered more than {RESPONSE_CAP // 1024} KiB")
        if status != 200:
            raise ProbeError(self._http_error(status, body, bucket))
        return body.decode("utf-8", errors="replace")

    def _target(self) -> urllib.parse.SplitResult:
        """The URL's parts; a host off this machine is refused before any connection."""
        try:
            parts = urllib.parse.urlsplit(self.url)
            parts.port  # noqa: B018 — a port that is no number raises here
        except ValueError:
            raise ProbeError(f"ANTIDRIFT_AW_URL={self.url} is not a URL") from None
        if parts.scheme != "http" or not parts.hostname:
            raise ProbeError(f"ANTIDRIFT_AW_URL={self.url}: aw-server speaks plain http://")
        if not is_loopback(parts.hostname):
            # Whatever answered there would become evidence and reach the judge.
            raise ProbeError(
                f"ANTIDRIFT_AW_URL={self.url} is not on this machine: AntiDrift reads"
                " ActivityWatch over loopback only (127.0.0.1, ::1 or localhost)"
            )
        return parts

    def _exchange(self, parts, path: str, deadline: float) -> bytes | None:
        """The raw answer (None past the cap), read until the server closes or the body is
        whole; every socket call is bounded by what is left of the deadline."""
        host = parts.hostname
        port = parts.port or 80
        target = parts.path.rstrip("/") + path
        head = (
            f"GET {target} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            "Accept: application/json\r\nConnection: close\r\n\r\n"
        ).encode("ascii", errors="strict")
        with _connect(host, port, deadline) as sock:
            _left(sock, deadline)
            sock.sendall(head)
            raw = b""
            while len(raw) <= RESPONSE_CAP + _HEAD_CAP:
                _left(sock, deadline)
                chunk = sock.recv(16 * 1024)
                if not chunk or _complete(raw := raw + chunk):
                    return raw
            return None

    def _http_error(self, status: int, body: bytes, bucket: tuple[str, str] | None) -> str:
        detail = body[:4096].decode("utf-8", errors="replace")
        if status == 404 and "bucket" in detail and bucket is not None:
            return f"ActivityWatch has no bucket {bucket[0]}: run its {bucket[1]}"
        if status == 400 and "host header" in detail.lower():
            return (
                f"aw-server refused the host in ANTIDRIFT_AW_URL={self.url}:"
                " use http://127.0.0.1:<port> or http://localhost:<port>"
            )
        return f"ActivityWatch answered HTTP {status}"


_HEAD_CAP = 64 * 1024  # bytes of status line and headers on top of the body's cap

# -- the browser watchers (aw-watcher-web) --------------------------------------------------

TAB_BUCKET_TYPE = "web.tab.current"
TAB_BUCKET_PREFIX = "aw-watcher-web-"  # aw-watcher-web-<browser>_<hostname>
BUCKETS_FOR = 60.0  # seconds the list of buckets is reused (a watcher is added rarely)
MAX_BUCKETS = 100  # a browser's watcher buckets considered (a machine has a handful)


def tab_buckets(text: str, browser: str) -> list[str]:
    """The ids of the browser watcher's buckets for one browser, from GET /api/0/buckets/."""
    found = load_json(text, "ActivityWatch answered no JSON")
    if not isinstance(found, dict):
        raise ProbeError("ActivityWatch answered no buckets")
    prefix = f"{TAB_BUCKET_PREFIX}{browser}"
    return sorted(
        bucket
        for bucket, about in found.items()
        if isinstance(about, dict)
        and about.get("type") == TAB_BUCKET_TYPE
        and (bucket == prefix or bucket.startswith(prefix + "_"))
    )[:MAX_BUCKETS]


def tab_of(text: str, title: str) -> str | None:
    """The newest tab event's URL when its title is the focused window's; PRIVATE (tabs.py)
    for an incognito tab; None otherwise."""
    events = load_json(text, "ActivityWatch answered no JSON")
    if not isinstance(events, list) or not events or not isinstance(events[0], dict):
        return None
    data = events[0].get("data")
    if not isinstance(data, dict) or not same_page(title, text_field(data.get("title"))):
        return None
    if data.get("incognito") not in (False, None):
        return PRIVATE  # true, or anything but a plain false: never kept
    return text_field(data.get("url")) or None


class ActivityWatchTabs:
    """The browser's active tab from aw-watcher-web's buckets on aw-server (a tab source)."""

    name = "activitywatch"

    def __init__(self, probe: ActivityWatchProbe, *, clock=time.monotonic) -> None:
        self._probe, self._clock = probe, clock
        self._buckets: dict[str, tuple[float, list[str]]] = {}

    def tab(self, browser: str, title: str) -> str | None:
        """Within one deadline for the whole call, however many buckets answer slowly."""
        deadline = time.monotonic() + self._probe._timeout
        for bucket in self._for(browser, deadline):
            path = f"/api/0/buckets/{urllib.parse.quote(bucket, safe='')}/events?limit=1"
            found = tab_of(self._probe._get(path, deadline=deadline), title)
            if found is not None:
                return found
        return None

    def _for(self, browser: str, deadline: float) -> list[str]:
        kept = self._buckets.get(browser)
        if kept is None or self._clock() - kept[0] > BUCKETS_FOR:
            listed = self._probe._get("/api/0/buckets/", deadline=deadline)
            kept = (self._clock(), tab_buckets(listed, browser))
            self._buckets[browser] = kept
        return kept[1]


def _left(sock: socket.socket, deadline: float) -> None:
    """Bound the next socket call by what is left of the deadline."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    sock.settimeout(left)


def _connect(host: str, port: int, deadline: float) -> socket.socket:
    # `localhost` is resolved, and only its loopback addresses are tried (a hosts file
    # could say otherwise); an address literal is read as one, never looked up in DNS.
    numeric = 0 if host.lower() == "localhost" else socket.AI_NUMERICHOST
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=numeric)
    last: OSError = ConnectionRefusedError()
    for family, kind, proto, _, address in infos:
        if not is_loopback(address[0]):
            continue
        sock = socket.socket(family, kind, proto)
        try:
            _left(sock, deadline)
            sock.connect(address)
            return sock
        except OSError as exc:
            sock.close()
            last = exc
            if isinstance(exc, TimeoutError):
                raise
    raise last


def _complete(raw: bytes) -> bool:
    """Whether the answer is whole by its Content-Length (else it ends when the server
    closes, as `Connection: close` asks)."""
    head, sep, body = raw.partition(b"\r\n\r\n")
    if not sep:
        return False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length" and value.strip().isdigit():
            return len(body) >= int(value)
    return False


class _Recorded:
    """A finished answer, as the socket http.client reads a response from."""

    def __init__(self, raw: bytes) -> None:
        self._raw = raw

    def makefile(self, *_args, **_kwargs) -> io.BytesIO:
        return io.BytesIO(self._raw)


def _parse_response(raw: bytes) -> tuple[int, bytes]:
    """Status and body of a whole HTTP/1.x answer (chunked or not), parsed by http.client."""
    response = http.client.HTTPResponse(_Recorded(raw))  # type: ignore[arg-type]
    response.begin()
    try:
        return response.status, response.read()
    finally:
        response.close()
