"""`antidrift` on the command line: serve (gunicorn, one worker) and doctor."""

from __future__ import annotations

import argparse
import errno
import gc
import logging
import os
import signal
import socket
import sqlite3
import sys
from pathlib import Path

from gunicorn.app.base import BaseApplication

from antidrift import settings
from antidrift.core.errors import StoreError
from antidrift.core.loopback import is_loopback
from antidrift.core.terminal import printable, say
from antidrift.server.httpworker import THREADS
from antidrift.settings import Settings, SettingsError, start_line
from antidrift.store import datalock

log = logging.getLogger("antidrift")
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class FencedFormatter(logging.Formatter):
    """A log line as the terminal may show it: `antidrift serve` in the foreground logs to
    one, and a line may quote an AI CLI's raw output or a window title (core/terminal.py)."""

    def format(self, record: logging.LogRecord) -> str:
        return printable(super().format(record))


def configure_logging(level: int = logging.INFO) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(FencedFormatter(LOG_FORMAT))
    logging.basicConfig(level=level, handlers=[handler])


# -- gunicorn hooks (shared with gunicorn.conf.py) --------------------------------------------


def post_worker_init(worker) -> None:
    """Start the app's runtime before the worker serves; chain the worker's SIGTERM handler
    so sockets and coach CLIs stop at once."""
    runtime = _runtime(worker)
    if runtime is not None:
        runtime.start()  # create_app starts nothing
    previous = signal.getsignal(signal.SIGTERM)

    def on_term(signum, frame):
        # Requests in flight may still finish: the store closes in worker_exit.
        runtime = _runtime(worker)
        if runtime is not None:
            runtime.quiesce()
        if callable(previous):
            previous(signum, frame)

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)


def pre_fork(server, worker) -> None:
    """In gunicorn's arbiter, just before it forks the worker: what the arbiter holds leaves
    the collector's generations, so the worker's collections never write into those objects
    and their pages stay shared with it (0.4 MiB of the idle tree; issue 40, the footprint)."""
    gc.freeze()


def worker_exit(server, worker) -> None:
    runtime = _runtime(worker)
    if runtime is not None:
        runtime.stop()


def _runtime(worker):
    """The runtime of the worker's app; None when the app never loaded."""
    app = getattr(worker, "wsgi", None)
    extensions = getattr(app, "extensions", None) or {}
    return extensions.get("antidrift.runtime")


def refuse_more_workers(server) -> None:
    workers = server.cfg.workers
    if workers != 1:
        raise SystemExit(
            f"AntiDrift runs exactly one worker (got {workers}): its state, timers and"
            " sockets live in one process."
        )


def on_starting(server) -> None:
    """Before gunicorn binds: one worker, then the start-up gate (`start_problem`).

    `antidrift serve` has passed the gate already (its lock is this process's); for
    `gunicorn -c gunicorn.conf.py` this is where a second server is turned away in a line.
    """
    refuse_more_workers(server)
    if getattr(server.app, "antidrift_gate_passed", False):
        return
    try:
        chosen = settings.load()
    except SettingsError as exc:
        raise SystemExit(f"antidrift: {exc}") from None
    binds = []
    for bind in server.cfg.bind:
        host, _, port = bind.rpartition(":")
        if port.isdigit():
            binds.append((host.strip("[]"), int(port)))
    url = url_of(*binds[0]) if binds else None
    if problem := start_problem(chosen, binds, url):
        raise SystemExit(f"antidrift: {problem}")


def start_problem(chosen: Settings, binds: list[tuple[str, int]], url: str | None) -> str | None:
    """The start-up gate, before anything is bound: why this server cannot start, in a
    sentence, or None.

    The one place a server takes its data directory, first of all (a second server must not
    even open the first one's database); the lock is then held for this process's life and
    its gunicorn worker inherits it. Then the ports, then the database (here, not in the
    worker: a worker that fails to open it exits, and gunicorn would start another, and
    another). A refused start leaves the data directory as it found it."""
    try:
        lock = datalock.acquire(chosen.data_dir, url=url)
    except StoreError as exc:
        return str(exc)
    try:
        for host, port in binds:
            if problem := port_problem(host, port):
                raise StoreError(problem)
        # The store's two connections, opened as SQLiteStore opens them (its queries are the
        # worker's: this process is gunicorn's arbiter, and what it imports the worker copies).
        from antidrift.store.changes import Connections

        Connections(chosen.database).close()
    except StoreError as exc:
        lock.abandon()
        return str(exc)
    return None


