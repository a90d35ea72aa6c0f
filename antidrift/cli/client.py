"""Talks to a running AntiDrift server: finds it through its data directory, asks and posts.

A local API client in the sense of web/security.py: it sends no Origin and no Sec-Fetch
headers, so the server lets it change state as curl or a watcher script may. It goes
straight to the address (no proxy from the environment, no redirects): the server is on
this machine.
"""

from __future__ import annotations

import http.client
import json
import os
import shlex
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from antidrift.core.errors import Error
from antidrift.core.loopback import is_loopback
from antidrift.core.timing import LEFT_HEADER  # the time left while active
from antidrift.store import datalock

STARTS_ONE = "antidrift serve"
# Where `antidrift serve --host 0.0.0.0` listens, a client connects to loopback: the server
# refuses a Host of 0.0.0.0 (it is no local name).
_ANY = {"0.0.0.0": "127.0.0.1", "::": "::1", "[::]": "[::1]"}


class ClientError(Error):
    """A sentence for the person at the keyboard; `exit_code` for the shell."""

    exit_code = 1


class NotRunning(ClientError):
    """No AntiDrift answers: exit 1."""

    exit_code = 1


class ServerRefused(ClientError):
    """The server said no (400, 404, 409 …), in its own sentence: exit 2."""

    exit_code = 2

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class ServerTrouble(ClientError):
    """The server could not do it (a 5xx: the disk is full, it is stopping): exit 3."""

    exit_code = 3

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def server_data_dir(given: str | None) -> Path:
    """The data directory a server would use: --data-dir, ANTIDRIFT_DATA_DIR, the default."""
    from antidrift import settings

    reading = settings.read(data_dir=given)
    refused = [p for p in reading.problems if p.key == "data_dir"]
    if refused:
        raise ClientError(refused[0].message)
    return Path(os.path.abspath(reading.values["data_dir"]))


def starts_one(data_dir: Path, *, data_dir_given: bool = False, url: str | None = None) -> str:
    """The command that starts a server on this data directory (`--data-dir` when one was
    given) and, when the client looked at `url`, at that address: a bare `antidrift serve`
    would start one on the configured port, not where this looked. Empty when `url` is not
    on this machine: no command here starts that one."""
    command = STARTS_ONE + (f" --data-dir {shlex.quote(str(data_dir))}" if data_dir_given else "")
    if url is None:
        return command
    host, port = address(url)
    if not is_loopback(host):
        return ""
    if host not in ("127.0.0.1", "localhost"):  # where serve listens unless told
        command += f" --host {shlex.quote(host)}"
    return f"{command} --port {port}"


def find(url: str | None, data_dir: Path, *, data_dir_given: bool = False) -> str:
    """The server's base URL: `url` when given, else what the data directory's lock records
    (only when it names this machine: a lock file is no reason to talk to another host)."""
    start = starts_one(data_dir, data_dir_given=data_dir_given)
    if url:
        return url
    recorded = datalock.holder_url(data_dir)
    if recorded is None:
        raise NotRunning(
            f"AntiDrift is not running (nothing serves {data_dir}). Start it with: {start}"
        )
    if not recorded:
        raise NotRunning(
            f"AntiDrift runs on {data_dir} but did not record its address (flask run?):"
            " give it with --url."
        )
    try:
        host, _ = address(recorded)
    except NotRunning:
        host = ""
    if not is_loopback(host):
        raise NotRunning(
            f"The lock file in {data_dir} names {recorded!r}, which is not an address on this"
            " machine: AntiDrift did not connect to it. If you mean that server, give it"
            " with --url."
        )
    return recorded


def address(url: str) -> tuple[str, int]:
    """(host, port) of an http:// URL, `serve --host 0.0.0.0`'s meaning loopback;
    NotRunning with a sentence when it is none."""
    try:
        parts = urlsplit(url if "//" in url else f"http://{url}")
        port = parts.port or 80
    except ValueError:  # "http://[::1" or a port of "x" or 99999
        parts, port = None, 0
    if parts is None or parts.scheme != "http" or not parts.hostname:
        raise NotRunning(f"{url!r} is not an http:// address of AntiDrift.")
    return _ANY.get(parts.hostname, parts.hostname), port


