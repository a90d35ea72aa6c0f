"""The shared runner of HTTP backends (a model server such as ollama or an OpenAI-compatible
one): one JSON POST (or a GET, for doctor), bounded in time and size, cut short by a
CancelScope, its failures as coach errors. No proxy (the environment's proxy must not see
prompts) and no redirect. HttpBackend is the call such a backend makes of it."""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import threading
import urllib.parse
from collections.abc import Callable, Mapping

from antidrift import process
from antidrift.process import CancelScope

from ..errors import (
    Cancelled,
    CLITimeout,
    EmptyResponse,
    OutputTooLarge,
    ServiceDown,
    ServiceFailed,
)
from .base import MAX_ANSWER, Asking, Call
from .diagnose import trim

log = logging.getLogger("antidrift.ai")
PROBE_TIMEOUT = 2.0  # seconds doctor waits for a model server's version or model list


class StatusRefused(ServiceFailed):
    """A model server's error status (400 or more), with its body (`said`, as decoded, up to
    the answer's bound) for a backend that may ask again another way; shown no further than
    ServiceFailed is (the log)."""

    def __init__(self, name: str, status: int, said: str) -> None:
        super().__init__(name, status)
        self.said = said


class _Call:
    """One request's connection, and why it was cut short (if it was)."""

    def __init__(self, url: str, timeout: float) -> None:
        import http.client  # here: a start that reads the settings never loads it (issue 40)

        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http URL: {url!r}")
        kind = (
            http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        )
        self.conn = kind(parts.hostname, parts.port, timeout=max(timeout, 0.001))
        self.path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self.why: str | None = None  # "timeout" or "cancel" once stopped
        self._lock = threading.Lock()

    def stop(self, why: str) -> None:
        """Cut the call short from another thread: the blocked read or write fails at once."""
        with self._lock:
            if self.why is None:
                self.why = why
            sock = self.conn.sock
        if sock is not None:
            with contextlib.suppress(OSError):  # already closed
                sock.shutdown(socket.SHUT_RDWR)

    def connect(self) -> bool:
        """Connect (within the timeout); False when the call was stopped meanwhile, as a
        stop() before the socket existed could not shut it down."""
        self.conn.connect()
        with self._lock:
            return self.why is None


def post_json(
    url: str,
    body: Mapping[str, object],
    *,
    timeout: float,
    scope: CancelScope | None = None,
    headers: Mapping[str, str] | None = None,
    max_bytes: int = MAX_ANSWER,
    name: str = "server",
    expected: Callable[[str], bool] | None = None,
) -> object:
    """POST body as JSON to url; the decoded JSON answer. Raises a CoachError: Cancelled,
    CLITimeout (for the whole call, not each read), ServiceDown (nothing answers there),
    ServiceFailed (no JSON) or StatusRefused (a status of 400 or more), OutputTooLarge. A refusal
    whose body `expected` accepts is logged at INFO, not as a warning: the caller asks again."""
    data = json.dumps(body, ensure_ascii=False).encode("utf-8", errors="replace")
    sent = {"Content-Type": "application/json", **(headers or {})}
    return _call("POST", url, data, sent, timeout, scope, max_bytes, name, expected=expected)


def get_json(
    url: str,
    *,
    timeout: float = PROBE_TIMEOUT,
    headers: Mapping[str, str] | None = None,
    max_bytes: int = 64 * 1024,
    name: str = "server",
) -> object:
    """GET url; the decoded JSON answer, or the CoachError post_json would raise (logged
    for debugging only: doctor asks, and says what it found)."""
    headers = dict(headers or {})
    return _call("GET", url, None, headers, timeout, None, max_bytes, name, logging.DEBUG)


