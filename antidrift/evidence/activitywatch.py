"""ActivityWatch: the newest event of the window watcher's bucket, read from aw-server's API.

Recorded against aw-server 0.12.0: `GET /api/0/buckets/aw-watcher-window_<host>/events?limit=1`
answers `[{"id", "timestamp", "duration", "data": {"app", "title"}}]` (`[]` before the first
heartbeat, 404 with a message for a bucket that does not exist); a watcher's heartbeats
extend the newest event, so `timestamp + duration` is when the watcher last saw that window.
aw-server answers 400 ("host header is invalid") to a Host other than localhost/127.0.0.1.
"""

from __future__ import annotations

import http.client
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from antidrift.evidence.probe import ProbeError, Window, load_json, text_field

DEFAULT_URL = "http://127.0.0.1:5600"
TIMEOUT = 2.0  # seconds per request: as long as a tool probe may take
RESPONSE_CAP = 256 * 1024  # bytes; one event is well under 1 KiB
# A watcher that has not extended its newest event for this long has stopped: what it last
# saw is no longer evidence of now (the same 30 s after which health calls evidence stale).
STALE_AFTER = timedelta(seconds=30)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # noqa: ANN002, ANN003
        return None  # aw-server never redirects; following one could leave the loopback


def _opener() -> urllib.request.OpenerDirector:
    """No proxies (a proxy for a loopback address is always wrong), no redirects."""
    return urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())


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
        started = datetime.fromisoformat(event["timestamp"])
        if started.tzinfo is None:
            started = started.replace(tzinfo=UTC)
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
    """Reads the window watcher's newest event from aw-server (ANTIDRIFT_AW_URL)."""

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
        self._opener = _opener()

    def active_window(self) -> Window | None:
        path = f"/api/0/buckets/{urllib.parse.quote(self.bucket, safe='')}/events?limit=1"
        return parse_events(self._get(path), self._now())

    def answers(self) -> bool:
        """Whether an aw-server answers at the URL (one short request)."""
        try:
            self._get("/api/0/info")
        except ProbeError:
            return False
        return True

    def _get(self, path: str) -> str:
        request = urllib.request.Request(self.url + path, headers={"Accept": "application/json"})
        try:
            with self._opener.open(request, timeout=self._timeout) as response:
                body = self._read(response)
        except urllib.error.HTTPError as exc:
            raise ProbeError(self._http_error(exc)) from None
        except (http.client.HTTPException, ValueError):
            # Something else listens there (a wrong port): no HTTP status line, a header line
            # too long, a body cut short. A sentence, not an exception that fails the boot.
            raise ProbeError(
                f"What answers at {self.url} is not aw-server (check ANTIDRIFT_AW_URL)"
            ) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, TimeoutError):
                raise ProbeError(
                    f"ActivityWatch at {self.url} did not answer within {self._timeout:g} s"
                ) from None
            raise ProbeError(
                f"ActivityWatch does not answer at {self.url} (is aw-server running?)"
            ) from None
        if len(body) > RESPONSE_CAP:
            raise ProbeError(f"ActivityWatch answered more than {RESPONSE_CAP // 1024} KiB")
        return body.decode("utf-8", errors="replace")

    def _read(self, response) -> bytes:  # noqa: ANN001
        # The timeout bounds each socket read; the deadline bounds a server that drips.
        deadline = time.monotonic() + 2 * self._timeout
        body = b""
        while len(body) <= RESPONSE_CAP:
            if time.monotonic() > deadline:
                raise TimeoutError
            chunk = response.read1(16 * 1024)  # one socket read at most: the deadline holds
            if not chunk:
                break
            body += chunk
        return body

    def _http_error(self, exc: urllib.error.HTTPError) -> str:
        with exc:
            # One socket read at most, like the body: an error page must not drip for long.
            body = getattr(exc, "fp", None)
            raw = body.read1(4096) if body is not None and hasattr(body, "read1") else b""
            detail = raw.decode("utf-8", errors="replace")
        if exc.code == 404 and "bucket" in detail:
            return (
                f"ActivityWatch has no bucket {self.bucket}: run its window watcher"
                " (aw-watcher-window, or awatcher on Wayland)"
            )
        if exc.code == 400 and "host header" in detail.lower():
            return (
                f"aw-server refused the host in ANTIDRIFT_AW_URL={self.url}:"
                " use http://127.0.0.1:<port> or http://localhost:<port>"
            )
        return f"ActivityWatch answered HTTP {exc.code}"
