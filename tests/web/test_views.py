"""View models: the renderer is pure, each widget renders from its object alone, the CLI is
looked up when it can change, and a widget's object is its change key."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest
from jinja2 import Environment, FileSystemLoader, StrictUndefined, UndefinedError
from werkzeug.routing import Map

from antidrift.ai import CoachError
from antidrift.drift.policy import DriftSettings
from antidrift.server.app import resource_dir
from antidrift.session.snapshot import CoachInfo, DriftInfo
from antidrift.web import day_proposal
from antidrift.web import views as views_module
from antidrift.web.page_model import PageModel
from antidrift.web.render import Renderer
from antidrift.web.views import Shows, Views
from antidrift.web.widgets import CoachWidget, EvidenceWidget, Widget
from tests.fakes import FakeCoach, wait_until
from tests.support.html import top_level

WEB = Path(views_module.__file__).parent


def strict_renderer(urls: Map) -> Renderer:
    """The app's templates, but reading an undefined variable is an error, not a blank; the
    templates build their URLs from `urls` (rules: data, with no request or app context)."""
    env = Environment(
        loader=FileSystemLoader(str(resource_dir("templates"))),
        autoescape=True,
        undefined=StrictUndefined,
    )
    return Renderer(env, urls)


@pytest.fixture
def urls(make_app, controller) -> Map:
    """The app's URL rules (the app itself is not used: its url_map is data)."""
    return make_app(controller).url_map


class CountingCoach(FakeCoach):
    """A coach whose CLI lookups are counted."""

    env_var = "ANTIDRIFT_FAKE_BIN"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.lookups = 0
        self.installed = True

    def binary(self) -> str | None:
        self.lookups += 1
        return "/fake/bin/fake" if self.installed else None


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


# -- the renderer takes data and returns HTML ---------------------------------------------------


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_the_renderer_imports_no_runtime_controller_or_store():
    imported = _imports(WEB / "render.py")
    app_modules = {name for name in imported if name.startswith("antidrift")}
    allowed = {
        "antidrift.web.views",
        "antidrift.web.page_model",  # the whole view (views.py builds it)
        "antidrift.web.rules_view",  # the rules partial's view data
        "antidrift.web.widgets",
        "antidrift.core.minutes",
        "antidrift.core.timing",
    }
    assert app_modules <= allowed, app_modules


def test_a_page_renders_from_a_view_model_without_any_app(controller, reads, urls):
    controller.enter_planning()
    snap = controller.snapshot()
    model = Views(CoachInfo("fake", None, FakeCoach()), reads).page(snap)
    assert isinstance(model, PageModel)
    html = strict_renderer(urls).view(model)
    assert 'data-state="planning"' in html and 'id="coach"' in html


# -- every pushed widget renders from its object alone ------------------------------------------


def _drive(controller, coach: FakeCoach, clock, step: str) -> None:
    if step == "planning":
        controller.enter_planning()
    elif step == "pending":
        coach.gated = True
        calls = len(coach.calls)
        controller.coaching.request("write")
        coach.wait_calls(calls + 1)
        clock.advance(3)
    elif step == "ready":
        coach.release_all()
        wait_until(lambda: controller.snapshot().coach.status == "ready")
    elif step == "error":
        coach.enqueue(CoachError("the coach took too long"))
        controller.coaching.request("again")
        wait_until(lambda: controller.snapshot().coach.status == "error")
    elif step == "active":
        controller.start_manual_commitment("Write", "Done", "20")
    elif step == "sample":
        controller.record_window("Editor", "notes.txt")
    elif step == "review":
        controller.finish()
    elif step == "break":
        controller.end("met")
        controller.breaks.take()
    elif step.startswith("day"):  # Sharpen the day: /day's own widgets, in any state
        coach.gated = step == "day pending"
        controller.day_plans.request("the rest of the day")
        if step == "day ready":
            wait_until(lambda: controller.snapshot().day_plan.status == "ready")


STEPS = ["planning", "pending", "ready", "error", "active", "sample", "review", "break"]
DAY_STEPS = ["day pending", "day ready"]