def _call(
    method: str,
    url: str,
    data: bytes | None,
    headers: dict[str, str],
    timeout: float,
    scope: CancelScope | None,
    max_bytes: int,
    name: str,
    level: int = logging.WARNING,
    expected: Callable[[str], bool] | None = None,
) -> object:
    call = _Call(url, timeout)
    sent = {"Accept": "application/json", **headers}
    deadline = threading.Timer(timeout, call.stop, args=("timeout",))
    deadline.daemon = True
    guard = scope.stopping(lambda: call.stop("cancel"), name) if scope else contextlib.nullcontext()
    try:
        with guard:
            deadline.start()
            status, answer, error = _exchange(call, method, data, sent, max_bytes)
    except process.RunCancelled as err:  # the scope was cancelled before the call began
        raise Cancelled() from err
    finally:
        deadline.cancel()
        call.conn.close()
    if call.why == "cancel":
        raise Cancelled()
    # The socket's own timeout (each read) may fire before the deadline's timer thread does.
    if call.why == "timeout" or isinstance(error, TimeoutError):
        log.log(level, "%s: no answer within %g s from %s", name, timeout, url)
        raise CLITimeout(timeout) from error
    if error is not None:
        log.log(level, "%s: no answer from %s: %s", name, url, error)
        raise ServiceDown(name, url) from error
    if len(answer) > max_bytes:
        log.log(level, "%s: the answer exceeded %d bytes; dropped", name, max_bytes)
        raise OutputTooLarge(name, max_bytes)
    text = answer.decode("utf-8", errors="replace")
    if status >= 400:
        if expected is not None and expected(text):
            level = min(level, logging.INFO)
        log.log(level, "%s: HTTP %d from %s: %s", name, status, url, trim(text))
        raise StatusRefused(name, status, text)
    try:
        return json.loads(text)
    except ValueError:
        log.log(level, "%s: the answer is not JSON: %s", name, trim(text))
        raise ServiceFailed(name) from None


def _exchange(
    call: _Call, method: str, data: bytes | None, headers: dict[str, str], max_bytes: int
) -> tuple[int, bytes, Exception | None]:
    """(status, up to max_bytes + 1 of the body, the error that ended it early)."""
    import http.client

    try:
        if not call.connect():
            return 0, b"", None
        call.conn.request(method, call.path, body=data, headers=headers)
        response = call.conn.getresponse()
        return response.status, response.read(max_bytes + 1), None
    except (OSError, http.client.HTTPException) as err:
        return 0, b"", err


class HttpBackend(Asking):
    """What the backends of a model server share: its address stands for the binary, and a
    call posts `request(prompt, schema)` to `url` + `chat` and answers the text `content`
    finds in the reply (stripped; EmptyResponse when there is none). A backend writes
    `request` and `content`, and `headers` when it sends some."""

    name = "server"
    env_var = "ANTIDRIFT_AI_URL"
    chat = ""  # the chat call's path under url
    url = ""

    def binary(self) -> str | None:
        """Nothing on PATH: the server's address stands for it."""
        return self.url

    def headers(self) -> dict[str, str]:
        return {}

    def request(self, prompt: str, schema: Mapping[str, object] | None) -> dict[str, object]:
        raise NotImplementedError

    def content(self, answer: object) -> str | None:
        """The answer's text in the server's reply, None when it sent none; ServiceFailed when
        the reply is not of its shape."""
        raise NotImplementedError

    def ask(self, call: Call) -> str:
        return self.text(self.post(call, self.request(call.prompt, call.schema)))

    def post(
        self,
        call: Call,
        body: Mapping[str, object],
        *,
        timeout: float | None = None,
        expected: Callable[[str], bool] | None = None,
    ) -> object:
        """POST one chat call's body (post_json; within `timeout`, else the call's)."""
        return post_json(
            f"{self.url}{self.chat}",
            body,
            timeout=call.timeout if timeout is None else timeout,
            scope=call.scope,
            headers=self.headers(),
            name=self.name,
            expected=expected,
        )

    def text(self, answer: object) -> str:
        """The answer's text, stripped; EmptyResponse when there is none."""
        content = self.content(answer)
        if not content or not content.strip():
            raise EmptyResponse()
        return content.strip()


def shown(value: object, limit: int = 60) -> str | None:
    """A server's word (a version, a model id) as doctor may print it: printable, one line,
    at most `limit` characters; None when it is not text."""
    if not isinstance(value, str):
        return None
    text = "".join(c for c in value if c.isprintable()).strip()
    if not text:
        return None
    return text if len(text) <= limit else text[: limit - 1] + "…"
