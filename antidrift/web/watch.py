"""`GET /state` as a conditional request that can wait: the command line's `--follow`.

Each answer carries an ETag of the state. A client that sends it back in If-None-Match gets
304 at once, or, with `?wait=N`, the request is held until the state differs (then 200 and
the new state) or N seconds pass (then 304, and the client asks again). So a follower costs
one request per change, and one per MAX_WAIT while nothing changes. The countdown is no part
of the state's body: it travels in a header (timing.LEFT_HEADER) and the client counts
it down by itself.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable

from antidrift.web.errors import Refused

MAX_WAIT = 300  # seconds one request may be held; the client asks again after a 304
MAX_WAITERS = 32  # held requests at once: each holds a server thread
# A state can change with no transition (evidence going stale): look again this often.
RECHECK = 5.0


def tag_of(state: dict[str, object]) -> str:
    """The state's validator: it changes when the state does (the countdown is no part of
    it: it travels in a header, timing.LEFT_HEADER)."""
    digest = hashlib.blake2b(json.dumps(state, sort_keys=True).encode(), digest_size=12)
    return f'"{digest.hexdigest()}"'


class StateWatch:
    """Wakes held `/state` requests when the controller reports a change."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._version = 0  # counts changes, so one between a look and the wait is not lost
        self._waiters = 0

    def changed(self) -> None:
        """The controller's listener: something changed, look again."""
        with self._changed:
            self._version += 1
            self._changed.notify_all()

    def answer(
        self,
        state: Callable[[], dict[str, object]],
        known: str | None,
        wait: float,
        stopping: threading.Event,
    ) -> tuple[dict[str, object] | None, str]:
        """The state to send and its tag, or (None, tag) for a 304: `known` is the client's
        If-None-Match; while it matches, wait up to `wait` seconds (at most MAX_WAIT)."""
        current = state()
        tag = tag_of(current)
        if known != tag:
            return current, tag
        if wait > 0:
            changed = self.wait(state, tag, min(wait, MAX_WAIT), stopping)
            if changed is not None:
                return changed, tag_of(changed)
            if stopping.is_set():
                # Not a 304: the client would ask again at once, and find the server going.
                raise Refused(503, "AntiDrift is stopping.")
        return None, tag

    def wait(
        self,
        state: Callable[[], dict[str, object]],
        tag: str,
        seconds: float,
        stopping: threading.Event,
    ) -> dict[str, object] | None:
        """The state once its tag differs from `tag`; None after `seconds` or at shutdown."""
        with self._changed:
            if self._waiters >= MAX_WAITERS:
                raise Refused(503, "Too many clients are waiting for a change; try again.")
            self._waiters += 1
        deadline = time.monotonic() + seconds
        try:
            while True:
                with self._changed:
                    seen = self._version
                current = state()
                if tag_of(current) != tag:
                    return current
                looked = time.monotonic()
                # Sleep until a change, the recheck or the deadline; every second notice a
                # shutdown (a held request must not hold the server's exit).
                with self._changed:
                    while self._version == seen and not stopping.is_set():
                        now = time.monotonic()
                        if now >= deadline or now - looked >= RECHECK:
                            break
                        self._changed.wait(min(deadline - now, 1.0))
                if stopping.is_set() or time.monotonic() >= deadline:
                    current = state()
                    return current if tag_of(current) != tag else None
        finally:
            with self._changed:
                self._waiters -= 1
