"""The composition root: builds the real store, coach and evidence source from Settings, and
wires the session's parts (`build_controller`, the one place they are put together). The
settings-dependent parts are built by one function (`adapters.tuning`) and applied by one
(`Runtime.take_up`)."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from antidrift import calendar, tasks
from antidrift.calendar import Calendar
from antidrift.core.clock import Clock, SystemClock
from antidrift.core.ports import Store
from antidrift.core.rhythm import Rhythm
from antidrift.drift.guard import DriftGuard, Enforcer
from antidrift.drift.put_away import DesktopEnforcer
from antidrift.drift.rules import StandingRules
from antidrift.notify import Background
from antidrift.server.adapters import TUNED, as_setting, build_sync, tuning
from antidrift.session.away import Away
from antidrift.session.coaching import Coaching
from antidrift.session.controller import Controller
from antidrift.session.corrections import Corrections
from antidrift.session.drafts import Drafts
from antidrift.session.following import Following
from antidrift.session.interruptions import Interruptions
from antidrift.session.readmodel import ReadModel
from antidrift.session.reflecting import Reflections
from antidrift.session.snapshot import CoachInfo, DriftInfo
from antidrift.session.state import Session, Tuning
from antidrift.session.syncing import Syncing
from antidrift.session.ticker import Ticker
from antidrift.session.unit_of_work import UnitOfWork
from antidrift.settings import LIVE_PARTS, LiveSettings, Settings
from antidrift.store.backup import Scheduler, clear_leftovers
from antidrift.store.datalock import DataDirLock, acquire
from antidrift.store.sqlite import SQLiteStore
from antidrift.tasks import Board

if TYPE_CHECKING:  # the evidence wing loads when a window source is chosen (not with it off)
    from antidrift.evidence import SourceChoice, WindowSampler

log = logging.getLogger("antidrift")


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
    # The Settings the parts were built from (a change retunes what its rows name).
    tuned: Settings | None = None
    # This machine in the sync folder (None: a runtime of fakes; off without a folder).
    sync: Syncing | None = None
    _rung: set[tuple[str, str]] = field(default_factory=set, init=False, repr=False)
    _ticker: Ticker | None = field(default=None, init=False, repr=False)
    _stopped: bool = field(default=False, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.reads is None:
            self.reads = ReadModel(self.store)
        self.controller.subscribe(self._transitioned)

    def _transitioned(self, *_: object) -> None:
        """After each change: sync looks at once (this machine's `now`, its outbox)."""
        if self.sync is not None:
            self.sync.wake()

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
                self.controller.following.tick,  # Guard here too: ends when it ends there
                self.controller.breaks.tick,
                self._ring,
                self._refresh_pages,
            )
            self._ticker.start()
        if self.backups is not None:
            self.backups.start()
        if self.calendar is not None:
            self.calendar.start()
        if self.sync is not None:
            self.sync.start()
        if self.sampler is not None:
            self.sampler.start()
        elif self.find_sampler is not None:
            threading.Thread(
                target=self._start_found_sampler, name="antidrift-evidence-source", daemon=True
            ).start()

    def take_up(self, settings: Settings) -> None:
        """Changed settings, without a restart: the parts their rows name as live anew
        (`tuning`: the coach and what Sharpen and Reflect say without one, the judge, the
        notifier, the private-title pattern, breaks and away; the drift guard from the next
        commitment), the calendar read again, the window source found again."""
        before, self.tuned = self.tuned, settings
        changed = settings.differs(before) if before is not None else None
        if changed and self.sync is not None:  # the shared ones go to the other machines
            self.sync.settings_changed(changed)
        parts = settings.table.retuned(changed) if changed is not None else frozenset(LIVE_PARTS)
        if "" in parts:
            restart = sorted(k for k in changed or () if not settings.table.by_key[k].live)
            log.info("changed settings take effect at the next start: %s", ", ".join(restart))
        if parts & TUNED:
            tuned, info, drift_info = tuning(settings)
            self.controller.retune(tuned)
            old, self.notifier = self.notifier, tuned.notifier
            self.coach_info, self.drift_info = info, drift_info
            if old is not None:
                old.shutdown()
        if self.calendar is not None and "calendar" in parts:
            self.calendar.configure(
                calendar.parse(",".join(settings.calendar)), settings.calendar_email
            )
        if "day" in parts:
            self.controller.day.ends = settings.day_ends
        if self.sync is not None and "sync" in parts:  # started, stopped or moved at once
            self.sync.stop()
            self.sync = build_sync(settings, self.store, self.controller, self.settings)
            if self._ticker is not None and not self.shutting_down.is_set():
                self.sync.start()
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
        if self.sync is not None:
            self.sync.stop()
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


