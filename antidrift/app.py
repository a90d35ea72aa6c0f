"""The Flask application factory."""

from __future__ import annotations

import atexit
import threading
from importlib.resources import files
from pathlib import Path

from flask import Flask
from jinja2 import Environment, FileSystemLoader, select_autoescape

from antidrift import bootstrap
from antidrift.settings import Settings, SettingsError, load
from antidrift.store import StoreError
from antidrift.web import errors, reflection, routes, security, sockets, tasks
from antidrift.web.push import Hub
from antidrift.web.render import Renderer
from antidrift.web.views import Views

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
    settings: Settings | None = None, *, runtime: bootstrap.Runtime | None = None
) -> Flask:
    """Wire Flask around a runtime: routes, sockets, renderer, hub. Starts nothing.

    Tests pass a runtime of fakes; without one it is built (not started) from the settings.
    """
    settings = settings or load()
    runtime = runtime or bootstrap.build_runtime(settings)
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
    renderer = Renderer(env)
    views = Views(runtime.coach_info, runtime.reads, drift=runtime.drift_info, tasks=runtime.tasks)
    hub = Hub(runtime.controller.snapshot, views, renderer)
    runtime.attach(hub)
    app.extensions.update(
        {
            "antidrift.runtime": runtime,
            "antidrift.views": views,
            "antidrift.renderer": renderer,
            "antidrift.hub": hub,
        }
    )

    security.install(app, settings.allowed_hosts)
    errors.register(app)
    app.register_blueprint(routes.bp)
    app.register_blueprint(reflection.bp)
    app.register_blueprint(tasks.bp)
    sockets.install(app)
    return app


def runtime_of(app: Flask) -> bootstrap.Runtime:
    """The runtime an app serves (gunicorn's hooks stop it through this)."""
    return app.extensions["antidrift.runtime"]


def serving_app(settings: Settings | None = None) -> Flask:
    """The app a server runs (`antidrift:create_app()`, `flask --app antidrift run`): wired,
    its runtime started, and stopped when the interpreter exits. Under gunicorn the hooks in
    antidrift.serve stop it earlier: on SIGTERM and at worker exit."""
    try:
        app = create_app(settings)
    except (SettingsError, StoreError) as exc:
        # A refusal (already running, a database that is not ours, a bad setting) is one
        # line, not a traceback from whichever server loaded us.
        raise SystemExit(f"antidrift: {exc}") from None
    runtime = runtime_of(app)
    runtime.start()
    atexit.register(runtime.stop)
    return app
