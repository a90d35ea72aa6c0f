"""The Flask application factory."""

from __future__ import annotations

import atexit
import logging
import threading
from importlib.resources import files
from pathlib import Path

from flask import Flask
from jinja2 import Environment, FileSystemLoader, select_autoescape

from antidrift import bootstrap
from antidrift.config import Config
from antidrift.process import kill_all_running
from antidrift.ticker import Ticker
from antidrift.web import errors, routes, security, sockets
from antidrift.web.push import Hub
from antidrift.web.render import Renderer

MAX_BODY = 64 * 1024


class _DaemonThread(threading.Thread):
    """simple-websocket's per-socket reader. A daemon: a page that never answers our close
    frame (a frozen tab) must not hold the worker's exit until gunicorn kills it."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.daemon = True


def resource_dir(name: str) -> Path:
    """`templates/` or `static/`: inside the package when installed from a wheel, at the
    repository's top level in a checkout or an editable install."""
    packaged = Path(str(files("antidrift"))) / name
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / name


def create_app(
    config: Config | None = None,
    *,
    runtime: bootstrap.Runtime | None = None,
    start_background: bool = True,
) -> Flask:
    """Build the app. Tests pass a runtime of fakes; a real server builds it from Config."""
    config = config or Config.from_env()
    runtime = runtime or bootstrap.build_runtime(config)
    static_dir = resource_dir("static")
    app = Flask(__name__, static_folder=str(static_dir), static_url_path="/static")
    app.config.update(
        MAX_CONTENT_LENGTH=MAX_BODY,
        SOCK_SERVER_OPTIONS={"ping_interval": 25, "thread_class": _DaemonThread},
    )
    app.json.sort_keys = False

    env = Environment(
        loader=FileSystemLoader(str(resource_dir("templates"))),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
        # The templates do not change under a running server: checking each one's mtime at
        # every render (Jinja's default) is per-push work. Debug mode still reloads them.
        auto_reload=app.debug,
    )
    env.globals["static"] = lambda path: f"/static/{path}"
    renderer = Renderer(env, runtime.controller, runtime.coach_info)
    hub = Hub(runtime.controller.snapshot, renderer)
    runtime.controller.subscribe(hub.refresh)
    app.extensions.update(
        {"antidrift.runtime": runtime, "antidrift.renderer": renderer, "antidrift.hub": hub}
    )

    security.install(app, config.allowed_hosts)
    errors.register(app)
    app.register_blueprint(routes.bp)
    sockets.install(app)

    if start_background:
        ticker = Ticker(runtime.controller.expire_if_due, hub.refresh)
        ticker.start()
        if runtime.sampler is not None:
            runtime.sampler.start()

        def quiesce() -> None:
            """Close sockets (1012, so pages reconnect) and kill coach CLIs: on SIGTERM."""
            if runtime.shutting_down.is_set():
                return
            runtime.shutting_down.set()
            hub.close_all()
            ticker.stop()
            if runtime.sampler is not None:
                runtime.sampler.stop()
            runtime.controller.shutdown()
            if runtime.notifier is not None:
                runtime.notifier.shutdown()
            kill_all_running()

        closed: list[bool] = []

        def stop() -> None:
            """Quiesce, then flush and close the store: when the worker exits."""
            quiesce()
            if not closed:
                closed.append(True)
                runtime.store.close()
                if runtime.lock is not None:
                    runtime.lock.release()
                logging.getLogger("antidrift").info("stopped")

        app.extensions["antidrift.quiesce"] = quiesce
        app.extensions["antidrift.stop"] = stop
        atexit.register(stop)
    return app