def build_controller(
    store: Store,
    clock: Clock,
    parts: Tuning | None = None,
    *,
    enforcer: Enforcer | None = None,
    coach_workers: int = 2,
    calendar: Calendar | None = None,
) -> Controller:
    """The session: its parts over one unit of work and one Session, restored from the store.
    Nothing starts here (`Controller.start` takes the stored state up). The calendar is
    planned around: the guard stands down during an event, Sharpen hears the free minutes."""
    parts = parts or Tuning()
    work = UnitOfWork(store)  # one transaction per change; a rollback puts memory back too
    session = Session(store.load(), clock, Rhythm.parse(store.load_rhythm()))
    session.notifier, session.breaks = parts.notifier, parts.breaks
    work.keep(session)  # the aggregate: state, commitment, rhythm, draft, absence
    drafts = Drafts(store, work, session)  # what the user types while planning
    drafts.resume()

    def free_minutes() -> int | None:  # before the next event; called off the lock
        if calendar is None:
            return None
        with work:
            now = session.now()
        return calendar.free_minutes(now)

    # The planning view's Sharpen; its executor is the review's Reflect's too.
    coaching = Coaching(
        parts.coach,
        store,
        work,
        session,
        parts.unavailable,
        workers=coach_workers,
        drafts=drafts,
        free_minutes=free_minutes,
    )
    reflections = Reflections(
        parts.reflector, store, coaching.executor, work, session, parts.unavailable
    )
    busy = calendar.busy if calendar is not None else None  # the guards stand down then
    # The drift guard: judge calls on its own executor, landing through the unit of work.
    guard = DriftGuard(
        judge=parts.judge,
        settings=parts.drift,
        store=store,
        clock=session.clock,
        work=work,
        announce=session.announce,
        exclude=parts.exclude,
        enforcer=enforcer,
        busy=busy,
    )
    for part in (coaching, guard):  # their state in memory, kept by the change
        work.keep(part)
    away = Away(work, session, store, guard, parts.away_after)  # time away from the keyboard
    following = Following(work, session, store, parts, busy)  # Guard here too
    return Controller(
        work,
        session,
        store,
        guard=guard,
        drafts=drafts,
        coaching=coaching,
        reflections=reflections,
        corrections=Corrections(store, work),  # the history corrected after the fact
        rules=StandingRules(store, work, guard, following.guard),  # the guards follow them
        interruptions=Interruptions(work, session, store, guard, reflections),
        away=away,
        following=following,
        calendar=calendar,
    )


def build_runtime(settings: Settings, *, clock: Clock | None = None) -> Runtime:
    """Real adapters for a real server."""
    clock = clock or SystemClock()
    lock = acquire(settings.data_dir)  # before the database is even opened
    try:
        clear_leftovers(settings.data_dir)  # held: what a killed backup or restore left
        store = SQLiteStore(settings.database)
    except BaseException:
        lock.abandon()  # a refused start leaves the data directory as it found it
        raise
    parts, info, drift_info = tuning(settings)
    plans_around = build_calendar(settings, clock)
    # The teeth act in the session the probe samples.
    controller = build_controller(
        store,
        clock,
        parts,
        enforcer=DesktopEnforcer(settings.env or None),
        calendar=plans_around,
    )
    controller.day.ends = settings.day_ends  # when the day's free minutes end
    live = LiveSettings(settings)  # the settings in force; the Settings page changes them

    def find_sampler() -> WindowSampler | None:
        # The sampler feeds the controller and tells it whether it runs; the controller never
        # calls the sampler, so there is no cycle to break.
        current = live.current()
        choice = choose_window_source(current)  # the Settings page may change it
        probe = choice.probe if choice is not None else None
        if probe is None:
            return None
        from antidrift import evidence

        idle, _ = evidence.choose_idle(
            current.window_source, env=current.env or os.environ, aw_url=current.aw_url
        )  # doctor says why; the log names no variable
        log.info("idle time from %s", idle.name if idle is not None else "nowhere (never away)")
        return evidence.WindowSampler(
            evidence.with_tabs(probe, current.env or None, current.aw_url),
            controller.record_window,
            interval=settings.sample_interval,
            wanted=controller.wants_evidence,
            on_running=controller.set_watcher,
            now=controller.now,  # the controller's steady time, not the jumpy wall clock
            idle=idle,  # time away: no window is looked at while the user is away
            on_idle=controller.note_idle,
        )

    return Runtime(
        controller,
        store,
        clock,
        info,
        find_sampler=find_sampler,
        notifier=parts.notifier,
        lock=lock,
        drift_info=drift_info,
        settings=live,
        window_source=settings.window_source,
        reads=ReadModel(store),
        tasks=task_board(live),
        backups=build_backups(settings, clock),
        calendar=plans_around,
        tuned=settings,
        sync=build_sync(settings, store, controller, live),
    )


def build_calendar(settings: Settings, clock: Clock) -> calendar.Calendar:
    """The user's calendars (none set: an empty one, which the Settings page may fill)."""
    kept = calendar.Calendar(settings.data_dir / "calendar", clock, deadline=settings.read_deadline)
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


def choose_window_source(settings: Settings) -> SourceChoice | None:
    """The evidence source for this session, said in the log with why and what would help;
    None when the setting is off: then nothing of the evidence wing is loaded (issue 40)."""
    if settings.window_source == "off":
        log.info("built-in window sampler off (the window_source setting is off)")
        return None
    from antidrift import evidence

    choice = evidence.choose(
        settings.window_source,
        env=settings.env or os.environ,
        aw_url=settings.aw_url,
        try_first=True,
    )
    if choice.probe is None:
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
