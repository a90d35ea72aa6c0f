"""The composition root: builds the real store, coach and evidence source from Settings."""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Protocol
from urllib.parse import urlsplit

from antidrift import ai, calendar, evidence, tasks
from antidrift.ai.reflect import ReflectService
from antidrift.core.clock import Clock, SystemClock
from antidrift.core.loopback import is_loopback
from antidrift.core.ports import Store
from antidrift.drift.policy import DriftSettings
from antidrift.drift.put_away import DesktopEnforcer
from antidrift.evidence import WindowSampler
from antidrift.notify import Background, build_notifier
from antidrift.session.controller import Controller
from antidrift.session.readmodel import ReadModel
from antidrift.session.snapshot import CoachInfo, DriftInfo
from antidrift.session.ticker import Ticker
from antidrift.settings import SETTINGS, LiveSettings, Settings
from antidrift.store.backup import Scheduler
from antidrift.store.datalock import DataDirLock, acquire
from antidrift.store.sqlite import SQLiteStore
from antidrift.tasks import Board

log = logging.getLogger("antidrift")

# The log names a setting as the Settings page and settings.json do (issue 33): `doctor`,
# which reports the environment, keeps the variables.
_KEYS = {setting.variable: setting.key for setting in SETTINGS}
_VARIABLE = re.compile(r"\bANTIDRIFT_[A-Z_]+\b")


def as_setting(text: str) -> str:
    """`text` with each ANTIDRIFT_* variable of a setting said as that setting's name."""
    return _VARIABLE.sub(lambda m: f"the {_KEYS[m[0]]} setting" if m[0] in _KEYS else m[0], text)


class Pages(Protocol):
    """The open pages (the web layer's websocket hub), as the runtime drives them."""

    def refresh(self) -> None: ...

    def close_all(self) -> None: ...