def port_problem(host: str, port: int) -> str | None:
    """Why gunicorn could not listen on host:port, in a sentence; None if it can.

    gunicorn itself retries a taken port five times a second apart, then says "Can't
    connect": a bind of our own, closed at once, answers in milliseconds.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn does
            probe.bind((host, port))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            return (
                f"Port {port} on {host} is already in use by another program."
                f" Choose another with --port (for example --port {port + 1})."
            )
        if exc.errno == errno.EACCES:
            return f"Port {port} needs privileges to listen on. Choose another with --port."
        return f"Cannot listen on {host} port {port}: {exc.strerror}. Check --host and --port."
    return None


def url_of(host: str, port: int) -> str:
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def gunicorn_options(host: str, port: int, threads: int = THREADS) -> dict[str, object]:
    return {
        "bind": f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
        "workers": 1,
        # gthread with one deadline for each request's head and body, and a thread for every
        # connection it takes: slow clients cannot hold every thread (httpworker.py).
        "worker_class": "antidrift.server.httpworker.Worker",
        "threads": threads,
        "worker_connections": threads,
        # For gthread this is a heartbeat, not a request limit: websockets outlive it.
        "timeout": 30,
        "graceful_timeout": 5,
        # No kept-alive connections: one would count against the connections that each have
        # a thread, and gunicorn closes every response's connection when worker_connections
        # equals threads anyway (keepalive > 0 only added a WARNING to every start).
        "keepalive": 0,
        "accesslog": None,
        "errorlog": "-",
        "loglevel": "info",
        # No control socket: it would write into $HOME, and two servers would share it.
        "control_socket_disable": True,
        "post_worker_init": post_worker_init,
        "worker_exit": worker_exit,
        "on_starting": on_starting,
        "pre_fork": pre_fork,
    }


class Server(BaseApplication):
    """gunicorn, run from Python with our options and our app."""

    def __init__(self, chosen: Settings, options: dict[str, object]) -> None:
        self._settings = chosen
        self.antidrift_gate_passed = True  # serve() passed start_problem before creating us
        self._options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self._options.items():
            self.cfg.set(key, value)

    def load(self):
        """The app, in the worker. No collection runs while it is made: what it makes (its
        modules, the runtime) lives as long as the worker, and is then frozen as pre_fork
        freezes the arbiter's, so no collection scans it again (~60 collections, ~8 ms of
        every start before the first answer; issue 40, P6)."""
        gc.disable()
        try:
            from antidrift.server.app import create_app

            return create_app(self._settings)
        except (StoreError, SettingsError, ValueError) as exc:
            log.error("%s", exc)
            sys.exit(3)
        finally:
            gc.freeze()
            gc.enable()


# -- command line ---------------------------------------------------------------------------


def serve(args: argparse.Namespace) -> int:
    # Every setting first: a refused one is a line (exit 2) before anything is bound or opened.
    chosen = settings.load(data_dir=args.data_dir, overrides={"host": args.host, "port": args.port})
    host, port = chosen.host, chosen.port
    if not is_loopback(host):
        if not args.allow_remote:
            say(
                f"Refusing to listen on {host}: anyone who can reach it could drive"
                " AntiDrift and start your AI CLI. Pass --allow-remote if you mean it.",
                err=True,
            )
            return 2
        log.warning(
            "listening on %s: anyone on that network can drive AntiDrift and your AI CLI", host
        )
    url = url_of(host, port)
    # Refused before gunicorn starts: one line, not gunicorn's banner and then a line.
    if problem := start_problem(chosen, [(host.strip("[]"), port)], url):
        say(f"antidrift: {problem}", err=True)
        return 2
    log.info("AntiDrift on %s (data in %s)", url, chosen.data_dir)
    log.info("%s", start_line(chosen))
    Server(chosen, gunicorn_options(host, port, args.threads)).run()
    return 0


def doctor(args: argparse.Namespace) -> int:
    """Every setting and where it came from, the coach CLIs (and their versions), which
    window source works, the calendar and the database. Exit 1 when a setting or the
    database would refuse the start. Changes nothing: the database is only read."""
    from antidrift import ai, tasks  # here, not in `antidrift serve` (its arbiter: P8)
    from antidrift.core.clock import SystemClock
    from antidrift.evidence.report import doctor_lines
    from antidrift.server.adapters import new_backend  # settings to adapters
    from antidrift.server.bootstrap import build_calendar
    from antidrift.sync.report import doctor_lines as sync_doctor_lines

    data_dir = getattr(args, "data_dir", None)
    reading = settings.read(data_dir=data_dir)
    # What is not refused, to show the CLIs and the window source with.
    usable = Settings(**reading.values, env=dict(os.environ))  # type: ignore[arg-type]
    say(f"ANTIDRIFT_AI_BACKEND={usable.ai_backend}")
    for name, entry in ai.BACKENDS.items():
        try:
            backend = new_backend(usable, name)
        except ai.UnknownBackend as exc:
            say(f"  {name:8} not configured: {exc}")
            continue
        path = backend.binary()
        if path and entry.available(backend):
            found = f"{path}  {backend.version() or 'version unknown'}"
        else:
            found = f"{path} does not answer" if path else "not found on PATH"
        # The model and effort a coach call asks for (ANTIDRIFT_AI_MODEL, ANTIDRIFT_AI_EFFORT).
        warm = ", kept warm while planning" if getattr(backend, "warm_up", False) else ""
        tuning = f"  ({backend.tuning}{warm})" if backend.tuning is not None else ""
        say(f"  {name:8} {found}{tuning}")
    lines = doctor_lines(usable.window_source, os.environ, usable.aw_url)
    say("\n" + "\n".join(lines))  # a blank line between the sections
    say("\n" + "\n".join(settings.doctor_lines(os.environ, data_dir=data_dir)))
    sources = tasks.build(tasks.parse(",".join(usable.tasks)), os.environ)
    say("\n" + "\n".join(tasks.doctor_lines(sources)))
    say("\n" + "\n".join(build_calendar(usable, SystemClock()).doctor_lines()))
    say("\n" + "\n".join(sync_doctor_lines(usable.sync_folder, Path(usable.data_dir))))
    usable_db, lines = database_lines(usable.database)
    say("\n" + "\n".join(lines))
    return 1 if reading.problems or not usable_db else 0


def database_lines(path: Path) -> tuple[bool, list[str]]:
    """(whether a start would open it, lines): the data directory's database as start-up
    checks it, read-only (no byte written, no -wal or -shm made), and who serves it."""
    from antidrift.store import check as dbcheck
    from antidrift.store.migrations import MIGRATIONS

    url = datalock.holder_url(path.parent)
    server = f"served by AntiDrift{' at ' + url if url else ''}" if url is not None else ""
    lines = [f"Database {path}{' (' + server + ')' if server else ''}:"]
    if not path.exists() or path.stat().st_size == 0:
        if problem := _unmakeable(path.parent):
            return False, [*lines, f"  refused: {problem}"]
        return True, [*lines, "  not made yet: the first start makes it"]
    try:
        dbcheck.inspect(path, [version for version, _, _ in MIGRATIONS])
        db = dbcheck.open_read_only(path)
        try:
            versions = {r[0] for r in db.execute("SELECT version FROM schema_migrations")}
            (ended,) = db.execute("SELECT COUNT(*) FROM commitments").fetchone()
            differs = dbcheck.structure_differs(dbcheck.structure(db), versions, MIGRATIONS)
        finally:
            db.close()
        version = max(versions, default=0)
    except dbcheck.UnusableDatabase as exc:
        return False, [*lines, f"  refused: {exc}"]
    except sqlite3.Error as exc:  # locked by another program, or a table that is not there
        return False, [*lines, f"  cannot be read now: {exc}"]
    if differs:  # it opens, but a change may fail on what is not ours (an index, a column)
        return True, [*lines, f"  schema version {version}, but {differs}"]
    summary = f"AntiDrift's, schema version {version}, quick_check ok, {ended} commitment(s)"
    return True, [*lines, f"  {summary}"]


def _unmakeable(directory: Path) -> str | None:
    """Why a start could not make (or use) the data directory, read-only: a file where it,
    or a folder above it, should be."""
    found = directory
    while not found.exists() and found != found.parent:
        found = found.parent
    if found.exists() and not found.is_dir():
        return f"{found} is not a directory: choose another --data-dir."
    return None


def serve_command(parser: argparse.ArgumentParser):
    """`antidrift serve`: its flags; returns what runs it (antidrift/server/commands.py's table)."""
    parser.add_argument("--host", help="address to bind (loopback; ANTIDRIFT_HOST)")
    parser.add_argument("--port", type=int, help="port (7717; ANTIDRIFT_PORT)")
    parser.add_argument("--data-dir", help="where the database lives (ANTIDRIFT_DATA_DIR)")
    parser.add_argument("--threads", type=int, default=THREADS, help=argparse.SUPPRESS)
    parser.add_argument("--allow-remote", action="store_true", help="allow a non-loopback --host")
    return _logged(serve)


def doctor_command(parser: argparse.ArgumentParser):
    """`antidrift doctor [--data-dir DIR]`: that data directory's settings and database."""
    parser.add_argument("--data-dir", help="the data directory to check (ANTIDRIFT_DATA_DIR)")
    return _logged(doctor)


def _logged(run):
    def with_logging(args: argparse.Namespace) -> int:
        configure_logging()
        return run(args)

    return with_logging
