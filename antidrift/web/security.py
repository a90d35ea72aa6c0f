"""Refuse what a web page on another origin could make the browser send to 127.0.0.1."""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from flask import Flask, request

from antidrift.core.loopback import is_loopback
from antidrift.web.errors import Refused

LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# Reads that start processes (the user's task CLIs): another site must not trigger them.
SPAWNING_READS = frozenset({"/ws", "/tasks"})

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
    " media-src 'self'; connect-src 'self'; manifest-src 'self'; form-action 'self';"
    " base-uri 'none'; frame-ancestors 'none'"
)


# A Host header: a bracketed IPv6 literal or a name, then an optional numeric port.
_HOST = re.compile(r"(?:\[(?P<ip6>[0-9a-f:.]+)\]|(?P<name>[^:\[\]@/\s]+))(?::[0-9]{1,5})?")


def host_name(host: str) -> str:
    """The name part of a Host header (port and IPv6 brackets removed), lower-cased; "" for a
    malformed one (e.g. `127.0.0.1:80.evil.com`, which a split on ':' would take as loopback)."""
    match = _HOST.fullmatch(host.strip().lower())
    if match is None:
        return ""
    return match["ip6"] or match["name"]


def is_local_host(name: str, extra: Iterable[str] = ()) -> bool:
    if not name:
        return False
    if name in LOCAL_NAMES or name in extra or name.endswith(".localhost"):
        return True
    return is_loopback(name)


def check_request(allowed_hosts: Iterable[str]) -> None:
    """Host allowlist (DNS rebinding) and same-origin check (CSRF, websocket hijacking)."""
    host = request.headers.get("Host", "")
    if not host or not is_local_host(host_name(host), allowed_hosts):
        raise Refused(403, "This server only answers to its local address.")
    if request.method in SAFE_METHODS and request.path not in SPAWNING_READS:
        return
    if request.headers.get("Sec-Fetch-Site", "").lower() == "cross-site":
        raise Refused(403, "Requests from other sites are refused.")
    origin = request.headers.get("Origin")
    if origin is None:
        return  # a local API client (curl, a watcher script): no browser sent this
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or parts.netloc.lower() != host.strip().lower():
        raise Refused(403, "Requests from other origins are refused.")


def _too_large(limit: int) -> Refused:
    return Refused(413, f"The request is too large (at most {limit // 1024} KiB).")


def check_body() -> None:
    """Refuse a body over MAX_CONTENT_LENGTH before any handler runs, including handlers that
    never read their body (werkzeug only enforces the cap when a body is read)."""
    limit = request.max_content_length
    if limit is None or request.method in SAFE_METHODS:
        return
    if request.content_length is not None:
        if request.content_length > limit:
            raise _too_large(limit)
        return
    # No Content-Length (chunked): werkzeug would silently cut the body at the cap, so read
    # it here, one byte past the cap at most, and let the route parse an in-memory copy.
    if not request.environ.get("wsgi.input_terminated"):
        return  # werkzeug reads nothing from such a stream
    data = request.environ["wsgi.input"].read(limit + 1)
    if len(data) > limit:
        raise _too_large(limit)
    request.environ["wsgi.input"] = io.BytesIO(data)


def install(app: Flask, allowed_hosts: Iterable[str]) -> None:
    extra = frozenset(allowed_hosts)

    @app.before_request
    def _check() -> None:
        check_request(extra)
        check_body()

    @app.after_request
    def _headers(response):
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        # same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` on a
        # plain form post (no script), which the origin check then refuses.
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
        response.headers.setdefault("Cross-Origin-Resource-Policy", "same-origin")
        if response.mimetype == "text/html" or response.is_json:
            response.headers.setdefault("Cache-Control", "no-store")
        return response
