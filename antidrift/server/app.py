"""The Flask application factory."""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path

from flask import Flask
from jinja2 import Environment, FileSystemLoader, select_autoescape
from werkzeug.routing import Rule

from antidrift.core.errors import StoreError
from antidrift.core.release import version
from antidrift.core.terminal import say
from antidrift.server import bootstrap
from antidrift.settings import LiveSettings, Settings, SettingsError, load
from antidrift.web import (
    assets,
    day,
    errors,
    follow,
    icon,
    manifest,
    reflection,
    routes,
    rules,
    security,
    settings_page,
    sockets,
    sync_status,
    tasks,
    week,
)
from antidrift.web.push import Hub
from antidrift.web.render import Renderer
from antidrift.web.views import Views
from antidrift.web.watch import StateWatch

MAX_BODY = 64 * 1024


class _DaemonThread(threading.Thread):
    """simple-websocket's per-socket reader. A daemon: a page that never answers our close
    frame (a frozen tab) must not hold the worker's exit until gunicorn kills it."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.daemon = True


class LazyRule(Rule):
    """werkzeug's rule, with its two URL builders compiled at their first use, not when the
    rule is added: werkzeug compiles two per rule (an AST, then `compile`), ~130 of them for
    our routes, and only `url_for` ever calls them (no request is routed by them). That was
    ~10 ms of every start, before the first answer (issue 40, P6).

    werkzeug has no public way to defer them: this takes the one method that makes them. If
    werkzeug stops calling it, rules are simply built at once again (the tests see it)."""

    def _compile_builder(self, append_unknown: bool = True) -> Callable[..., tuple[str, str]]:
        compile_now = super()._compile_builder
        name = "_build_unknown" if append_unknown else "_build"

        def build(rule: Rule, *args: object, **kwargs: object) -> tuple[str, str]:
            built = compile_now(append_unknown).__get__(rule, None)
            setattr(rule, name, built)  # compiled once: a race compiles the same one twice
            return built(*args, **kwargs)

        return build


class App(Flask):
    """Flask, its rules' URL builders compiled at their first use (LazyRule)."""

    url_rule_class = LazyRule


def resource_dir(name: str) -> Path:
    """`templates/` or `static/`: inside the package when installed from a wheel, at the
    repository's top level in a checkout or an editable install."""
    packaged = Path(str(files("antidrift"))) / name
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / name


def create_app(
    settings: Settings | None = None, *, runtime: bootstrap.Runtime | None = None
) -> Flask:
    """The one app factory (`antidrift:create_app()` for gunicorn and `flask --app antidrift
    run`): wires Flask around a runtime — routes, sockets, renderer, hub — and starts nothing.

    Without a runtime one is built from the settings (a refusal is one line: SystemExit) and
    started by whoever serves the app: gunicorn's post_worker_init hook (`antidrift serve`,
    the repo's gunicorn.conf.py), else the first request (`flask run`); it stops at exit.
    Tests pass a runtime of fakes and start it themselves when they need it.
    """
    built = runtime is None
    try:
        settings = settings or load()
        runtime = runtime or bootstrap.build_runtime(settings)
    except (SettingsError, StoreError) as exc:
        # A refusal (already running, a database that is not ours, a bad setting) is one
        # line, not a traceback from whichever server loaded us; exit status 3 is gunicorn's
        # "worker failed to boot", which stops it rather than starting worker after worker.
        say(f"antidrift: {exc}", err=True)
        raise SystemExit(3) from None
    static_dir = resource_dir("static")
    app = App(__name__, static_folder=str(static_dir), static_url_path="/static")
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
    # The footer asks the version when a page is rendered, not the start (issue 40).
    env.globals.update(version=version, theme=manifest.THEME)  # footer; title bar colours
    renderer = Renderer(env, app.url_map)  # the templates' url_for, with no request needed
    fakes = runtime.settings is None
    if fakes:  # a runtime of fakes: the page still reads and saves, the fakes stay
        runtime.settings = LiveSettings(settings)
    views = Views(runtime.coach_info, runtime.reads, drift=runtime.drift_info, tasks=runtime.tasks)
    views.elsewhere = lambda: (
        runtime.sync.elsewhere() if runtime.sync is not None and runtime.sync.on else None
    )
    views.day_taken = lambda: (
        runtime.sync.importer.day_taken if runtime.sync is not None and runtime.sync.on else 0
    )
    if not fakes:
        runtime.settings.subscribe(lambda new: _take_up(runtime, views, new))
    hub = Hub(runtime.controller.snapshot, views, renderer)
    runtime.attach(hub)
    watch = StateWatch()  # GET /state?wait=…: held until the state changes
    runtime.controller.subscribe(watch.changed)
    app.extensions.update(
        {
            "antidrift.runtime": runtime,
            "antidrift.views": views,
            "antidrift.renderer": renderer,
            "antidrift.hub": hub,
            "antidrift.watch": watch,
        }
    )

    security.install(app, settings.allowed_hosts)
    errors.register(app)
    app.register_blueprint(routes.bp)
    app.register_blueprint(reflection.bp)
    app.register_blueprint(settings_page.bp)
    app.register_blueprint(rules.bp)
    app.register_blueprint(tasks.bp)
    app.register_blueprint(icon.bp)
    app.register_blueprint(week.bp)
    app.register_blueprint(day.bp)
    app.register_blueprint(sync_status.bp)
    app.register_blueprint(follow.bp)
    assets.install(app, static_dir)
    sockets.install(app)
    if built:
        # Started once, before the first request is served (idempotent, and cheap once
        # started); under gunicorn the post_worker_init hook has started it already.
        app.before_request(runtime.start)
        atexit.register(runtime.stop)
    return app


def _take_up(runtime: bootstrap.Runtime, views: Views, new: Settings) -> None:
    """A change saved on the Settings page: the runtime rebuilds, the pages say so."""
    runtime.take_up(new)
    views.coach, views.drift = (
        runtime.coach_info,
        runtime.drift_info,
    )  # the new CLI is looked up at the next render
    if runtime.pages is not None:
        runtime.pages.refresh()


def runtime_of(app: Flask) -> bootstrap.Runtime:
    """The runtime an app serves (gunicorn's hooks stop it through this)."""
    return app.extensions["antidrift.runtime"]