def test_each_pushed_widget_renders_from_its_own_object_alone(make_controller, clock, reads, urls):
    coach = CountingCoach()
    controller = make_controller(coach)
    views = Views(CoachInfo("fake", None, coach), reads)
    renderer = strict_renderer(urls)
    seen: set[type] = set()
    # Sync on, with a commitment running on another machine: the locked view's line on it.
    views.elsewhere = lambda: [
        {"state": "active", "device": "desk", "next_action": "Write", "ends_at": None}
    ]
    for step in ["locked", *STEPS, *DAY_STEPS]:
        _drive(controller, coach, clock, step)
        snap = controller.snapshot()
        if step == "day ready":  # and another machine's change of the queue taken in
            views.day_taken = lambda: 1
        day = {w.name: w for w in (*day_proposal.widgets(snap), *views.day_items(snap))}
        widgets = {w.name: w for w in views.widgets(snap)} | day
        for widget in widgets.values():
            assert dataclasses.is_dataclass(widget) and widget.__dataclass_params__.frozen
            hash(widget)  # a key: hashable, compared by value
            try:
                html = renderer.widget(widget, widgets)
            except UndefinedError as exc:  # the partial reads something outside its object
                pytest.fail(f"_{widget.name}.html reads outside its view model: {exc}")
            assert len(top_level(html)) == 1, f"_{widget.name}.html must have one root"
            seen.add(type(widget))
    shown = {base.__name__ for c in seen for base in c.__mro__}  # a family through its members
    missing = {cls.__name__ for cls in Widget.__subclasses__()} - shown
    assert not missing, f"add a step that shows {missing} to STEPS in this test"


def test_a_widgets_object_changes_exactly_when_what_it_shows_changes(controller, reads):
    controller.enter_planning()
    controller.start_manual_commitment("Write", "Done", "20")
    views = Views(CoachInfo("fake", None, FakeCoach()), reads)

    def evidence() -> EvidenceWidget:
        return {w.name: w for w in views.widgets(controller.snapshot())}["evidence"]

    controller.record_window("firefox", "Docs")
    first = evidence()
    controller.record_window("firefox", "Docs")
    assert evidence() == first  # nothing new to show: nothing to push
    controller.record_window("firefox", "Inbox")
    assert evidence() != first and evidence().title == "Inbox"


# -- the CLI is looked up when it can change, not every tick ------------------------------------


def test_the_cli_is_looked_up_on_entering_planning_then_at_most_every_few_seconds(
    make_controller, reads
):
    coach = CountingCoach()
    controller = make_controller(coach)
    clock = Clock()
    views = Views(CoachInfo("fake", None, coach), reads, recheck=5.0, monotonic=clock)
    controller.enter_planning()

    def source():
        return next(w for w in views.widgets(controller.snapshot()) if isinstance(w, CoachWidget))

    assert source().source.found and coach.lookups == 1
    for _ in range(50):  # fifty ticks within the window
        source()
    assert coach.lookups == 1
    coach.installed = False  # uninstalled while the page is open
    clock.now += 5
    assert not source().source.found and coach.lookups == 2
    coach.installed = True
    controller.cancel_planning()
    views.widgets(controller.snapshot())  # locked: nothing to look up
    assert coach.lookups == 2
    controller.enter_planning()  # a new planning looks again at once
    assert source().source.found and coach.lookups == 3


def test_the_guard_line_says_what_the_judge_does_now_not_what_planning_found(
    make_controller, reads, judge, urls
):
    coach = CountingCoach()
    controller = make_controller(coach, judge=judge, drift=DriftSettings())
    clock = Clock()
    views = Views(
        CoachInfo("fake", None, coach),
        reads,
        recheck=5.0,
        monotonic=clock,
        drift=DriftInfo(True, "fake"),
    )
    renderer = strict_renderer(urls)

    def line() -> str:
        widgets = {w.name: w for w in views.widgets(controller.snapshot())}
        return " ".join(renderer.widget(widgets["drift_guard"], widgets).split())

    coach.installed = False
    controller.enter_planning()
    views.widgets(controller.snapshot())  # planning finds no CLI
    coach.installed = True  # installed before Start: the judge will be asked
    controller.start_manual_commitment("Write", "Done", "20")
    assert "Drift guard on — fake checks each new window" in line()
    before = coach.lookups
    for _ in range(30):  # thirty ticks within the window
        line()
    assert coach.lookups == before
    coach.installed = False  # removed while the commitment runs
    clock.now += 5
    assert "Drift guard off — fake is not installed" in line()
    coach.installed = True
    views.coach = CoachInfo("fake", None, coach)  # Settings saved: the new coach, at once
    assert "Drift guard on" in line()


def test_the_hub_does_not_look_the_cli_up_on_every_tick(make_controller, make_app):
    coach = CountingCoach()
    app = make_app(make_controller(coach), coach)
    client = app.test_client()
    client.post("/planning")
    hub = app.extensions["antidrift.hub"]
    conn = hub.connect(Shows("planning"))
    before = coach.lookups
    for _ in range(30):
        hub.refresh()
    assert coach.lookups - before <= 1
    hub.disconnect(conn)
