"""`antidrift` on the command line: serve (gunicorn, one worker) and doctor."""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import signal
import sys
from collections.abc import Sequence

from gunicorn.app.base import BaseApplication

from antidrift import ai
from antidrift.config import DEFAULT_HOST, DEFAULT_PORT, DEFAULT_THREADS, Config, ConfigError
from antidrift.store import StoreError

log = logging.getLogger("antidrift")
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def configure_logging(level: int = logging.INFO) -> None:
    logging.basicConfig(level=level, format=LOG_FORMAT, stream=sys.stderr)


# -- gunicorn hooks (shared with gunicorn.conf.py) --------------------------------------------


def post_worker_init(worker) -> None:
    """Chain the worker's SIGTERM handler so sockets and coach CLIs stop at once."""
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


def gunicorn_options(host: str, port: int, threads: int = DEFAULT_THREADS) -> dict[str, object]:
    return {
        "bind": f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
        "workers": 1,
        "worker_class": "gthread",
        "threads": threads,
        # For gthread this is a heartbeat, not a request limit: websockets outlive it.
        "timeout": 30,
        "graceful_timeout": 5,
        "keepalive": 5,
        "accesslog": None,
        "errorlog": "-",
        "loglevel": "info",
        # No control socket: it would write into $HOME, and two servers would share it.
        "control_socket_disable": True,
        "post_worker_init": post_worker_init,
        "worker_exit": worker_exit,
        "on_starting": refuse_more_workers,
    }


class Server(BaseApplication):
    """gunicorn, run from Python with our options and our app."""

    def __init__(self, config: Config, options: dict[str, object]) -> None:
        self._config = config
        self._options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self._options.items():
            self.cfg.set(key, value)

    def load(self):
        from antidrift.app import serving_app

        try:
            return serving_app(self._config)
        except (StoreError, ConfigError, ValueError) as exc:
            log.error("%s", exc)
            sys.exit(3)


# -- command line ---------------------------------------------------------------------------


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def serve(args: argparse.Namespace) -> int:
    if not _is_loopback(args.host):
        if not args.allow_remote:
            print(
                f"Refusing to listen on {args.host}: anyone who can reach it could drive"
                " AntiDrift and start your AI CLI. Pass --allow-remote if you mean it.",
                file=sys.stderr,
            )
            return 2
        log.warning(
            "listening on %s: anyone on that network can drive AntiDrift and your AI CLI",
            args.host,
        )
    try:
        config = Config.from_env(data_dir=args.data_dir)
        # Fail before gunicorn starts, with a sentence rather than a traceback.
        from antidrift.store import SQLiteStore

        SQLiteStore(config.database).close()
    except (ConfigError, StoreError) as exc:
        print(f"antidrift: {exc}", file=sys.stderr)
        return 2
    log.info("AntiDrift on http://%s:%d/ (data in %s)", args.host, args.port, config.data_dir)
    Server(config, gunicorn_options(args.host, args.port, args.threads)).run()
    return 0


def doctor(_: argparse.Namespace) -> int:
    """Which coach CLIs are installed, and their versions."""
    selected = os.environ.get("ANTIDRIFT_AI_BACKEND", "claude") or "claude"
    print(f"ANTIDRIFT_AI_BACKEND={selected}")
    for name in ("claude", "codex", "command"):
        try:
            backend = ai.new_backend(name, os.environ)
        except ai.UnknownBackend as exc:
            print(f"  {name:8} not configured: {exc}")
            continue
        path = backend.binary()
        if path is None:
            print(f"  {name:8} not found on PATH")
        else:
            print(f"  {name:8} {path}  {backend.version() or 'version unknown'}")
    return 0


COMMANDS = ("serve", "doctor")


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="antidrift", description=__doc__)
    sub = top.add_subparsers(dest="command", required=True)
    run = sub.add_parser("serve", help="run the server (the default)")
    run.add_argument("--host", default=DEFAULT_HOST, help="address to bind (loopback)")
    run.add_argument("--port", type=int, default=DEFAULT_PORT, help="port (7717)")
    run.add_argument("--data-dir", help="where the database lives (ANTIDRIFT_DATA_DIR)")
    run.add_argument("--threads", type=int, default=DEFAULT_THREADS, help=argparse.SUPPRESS)
    run.add_argument("--allow-remote", action="store_true", help="allow a non-loopback --host")
    sub.add_parser("doctor", help="check the coach CLIs")
    return top


def main(argv: Sequence[str] | None = None) -> int:
    configure_logging()
    argv = list(sys.argv[1:] if argv is None else argv)
    # `antidrift [flags]` is `antidrift serve [flags]`.
    if not argv or argv[0] not in (*COMMANDS, "-h", "--help"):
        argv.insert(0, "serve")
    args = parser().parse_args(argv)
    if args.command == "doctor":
        return doctor(args)
    return serve(args)


if __name__ == "__main__":
    sys.exit(main())
