"""The composition root: builds the real store, coach and evidence source from a Config."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field

from antidrift import ai
from antidrift.clock import Clock, SystemClock
from antidrift.config import Config
from antidrift.datalock import DataDirLock, acquire
from antidrift.domain import RuntimeState
from antidrift.notify import Background, build_notifier
from antidrift.sampler import WindowSampler, choose_probe
from antidrift.session import Controller
from antidrift.store import SQLiteStore, Store

log = logging.getLogger("antidrift")


@dataclass(frozen=True)
class CoachInfo:
    """What the page says about the coach: which backend, and how to fix it if missing."""

    name: str | None
    problem: str | None = None
    backend: ai.Backend | None = field(default=None, compare=False, repr=False)

    def binary_found(self) -> bool:
        return self.backend is not None and self.backend.binary() is not None

    @property
    def env_var(self) -> str:
        return self.backend.env_var if self.backend is not None else ""

    @property
    def tuning(self) -> str:
        """The model and effort the coach asks for ("haiku, low effort"); "" for a command."""
        tuning = getattr(self.backend, "tuning", None)
        return str(tuning) if tuning is not None else ""


@dataclass
class Runtime:
    """The long-lived collaborators the web layer serves."""

    controller: Controller
    store: Store
    clock: Clock
    coach_info: CoachInfo
    sampler: WindowSampler | None = None
    notifier: Background | None = None  # the notifier port, for every role that speaks
    shutting_down: threading.Event = field(default_factory=threading.Event)
    # Held for the process's life: one server per data directory, whatever the entry point.
    lock: DataDirLock | None = None


def build_coach(config: Config) -> tuple[ai.Service | None, CoachInfo]:
    """The configured coach, or None with a reason the page and the log can show."""
    try:
        backend = ai.new_backend(config.ai_backend, config.env)
    except ai.UnknownBackend as exc:
        log.warning("running without a coach: %s", exc)
        return None, CoachInfo(None, f"{exc}")
    tuning = getattr(backend, "tuning", None)
    for warning in tuning.warnings if tuning is not None else ():
        log.warning("%s", warning)
    if backend.binary() is None:
        log.warning(
            "the %s CLI was not found on PATH: Sharpen will say so until it is installed"
            " (or set %s)",
            backend.name,
            backend.env_var,
        )
    return ai.Service(backend, timeout=config.ai_timeout), CoachInfo(backend.name, None, backend)


def build_runtime(config: Config, *, clock: Clock | None = None) -> Runtime:
    """Real adapters for a real server."""
    clock = clock or SystemClock()
    lock = acquire(config.data_dir)  # before the database is even opened
    try:
        store = SQLiteStore(config.database)
    except BaseException:
        lock.release()
        raise
    coach, info = build_coach(config)
    probe = choose_probe(config.window_source, env=config.env)
    holder: list[Controller] = []

    def record(app: str, title: str, at) -> None:
        holder[0].record_window(app, title, at)

    def wanted() -> bool:
        return holder[0].snapshot().state is RuntimeState.ACTIVE if holder else False

    sampler = (
        WindowSampler(probe, record, interval=config.sample_interval, wanted=wanted)
        if probe
        else None
    )
    if probe is None and config.window_source == "off":
        log.info("built-in window sampler off (ANTIDRIFT_WINDOW_SOURCE=off)")
    elif probe is None:
        log.warning(
            "no built-in window sampler for this desktop: on X11 install xdotool and xprop"
            " (and set DISPLAY), on macOS osascript is needed; or post samples to"
            " /evidence/window. Evidence shows as unavailable until then."
        )
    # In the background: a notification daemon that hangs must never hold a transition.
    notifier = Background(build_notifier(config.notify, config.notify_command, env=config.env))
    controller = Controller(
        store,
        clock,
        coach=coach,
        notifier=notifier,
        coach_unavailable=_unavailable(info),
        exclude_titles=config.evidence_exclude,
        sampler_running=(lambda: sampler.running) if sampler else (lambda: False),
    )
    holder.append(controller)
    return Runtime(controller, store, clock, info, sampler, notifier, lock=lock)


def _unavailable(info: CoachInfo) -> str:
    return f"coach unavailable — {info.problem}" if info.problem else "coach unavailable"
