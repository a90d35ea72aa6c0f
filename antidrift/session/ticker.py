"""Once a second: end an expired timebox, and let the hub push clocks that moved."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger("antidrift.ticker")


class Ticker:
    """A daemon thread calling each callback every `interval` seconds, on the second."""

    def __init__(self, *callbacks: Callable[[], object], interval: float = 1.0) -> None:
        self._callbacks = callbacks
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="antidrift-ticker", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.wait(self._interval - time.time() % self._interval):
            for callback in self._callbacks:
                try:
                    callback()
                except Exception as exc:  # the clock must keep running whatever one tick did
                    # A failure its source has logged (the disk is full) is not logged again
                    # every second: the tick simply retries until it succeeds.
                    if not getattr(exc, "logged", False):
                        log.exception("tick failed")
