"""One calendar URL fetched the way the user allowed: https only (redirects too), within a
time and a size, and named in any message by its host alone (a secret iCal address carries
its key in the path)."""

from __future__ import annotations

import ssl
import time
from urllib.parse import urlsplit

from antidrift.core.errors import Error

TIMEOUT = 5.0  # seconds for the whole fetch, redirects included
MAX_BYTES = 5 * 1024 * 1024
CHUNK = 64 * 1024


class FetchFailed(Error):
    """The calendar could not be fetched; the message is a few words for people (503: the
    calendar's server did not give it)."""

    status = 503


def host_of(url: str) -> str:
    """What a message may say of a URL: its host (never the path, which may be a key)."""
    try:
        return urlsplit(url).hostname or "?"
    except ValueError:
        return "?"


def _https_only():
    """A redirect handler that follows https only. urllib.request is imported here, by the
    first fetch, not by every start (issue 33: a server with no calendar URL never needs it)."""
    import urllib.request

    class HttpsOnly(urllib.request.HTTPRedirectHandler):
        max_redirections = 5

        def redirect_request(self, req, fp, code, msg, headers, newurl):
            if urlsplit(newurl).scheme.lower() != "https":
                raise FetchFailed(f"it redirects to a plain http address at {host_of(newurl)}")
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    return HttpsOnly()


def fetch(
    url: str,
    *,
    timeout: float = TIMEOUT,
    max_bytes: int = MAX_BYTES,
    context: ssl.SSLContext | None = None,
) -> bytes:
    """The body of an https URL; FetchFailed when slow, too large, not https or refused."""
    if urlsplit(url).scheme.lower() != "https":
        raise FetchFailed("only https:// addresses are fetched")
    import urllib.request

    deadline = time.monotonic() + timeout
    opener = urllib.request.build_opener(
        _https_only(), urllib.request.HTTPSHandler(context=context or ssl.create_default_context())
    )
    request = urllib.request.Request(
        url, headers={"User-Agent": "AntiDrift", "Accept": "text/calendar"}
    )
    try:
        with opener.open(request, timeout=timeout) as response:
            length = response.headers.get("Content-Length")
            if length and length.isdigit() and int(length) > max_bytes:
                raise FetchFailed(f"it is larger than {max_bytes // (1024 * 1024)} MB")
            body = bytearray()
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise FetchFailed(f"it took longer than {timeout:g} s")
                _set_timeout(response, left)
                chunk = (
                    response.read1(CHUNK) if hasattr(response, "read1") else response.read(CHUNK)
                )
                if not chunk:
                    break
                body += chunk
                if len(body) > max_bytes:
                    raise FetchFailed(f"it is larger than {max_bytes // (1024 * 1024)} MB")
            if time.monotonic() > deadline:
                raise FetchFailed(f"it took longer than {timeout:g} s")
            return bytes(body)
    except FetchFailed:
        raise
    except urllib.error.HTTPError as exc:
        raise FetchFailed(f"the server answered {exc.code}") from None
    except TimeoutError:
        raise FetchFailed(f"it took longer than {timeout:g} s") from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, FetchFailed):
            raise reason from None
        if isinstance(reason, TimeoutError):
            raise FetchFailed(f"it took longer than {timeout:g} s") from None
        if isinstance(reason, ssl.SSLError):
            raise FetchFailed("its certificate is not trusted") from None
        raise FetchFailed(f"it could not be reached ({_words(reason)})") from None
    except (OSError, ValueError) as exc:
        raise FetchFailed(f"it could not be reached ({_words(exc)})") from None


def _set_timeout(response, seconds: float) -> None:
    """Each read waits at most what is left of the whole fetch's time."""
    sock = getattr(getattr(getattr(response, "fp", None), "raw", None), "_sock", None)
    if sock is not None:
        sock.settimeout(max(0.01, seconds))


def _words(reason: object) -> str:
    text = getattr(reason, "strerror", None) or str(reason)
    return " ".join(str(text).split())[:80] or "no answer"