@dataclass
class Runtime:
    """The long-lived collaborators the web layer serves, and the one owner of their lifecycle.

    `start()` starts the background work (ticker, window sampler); `quiesce()` stops it and
    kills running coach CLIs (SIGTERM: requests in flight may still finish); `stop()` also
    closes the store (worker exit). Each is idempotent and safe from any thread.
    """

    controller: Controller
    store: Store
    clock: Clock
    coach_info: CoachInfo
    sampler: WindowSampler | None = None
    # Finds the window source when there is no sampler yet: run by start() on its own
    # thread, since `auto` may try a desktop tool and ask aw-server (seconds, off the boot).
    find_sampler: Callable[[], WindowSampler | None] | None = None
    notifier: Background | None = None  # the notifier port, for every role that speaks
    pages: Pages | None = None
    drift_info: DriftInfo = field(default_factory=lambda: DriftInfo(False, why_off="off"))
    shutting_down: threading.Event = field(default_factory=threading.Event)
    # Held for the process's life: one server per data directory, whatever the entry point.
    lock: DataDirLock | None = None
    # The settings in force and the Settings page's changes (None: a runtime of fakes).
    settings: LiveSettings | None = None
    # The history as the pages read it (built over the store unless given).
    reads: ReadModel | None = None
    # The user's task sources (none configured unless given).
    tasks: Board = field(default_factory=lambda: Board(tuple))
    # The daily backup (its own thread and connection: no request waits for it).
    backups: Scheduler | None = None
    window_source: str = ""  # the source the sampler was found from (a change finds anew)
    # The user's calendars, refreshed on a thread of their own (None: no calendar here).
    calendar: calendar.Calendar | None = None
    _rung: set[tuple[str, str]] = field(default_factory=set, init=False, repr=False)
    _ticker: Ticker | None = field(default=None, init=False, repr=False)
    _stopped: bool = field(default=False, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.reads is None:
            self.reads = ReadModel(self.store)

    def attach(self, pages: Pages) -> None:
        """Keep the open pages in step: after every transition, and once a second."""
        self.pages = pages
        self.controller.subscribe(pages.refresh)

    def start(self) -> None:
        """Take up the stored state (an expired timebox goes to review, the guard resumes, the
        coach warms), then start the once-a-second tick and the window sampler."""
        if self._ticker is not None:  # started: every request under `flask run` asks
            return
        with self._lock:
            if self._ticker is not None or self.shutting_down.is_set():
                return
            # Before the first tick or sample: both assume the restored state is taken up.
            self.controller.start()
            self._ticker = Ticker(
                self.controller.expire_if_due,
                self.controller.drift_tick,
                self._ring,
                self._refresh_pages,
            )
            self._ticker.start()
        if self.backups is not None:
            self.backups.start()
        if self.calendar is not None:
            self.calendar.start()
        if self.sampler is not None:
            self.sampler.start()
        elif self.find_sampler is not None:
            threading.Thread(
                target=self._start_found_sampler, name="antidrift-evidence-source", daemon=True
            ).start()

    def take_up(self, settings: Settings) -> None:
        """Changed settings, without a restart: a new coach, judge, notifier and private-title
        pattern (the drift guard from the next commitment), and the window source anew."""
        coach, info = build_coach(settings)
        judge, drift, drift_info = build_drift(settings, coach)
        notifier = Background(
            build_notifier(settings.notify, settings.notify_command, env=settings.env)
        )
        reflector = ReflectService(coach.backend, timeout=settings.ai_timeout) if coach else None
        self.controller.retune(
            coach, _unavailable(info), reflector, judge, drift, settings.evidence_exclude, notifier
        )
        old, self.notifier = self.notifier, notifier
        self.coach_info, self.drift_info = info, drift_info
        if self.calendar is not None:  # read again at once: a save is also how to retry
            self.calendar.configure(
                calendar.parse(",".join(settings.calendar)), settings.calendar_email
            )
        if old is not None:
            old.shutdown()
        if settings.window_source == self.window_source:
            return
        self.window_source = settings.window_source
        with self._lock:
            sampler, started = self.sampler, self._ticker is not None
            self.sampler = None
        if sampler is not None:
            sampler.stop()
        if started and self.find_sampler is not None and not self.shutting_down.is_set():
            threading.Thread(
                target=self._start_found_sampler, name="antidrift-evidence-source", daemon=True
            ).start()

    def _start_found_sampler(self) -> None:
        sampler = self.find_sampler() if self.find_sampler is not None else None
        with self._lock:  # quiesce() either sees this sampler or it is never started
            if sampler is None or self.shutting_down.is_set():
                return
            self.sampler = sampler
            sampler.start()

    def _ring(self) -> None:
        """Five minutes before an event, while a commitment runs: one notification."""
        if self.calendar is None or not self.calendar.configured or self.notifier is None:
            return
        snap = self.controller.snapshot()
        event = snap.calendar.soon(snap.now) if snap.state.value == "active" else None
        if event is None or event.key() in self._rung:
            return
        self._rung.add(event.key())
        self.notifier.notify(f"{calendar.soon_text(event)} · AntiDrift", event.title)

    def _refresh_pages(self) -> None:
        if self.pages is not None:
            self.pages.refresh()

    def quiesce(self) -> None:
        """Close sockets (pages reconnect), stop the background, kill the coach's CLI."""
        with self._lock:
            if self.shutting_down.is_set():
                return
            self.shutting_down.set()
        if self.pages is not None:
            self.pages.close_all()
        if self._ticker is not None:
            self._ticker.stop()
        if self.backups is not None:
            self.backups.stop()
        if self.calendar is not None:
            self.calendar.stop()
        with self._lock:
            sampler = self.sampler
        if sampler is not None:
            sampler.stop()
        # The one kill path: the controller cancels its coach call's scope, which kills the
        # CLI's whole process group and refuses any later start in that scope.
        self.controller.shutdown()
        if self.notifier is not None:
            self.notifier.shutdown()  # a running notification is bounded by its own timeout

    def stop(self) -> None:
        """Quiesce, then flush and close the store (once)."""
        self.quiesce()
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
        self.store.close()
        if self.lock is not None:
            self.lock.release()
        log.info("stopped")


def new_backend(settings: Settings, name: str | None = None) -> ai.Backend:
    """The AI backend the settings choose (or the one `name`s, with the same tuning)."""
    return ai.new_backend(settings.ai_backend if name is None else name, ai.Options.of(settings))


def build_coach(settings: Settings) -> tuple[ai.Service | None, CoachInfo]:
    """The configured coach, or None with a reason the page and the log can show."""
    try:
        backend = new_backend(settings)
    except ai.UnknownBackend as exc:
        log.warning("running without a coach: %s", as_setting(str(exc)))
        return None, CoachInfo(None, f"{exc}")
    if backend.binary() is None:
        log.warning(
            "the %s CLI was not found on PATH: Sharpen will say so until it is installed"
            " (or set %s)",
            backend.name,
            as_setting(backend.env_var),
        )
    return ai.Service(backend, timeout=settings.ai_timeout), CoachInfo(backend.name, None, backend)


def remote_address(url: object) -> str | None:
    """Where an AI server's URL sends what it is given, when that is another machine (the
    settings refuse it unless ANTIDRIFT_AI_ALLOW_REMOTE=1): its host and port, else None."""
    if not isinstance(url, str):
        return None  # a CLI backend: its own service, named on the page already
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return url
    if host and is_loopback(host):
        return None
    return parts.netloc or url


def build_drift(
    settings: Settings, coach: ai.Service | None
) -> tuple[ai.JudgeService | None, DriftSettings | None, DriftInfo]:
    """The drift judge on the coach's backend, or why the guard is off."""
    if settings.drift == "off":
        log.info("drift guard off (the drift setting is off)")
        return None, None, DriftInfo(False, why_off="turned off in Settings")
    if coach is None:
        return None, None, DriftInfo(False, why_off="there is no AI backend to judge with")
    backend = coach.backend
    cli = backend.name  # named as the planning view names the coach ("command", not "python3")
    policy = DriftSettings(
        timedelta(seconds=settings.drift_grace),
        timedelta(seconds=settings.drift_cooldown),
        settings.drift_max_calls,
        settings.enforce,
        timedelta(seconds=settings.enforce_after),
    )
    remote = remote_address(getattr(backend, "url", None))
    log.info("drift guard on: %s judges the focused window's app and title", cli)
    if remote is not None:
        log.warning("window titles leave this machine: they go to %s", remote)
    info = DriftInfo(
        True,
        cli,
        titles_excluded=settings.evidence_exclude is not None,
        remote=remote,
        teeth=settings.enforce == "minimize",
        teeth_after=settings.enforce_after,
    )
    return ai.JudgeService(backend, timeout=settings.ai_timeout), policy, info


def build_runtime(settings: Settings, *, clock: Clock | None = None) -> Runtime:
    """Real adapters for a real server."""
    clock = clock or SystemClock()
    lock = acquire(settings.data_dir)  # before the database is even opened
    try:
        store = SQLiteStore(settings.database)
    except BaseException:
        lock.abandon()  # a refused start leaves the data directory as it found it
        raise
    live = LiveSettings(settings)
    plans_around = build_calendar(settings, clock)
    coach, info = build_coach(settings)
    judge, drift, drift_info = build_drift(settings, coach)
    # In the background: a notification daemon that hangs must never hold a transition.
    notifier = Background(
        build_notifier(settings.notify, settings.notify_command, env=settings.env)
    )
    controller = Controller(
        store,
        clock,
        coach=coach,
        notifier=notifier,
        judge=judge,
        drift=drift,
        coach_unavailable=_unavailable(info),
        exclude_titles=settings.evidence_exclude,
        reflector=ReflectService(coach.backend, timeout=settings.ai_timeout) if coach else None,
        enforcer=DesktopEnforcer(settings.env or None),  # in the session the probe samples
        calendar=plans_around,
    )

    def find_sampler() -> WindowSampler | None:
        # The sampler feeds the controller and tells it whether it runs; the controller never
        # calls the sampler, so there is no cycle to break.
        probe = choose_window_source(live.current()).probe  # the Settings page may change it
        if probe is None:
            return None
        return WindowSampler(
            probe,
            controller.record_window,
            interval=settings.sample_interval,
            wanted=controller.wants_evidence,
            on_running=controller.set_watcher,
            now=controller.now,  # the controller's steady time, not the jumpy wall clock
        )

    live = LiveSettings(settings)
    return Runtime(
        controller,
        store,
        clock,
        info,
        find_sampler=find_sampler,
        notifier=notifier,
        lock=lock,
        drift_info=drift_info,
        settings=live,
        window_source=settings.window_source,
        reads=ReadModel(store),
        tasks=task_board(live),
        backups=build_backups(settings, clock),
        calendar=plans_around,
    )


def build_calendar(settings: Settings, clock: Clock) -> calendar.Calendar:
    """The user's calendars (none set: an empty one, which the Settings page may fill)."""
    kept = calendar.Calendar(settings.data_dir / "calendar", clock)
    kept.configure(calendar.parse(",".join(settings.calendar)), settings.calendar_email)
    return kept


def task_board(live: LiveSettings) -> Board:
    """The user's task sources as the settings name them now (a change on the Settings page
    applies at the next listing); the CLIs run with the server's environment (the user's
    TASKRC, GH_HOST, login)."""

    def sources() -> list[tasks.TaskSource]:
        settings = live.current()
        return tasks.build(tasks.parse(",".join(settings.tasks)), settings.env or os.environ)

    return Board(sources)


def build_backups(settings: Settings, clock: Clock) -> Scheduler | None:
    """The daily backup of the database, or None when ANTIDRIFT_BACKUPS is 0."""
    if settings.backups == 0:
        log.info("daily backups off (the backups setting is 0)")
        return None
    return Scheduler(settings.database, settings.backups, now=clock.now)


def choose_window_source(settings: Settings) -> evidence.Choice:
    """The evidence source for this session, said in the log with why and what would help."""
    choice = evidence.choose(
        settings.window_source,
        env=settings.env or os.environ,
        aw_url=settings.aw_url,
        try_first=True,
    )
    if choice.probe is None and settings.window_source == "off":
        log.info("built-in window sampler off (the window_source setting is off)")
    elif choice.probe is None:
        log.warning(
            "no window source for this session: %s. To get evidence: %s. Evidence shows as"
            " unavailable until then.",
            as_setting(choice.reason),
            as_setting(choice.advice),
        )
    else:
        log.info("window source: %s (%s)", choice.name, as_setting(choice.reason))
        if choice.advice:
            log.warning("window source %s: %s", choice.name, as_setting(choice.advice))
    return choice


def _unavailable(info: CoachInfo) -> str:
    return f"coach unavailable — {info.problem}" if info.problem else "coach unavailable"
