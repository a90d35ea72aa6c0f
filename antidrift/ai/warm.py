"""A claude started ahead of need while the user plans, so a Sharpen skips its start-up.

claude 2.1.332 reads prompts as JSON lines with `--input-format stream-json` and answers
with JSON lines ending in one `{"type": "result", …}` (`--output-format stream-json
--verbose`). Started on entering planning it does its start-up while the user types, then
waits on stdin without touching the network. After each Sharpen it is sent `/clear`
(answered locally, no API call, with a `conversation_reset` line): the next Sharpen's
request holds only its own prompt, as a cold call's does. A process that failed in any way
is stopped and a fresh one started.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass

from antidrift import process
from antidrift.process.warm import Warm, start

log = logging.getLogger("antidrift.ai")

# A fresh process starts this long after a Sharpen's answer, so its start-up (about a CPU
# second) does not compete with putting that answer on the page.
REFILL_DELAY = 0.5
CLEAR_TIMEOUT = 10.0  # /clear is answered locally in 15–160 ms

STREAM_ARGS: tuple[str, ...] = (
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
)


@dataclass(frozen=True)
class Spec:
    """How to start the warm process: the exact call it will answer."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    cwd: str


def stream_argv(argv: list[str]) -> list[str]:
    """A print-mode argv turned into its stream-json twin (same flags otherwise)."""
    out, skip = [], False
    for i, arg in enumerate(argv):
        if skip:
            skip = False
            continue
        if arg == "--output-format" and i + 1 < len(argv):
            skip = True  # replaced by STREAM_ARGS
            continue
        out.append(arg)
    return [*out, *STREAM_ARGS]


CLEAR = "/clear"


def message(prompt: str) -> bytes:
    """The stream-json line that carries one prompt."""
    line = {"type": "user", "message": {"role": "user", "content": prompt}}
    return (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8", errors="replace")


def result_of(line: bytes) -> dict | None:
    """The result object if this output line is claude's last word on a prompt."""
    try:
        data = json.loads(line)
    except ValueError:
        return None
    return data if isinstance(data, dict) and data.get("type") == "result" else None


class Slot:
    """At most one warm claude, started for one exact call, kept only while wanted."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._lock = threading.Lock()
        self._spec: Spec | None = None  # set while wanted
        self._idle: Warm | None = None
        self._idle_spec: Spec | None = None  # what the waiting process was started for
        self.handed_out = 0  # how many calls a warm process served (for tests and benches)

    def want(self, spec: Spec | None) -> None:
        """Keep a process started for spec (None: stop keeping one, and stop it)."""
        with self._lock:
            self._spec = spec
            if self._idle is not None and (spec is None or self._idle_spec != spec):
                # Killed now; reaped off the caller's path (the controller holds its lock).
                idle, self._idle = self._idle, None
                idle.kill()
                threading.Thread(target=idle.stop, name="antidrift-warm-reap", daemon=True).start()
            self._fill()

    def take(self, argv: list[str]) -> tuple[Warm, Spec] | None:
        """The waiting process if it was started for exactly argv, with its spec; it is the
        caller's until give_back()."""
        with self._lock:
            idle, spec, self._idle = self._idle, self._idle_spec, None
            if idle is None or spec is None:
                return None
            if idle.ready and spec.argv == tuple(argv):
                self.handed_out += 1
                return idle, spec
            idle.stop()  # died while waiting, or started for another call
            return None

    def give_back(self, used: Warm, spec: Spec, reusable: bool) -> None:
        """After a Sharpen, off the caller's path: a process that answered is cleared and
        waits again; one that failed is stopped and a fresh one started (if still wanted)."""
        if not reusable:
            used.kill()
        threading.Thread(
            target=self._recycle, args=(used, spec, reusable), name="antidrift-warm", daemon=True
        ).start()

    def _recycle(self, used: Warm, spec: Spec, reusable: bool) -> None:
        if reusable:
            try:
                used.exchange(
                    message(CLEAR),
                    done=lambda line: result_of(line) is not None,
                    timeout=CLEAR_TIMEOUT,
                )
            except process.ProcessError as err:
                log.info("%s: a warm process failed to clear: %s", self.name, err)
                reusable = False
        with self._lock:
            if reusable and self._spec == spec and self._idle is None and used.ready:
                self._idle, self._idle_spec = used, spec
                return
        used.stop()
        time.sleep(REFILL_DELAY)
        with self._lock:
            self._fill()

    @property
    def pid(self) -> int | None:
        """The waiting process's pid (for tests and benchmarks)."""
        with self._lock:
            return self._idle.pid if self._idle is not None else None

    def _fill(self) -> None:
        if self._spec is None or self._idle is not None:
            return
        spec = self._spec
        try:
            self._idle = start(list(spec.argv), env=dict(spec.env), cwd=spec.cwd, name=self.name)
            self._idle_spec = spec
        except process.ProcessError as err:
            log.info("%s: could not start a warm process: %s", self.name, err)
