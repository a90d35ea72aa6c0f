"""The composition root: builds the real store, coach and evidence source from a Config."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from datetime import timedelta

from antidrift import ai
from antidrift.clock import Clock, SystemClock
from antidrift.config import Config
from antidrift.domain import RuntimeState
from antidrift.drift import DriftSettings
from antidrift.guard import DriftInfo
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


@dataclass
class Runtime:
    """The long-lived collaborators the web layer serves."""

    controller: Controller
    store: Store
    clock: Clock
    coach_info: CoachInfo
    sampler: WindowSampler | None = None
    notifier: Background | None = None  # the notifier port, for every role that speaks
    drift_info: DriftInfo = field(default_factory=lambda: DriftInfo(False, why_off="off"))
    shutting_down: threading.Event = field(default_factory=threading.Event)


def build_coach(config: Config) -> tuple[ai.Service | None, CoachInfo]:
    """The configured coach, or None with a reason the page and the log can show."""
    try:
        backend = ai.new_backend(config.ai_backend, config.env)
    except ai.UnknownBackend as exc:
        log.warning("running without a coach: %s", exc)
        return None, CoachInfo(None, f"{exc}")
    if backend.binary() is None:
        log.warning(
            "the %s CLI was not found on PATH: Sharpen will say so until it is installed"
            " (or set %s)",
            backend.name,
            backend.env_var,
        )
    return ai.Service(backend, timeout=config.ai_timeout), CoachInfo(backend.name, None, backend)


def build_drift(
    config: Config, coach: ai.Service | None
) -> tuple[ai.JudgeService | None, DriftSettings | None, DriftInfo]:
    """The drift judge on the coach's backend, or why the guard is off."""
    if config.drift != "ai":
        if config.drift != "off":
            log.warning("ANTIDRIFT_DRIFT=%r is not ai or off: the drift guard is off", config.drift)
        log.info("drift guard off (ANTIDRIFT_DRIFT=%s)", config.drift)
        return None, None, DriftInfo(False, why_off="ANTIDRIFT_DRIFT is off")
    if coach is None:
        return None, None, DriftInfo(False, why_off="there is no AI backend to judge with")
    backend = coach.backend
    cli = backend.argv[0] if isinstance(backend, ai.CommandBackend) else backend.name
    settings = DriftSettings(
        timedelta(seconds=config.drift_grace),
        timedelta(seconds=config.drift_cooldown),
        config.drift_max_calls,
    )
    log.info("drift guard on: %s judges the focused window's app and title", cli)
    return ai.JudgeService(backend, timeout=config.ai_timeout), settings, DriftInfo(True, cli)


def build_runtime(config: Config, *, clock: Clock | None = None) -> Runtime:
    """Real adapters for a real server."""
    clock = clock or SystemClock()
    store = SQLiteStore(config.database)
    coach, info = build_coach(config)
    judge, drift, drift_info = build_drift(config, coach)
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
        judge=judge,
        drift=drift,
        coach_unavailable=_unavailable(info),
        exclude_titles=config.evidence_exclude,
        sampler_running=(lambda: sampler.running) if sampler else (lambda: False),
    )
    holder.append(controller)
    return Runtime(controller, store, clock, info, sampler, notifier, drift_info)


def _unavailable(info: CoachInfo) -> str:
    return f"coach unavailable — {info.problem}" if info.problem else "coach unavailable"