class Client:
    """Requests to one server; every failure is a ClientError with a sentence."""

    def __init__(
        self, url: str, *, user_agent: str = "antidrift-cli", starts: str = STARTS_ONE
    ) -> None:
        host, self.port = address(url)
        self.host = host
        self.url = f"http://{'[' + host + ']' if ':' in host else host}:{self.port}/"
        self.user_agent, self.starts = user_agent, starts

    def state(self, tag: str | None = None, wait: float = 0) -> tuple[dict | None, str | None]:
        """GET /state: (state, its tag), or (None, tag) when it still matches `tag` (304);
        with `wait` the server holds the request until a change or that many seconds."""
        query = f"?{urlencode({'wait': f'{wait:g}'})}" if wait and tag else ""
        headers = {"If-None-Match": tag} if tag else {}
        status, body, answer = self._request("GET", "/state" + query, None, headers, wait)
        if status == 304:
            return None, answer.get("ETag") or tag
        return self._checked(status, body, answer, "GET /state"), answer.get("ETag")

    def post(self, path: str, fields: dict[str, object] | None = None) -> dict:
        """POST a JSON object; the state the server answers with."""
        status, body, answer = self._request("POST", path, fields or {}, {}, 0)
        return self._checked(status, body, answer, f"POST {path}")

    def data(self, path: str, fields: dict[str, object] | None = None, *, key: str) -> dict:
        """GET `path` (POST `fields` to it, when given) for a JSON object other than the
        state, which holds `key` (/day.json's shape, say); a refusal as post()'s."""
        method = "GET" if fields is None else "POST"
        status, body, answer = self._request(method, path, fields, {}, 0)
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):
            data = None
        if status in (200, 201) and isinstance(data, dict) and key in data:
            return data
        if status == 404 and method == "GET" and not (isinstance(data, dict) and "error" in data):
            raise ServerRefused(
                f"The running AntiDrift does not know GET {path}: it is older than this command."
                " Restart it after upgrading.",
                status,
            )
        if status in (200, 201):
            raise NotRunning(f"Something at {self.url} answers, but it is not AntiDrift.")
        return self._checked(status, body, answer, f"{method} {path}")  # raises: a refusal

    def _request(
        self, method: str, path: str, fields: dict | None, headers: dict, wait: float
    ) -> tuple[int, bytes, http.client.HTTPMessage]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=10 + wait)
        head = {"User-Agent": self.user_agent, "Accept": "application/json", **headers}
        data = None
        if fields is not None:
            data = json.dumps(fields).encode()
            head["Content-Type"] = "application/json"
        try:
            conn.request(method, path, body=data, headers=head)
            response = conn.getresponse()
            body = response.read(1 << 20)
            return response.status, body, response.headers
        # refused, reset, timed out; ValueError: a header http.client will not send back
        except (OSError, http.client.HTTPException, ValueError) as exc:
            raise NotRunning(
                f"AntiDrift is not running at {self.url} ({_reason(exc)})."
                + (f" Start it with: {self.starts}" if self.starts else "")
            ) from None
        finally:
            conn.close()

    def _checked(self, status: int, body: bytes, headers, what: str) -> dict:
        """The state in the answer, with "left_secs" from its header while active."""
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
            data = None
        sentence = data.get("error") if isinstance(data, dict) else None
        sentence = sentence if isinstance(sentence, str) else None
        if status == 200 and isinstance(data, dict) and "runtime_state" in data:
            if problem := shape_problem(data):
                raise NotRunning(
                    f"Something at {self.url} answers {what}, but not as AntiDrift does"
                    f" ({problem})."
                )
            data.pop("left_secs", None)  # the time left travels in a header, nowhere else
            left = headers.get(LEFT_HEADER, "")
            return {**data, "left_secs": int(left)} if _seconds(left) else data
        if status == 200 or (status == 404 and sentence is None):
            raise NotRunning(f"Something at {self.url} answers, but it is not AntiDrift.")
        if status == 404 and what.startswith("POST"):
            raise ServerRefused(
                f"The running AntiDrift does not know {what}: it is older than this command."
                " Restart it after upgrading.",
                status,
            )
        if status >= 500:
            raise ServerTrouble(sentence or f"AntiDrift answered {status} to {what}.", status)
        raise ServerRefused(sentence or f"AntiDrift refused {what} ({status}).", status)


RUNTIME_STATES = ("locked", "planning", "active", "review")
# What the status line reads from a commitment, and the types it can read them as.
_COMMITMENT_FIELDS = {
    "next_action": str,
    "success_condition": str,
    "timebox_secs": int,
    "extended_secs": int,
}


def shape_problem(state: dict) -> str | None:
    """Why a /state object cannot be what AntiDrift sends, in a few words; None if it can.
    Whatever answers on the port (another program, an older or broken server) must give a
    sentence, never a traceback from the status line."""
    if state.get("runtime_state") not in RUNTIME_STATES:
        return "its runtime_state is none AntiDrift has"
    commitment = state.get("commitment")
    if commitment is not None and not isinstance(commitment, dict):
        return "its commitment is not an object"
    for key, kind in _COMMITMENT_FIELDS.items():
        value = (commitment or {}).get(key)
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
            return f"its commitment's {key} is not {'text' if kind is str else 'a number'}"
    if state.get("drift") is not None and not isinstance(state["drift"], dict):
        return "its drift is not an object"
    return None


def _seconds(text: str) -> bool:
    """A header's value is a count of seconds (ASCII digits only: "²" is a digit to Python)."""
    return text.isascii() and text.isdigit() and len(text) <= 9


def _reason(exc: BaseException) -> str:
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    return str(exc) or type(exc).__name__
