"""The sampling thread: asks the chosen probe for the focused window every few seconds while
a commitment is active, and records it as evidence. A failing probe is logged (once per
distinct message) and counts against the sampler's health; it never reaches the commitment."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime

from antidrift.evidence.probe import ProbeError, WindowProbe

logger = logging.getLogger("antidrift.sampler")

FAILURES_UNTIL_DOWN = 3


class WindowSampler:
    """Records the focused window every `interval` seconds on a daemon thread."""

    def __init__(
        self,
        probe: WindowProbe,
        record: Callable[[str, str, datetime], None],
        *,
        interval: float = 5.0,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        wanted: Callable[[], bool] = lambda: True,
        on_running: Callable[[bool], None] = lambda running: None,
    ) -> None:
        if interval <= 0:
            raise ValueError("interval must be positive")
        self.probe, self.interval = probe, interval
        self._record, self._now, self._wanted = record, now, wanted
        # Told when `running` changes, so the consumer never has to call back into us (the
        # controller shows evidence health from it: no sampler<->controller cycle).
        self._on_running = on_running
        self._told: bool | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._failures = 0
        self._logged: set[str] = set()

    def start(self) -> None:
        """Start sampling on a daemon thread; a no-op when it already runs."""
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="antidrift-sampler", daemon=True)
        self._thread.start()
        self._tell()

    def stop(self, timeout: float = 2.0) -> None:
        """Wake the thread at once and wait for it to end."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self._tell()

    def _tell(self) -> None:
        running = self.running
        if running != self._told:
            self._told = running
            try:
                self._on_running(running)
            except Exception as exc:
                self._log_once(f"reporting the sampler's state failed: {exc!r}", exc)

    @property
    def running(self) -> bool:
        """True while the thread lives and the probe works."""
        alive = self._thread is not None and self._thread.is_alive() and not self._stop.is_set()
        return alive and self._failures < FAILURES_UNTIL_DOWN

    def sample_once(self) -> None:
        """Probe once and record the answer; failures are logged, never raised."""
        if not self._wanted():
            return  # nothing would keep the sample (no active commitment): spawn nothing
        try:
            window = self.probe.active_window()
        except Exception as exc:
            self._failures += 1
            self._log_once(f"window probe {self.probe.name} failed: {exc}", exc)
            self._tell()
            return
        if self._failures >= FAILURES_UNTIL_DOWN:
            logger.info("window probe %s works again", self.probe.name)
        self._failures = 0
        self._tell()
        if window is None:
            return
        exact = getattr(window, "exact", None)  # which window exactly (probe.Focused)
        url = getattr(window, "url", None)  # a browser's active tab (tabs.py)
        extra = {"url": url} if url else {}
        try:
            if exact is None:
                self._record(window[0], window[1], self._now(), **extra)
            else:  # for the teeth: put away only the window this sample saw
                self._record(window[0], window[1], self._now(), exact, **extra)
        except Exception as exc:
            if not getattr(exc, "logged", False):  # e.g. a full disk: the store said so once
                self._log_once(f"recording a window sample failed: {exc!r}", exc)

    def _loop(self) -> None:
        next_at = time.monotonic()
        while not self._stop.is_set():
            self.sample_once()
            next_at = max(next_at + self.interval, time.monotonic())  # no burst after a stall
            if self._stop.wait(next_at - time.monotonic()):
                break

    def _log_once(self, text: str, exc: Exception) -> None:
        if text in self._logged:
            return
        if len(self._logged) >= 100:  # error texts can vary (window ids); stay bounded
            self._logged.clear()
        self._logged.add(text)
        logger.warning("%s", text, exc_info=not isinstance(exc, ProbeError))
