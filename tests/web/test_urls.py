"""Templates build their URLs with url_for, from the app's rules, and render only through the
one renderer: a push on a thread with no request builds the same root-relative URLs as a
page."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import flask
from werkzeug.routing import Map, Rule

from antidrift.server.app import LazyRule, resource_dir
from antidrift.web import requests as web_requests
from antidrift.web.views import Shows
from tests.support.html import parse

TEMPLATES = resource_dir("templates")
WEB = Path(web_requests.__file__).parent

# A quoted path from the root ("/finish", '/rules'); "/>" closes an SVG element.
HARD_CODED = re.compile(r"""["']/(?!>)""")
URL_FOR = re.compile(r"""url_for\(\s*['"]([^'"]+)['"]""")


def test_no_template_hard_codes_a_url():
    found = {}
    for path in sorted(TEMPLATES.glob("*.html")):
        lines = [
            f"{n}: {line.strip()[:120]}"
            for n, line in enumerate(path.read_text().splitlines(), 1)
            if HARD_CODED.search(line)
        ]
        if lines:
            found[path.name] = lines
    assert not found, f"build these with url_for('<endpoint>', …): {found}"


def test_every_endpoint_a_template_names_is_one_of_the_apps(app):
    endpoints = {rule.endpoint for rule in app.url_map.iter_rules()}
    named = {
        (path.name, endpoint)
        for path in TEMPLATES.glob("*.html")
        for endpoint in URL_FOR.findall(path.read_text())
    }
    assert named, "the templates build URLs with url_for"
    unknown = sorted((name, e) for name, e in named if e not in endpoints)
    assert not unknown, unknown


def test_urls_are_root_relative_and_need_no_request_or_app_context(app):
    renderer = app.extensions["antidrift.renderer"]
    assert not flask.has_app_context()
    assert renderer.url_for("web.finish") == "/finish"
    assert renderer.url_for("web.page") == "/"
    assert renderer.url_for("static", filename="style.css") == "/static/style.css"
    assert renderer.url_for("reflection.insights_page", before=None) == "/insights"
    assert renderer.url_for("reflection.insights_page", before="a-1") == "/insights?before=a-1"
    assert renderer.url_for("reflection.correct", cid="c-1") == "/history/c-1"
    # The websocket's rule too: werkzeug builds it as ws://…; htmx adds the page's host.
    shows = Shows("planning", "", "p-1")
    assert renderer.url_for("ws", **shows.params()) == "/ws?view=planning&c=&p=p-1"


def test_a_push_on_a_thread_of_its_own_builds_the_pages_urls(app, client, controller):
    """The ticker pushes from its own thread: no request, no app context."""
    controller.enter_planning()
    views, renderer = app.extensions["antidrift.views"], app.extensions["antidrift.renderer"]
    pushed: list[str] = []

    def push() -> None:
        assert not flask.has_app_context()
        pushed.append(renderer.view(views.page(controller.snapshot())))

    thread = threading.Thread(target=push)
    thread.start()
    thread.join()
    assert pushed, "the push rendered"
    page = parse(client.get("/").get_data(as_text=True))
    view = parse(pushed[0])

    def urls(tree) -> list[str]:
        attrs = ("href", "hx-get", "hx-post", "action", "src", "ws-connect")
        return [n.get(a) for n in tree.iter() for a in attrs if n.get(a) is not None]

    assert urls(view) and all(url.startswith("/") for url in urls(view)), urls(view)
    assert "/commitment" in urls(view) and "/planning/cancel" in urls(view)
    assert set(urls(view)) <= set(urls(page)), "the push builds what the page built"


def test_every_template_renders_through_the_one_renderer():
    """Nothing outside render.py asks Jinja for a template (or reaches the renderer's env)."""
    reaching = {
        path.name
        for path in WEB.glob("*.py")
        if path.name != "render.py" and re.search(r"get_template|\.env\b", path.read_text())
    }
    assert not reaching, reaching


def _values(rule: Rule) -> dict[str, object]:
    """A value for each of a rule's arguments, of its converter's kind."""
    kinds = {"IntegerConverter": 7, "PathConverter": "a/b c"}
    return {
        name: kinds.get(type(rule._converters[name]).__name__, "v-1 é")
        for name in rule.arguments
        if name not in (rule.defaults or {})
    }


def test_each_rule_builds_its_urls_at_first_use_as_werkzeug_does(app):
    """The rules' URL builders are compiled when url_for first asks (not at start: P6), and
    build what werkzeug's own rule builds, with and without arguments it does not name."""
    ours = list(app.url_map.iter_rules())
    assert len(ours) > 50 and all(type(rule) is LazyRule for rule in ours)
    werkzeugs = Map(converters=app.url_map.converters)
    eager = [Rule(rule.rule, **rule.get_empty_kwargs()) for rule in ours]
    for rule in eager:
        werkzeugs.add(rule)
    for rule, theirs in zip(ours, eager, strict=True):
        assert "<builder:" not in rule._build.__name__, f"{rule} was built at start"
        values = _values(rule)
        for unknown in (False, True):
            extra = {"then": "x y/z", "n": 2} if unknown else {}
            built = rule.build({**values, **extra}, append_unknown=unknown)
            assert built == theirs.build({**values, **extra}, append_unknown=unknown)
            assert built is not None and built[1].startswith("/"), (rule, built)
        # Compiled once: werkzeug's own builders are the rule's from now on.
        assert rule._build.__name__ == rule._build_unknown.__name__ == f"<builder:{rule.rule!r}>"
