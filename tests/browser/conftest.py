"""Browser tests: Debian's Chromium driven by Playwright against a real `antidrift serve`.

* One Chromium per session, one server (with a fake `claude` first on its PATH) per module,
  a fresh browser context per test; the server is reset to locked before each test.
* Without Chromium (or Playwright) every browser test is skipped with ONE summary line that
  says how to install it.
* A failing test leaves a screenshot of each of its open pages, and the server log tail, in
  `artifacts/screenshots/`; `ui.snap(page, name)` saves the named view screenshots where
  ANTIDRIFT_SHOTS points (nowhere when it is unset).
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support import procs
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, HEADLESS_SHELL, App
from tests.support.fake_cli import FakeCLI, path_with
from tests.support.fake_notify import FakeNotifier
from tests.support.require import need
from tests.support.server import REPO, RunningServer

SCREENSHOTS = REPO / "artifacts" / "screenshots"
# axe-core, installed by scripts/install-axe (.ci/run runs it): injected by the tests into the
# page they check, as test tooling, never served by the app.
AXE = (
    Path(os.environ.get("ANTIDRIFT_AXE_CACHE") or REPO / ".cache" / "axe")
    / "node_modules"
    / "axe-core"
    / "axe.min.js"
)
SKIP_NO_CHROMIUM = "browser tests skipped: install Chromium (apt-get install chromium)"
SKIP_NO_PLAYWRIGHT = "browser tests skipped: install Playwright (pip install -e '.[test]')"
_SKIPS = (SKIP_NO_CHROMIUM, SKIP_NO_PLAYWRIGHT)
_SKIP_LINE = next(
    n
    for n, line in enumerate(Path(__file__).read_text().splitlines(), 1)
    if line.strip() == "pytest.skip(missing)"
)

try:
    from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None

# The page at rest: no htmx request, swap or settle under way, no CSS transition running.
SETTLED = """() => !document.querySelector(
        '.htmx-request, .htmx-swapping, .htmx-settling, .htmx-added')
    && document.getAnimations().every(a => !(a instanceof CSSTransition)
                                           || a.playState !== 'running')"""
# The sizes a view is looked at: a desktop and a phone.
LOOK_SIZES = {"desktop": (1280, 800), "phone": (390, 844)}

# What a person waits for, at most. Pushes arrive within a second or so.
expect_timeout = 10_000
if sync_playwright is not None:
    expect.set_options(timeout=expect_timeout)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call):
    report = yield
    setattr(item, f"rep_{report.when}", report)
    # pytest pins a skip to each test's own line, so `-ra` would print one line per test;
    # pinned to this file instead, the whole suite's skip folds into ONE summary line.
    longrepr = report.longrepr
    if report.skipped and isinstance(longrepr, tuple) and longrepr[2].endswith(_SKIPS):
        report.longrepr = (__file__, _SKIP_LINE, longrepr[2])
    return report


# -- the browser -------------------------------------------------------------------------------


@pytest.fixture(scope="session", autouse=True)
def _chromium_available() -> None:
    """Skipped here, once for the session, so `-ra` folds every skip into one line. CI sets
    ANTIDRIFT_REQUIRE_BROWSER=1 (.ci/run): there a missing browser fails instead."""
    missing = None
    if sync_playwright is None:
        missing = SKIP_NO_PLAYWRIGHT
    elif CHROMIUM is None:
        missing = SKIP_NO_CHROMIUM
    if missing is None:
        return
    if os.environ.get("ANTIDRIFT_REQUIRE_BROWSER", "") not in ("", "0"):
        pytest.fail(missing.replace("skipped", "required (ANTIDRIFT_REQUIRE_BROWSER)"), False)
    pytest.skip(missing)


@pytest.fixture(scope="session")
def browser(_chromium_available) -> Iterator[Browser]:
    """The session's browser: the headless shell where there is one (tests/support/browser)."""
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=HEADLESS_SHELL, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


# -- the server --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def app(tmp_path_factory, _chromium_available, request) -> Iterator[App]:
    """The module's server; a module with `TEST_CLOCK = True` gets one on a test clock
    (`app.server.clock.advance(seconds)`), to reach a deadline without waiting for it."""
    tmp = tmp_path_factory.mktemp("browser")
    fake = FakeCLI(tmp / "bin")
    notifier = FakeNotifier(tmp / "bin")  # the desktop notifier, given title and body
    env = {
        "PATH": path_with(tmp / "bin"),
        "ANTIDRIFT_AI_BACKEND": "claude",
        "ANTIDRIFT_AI_TIMEOUT": "30",
        "ANTIDRIFT_NOTIFY": "command",
        "ANTIDRIFT_NOTIFY_COMMAND": notifier.command_line(),
    }
    test_clock = getattr(request.module, "TEST_CLOCK", False)
    server = RunningServer(tmp / "data", env=env, test_clock=test_clock)
    # A claude binary named by the environment would bypass the fake.
    server.env.pop("ANTIDRIFT_CLAUDE_BIN", None)
    server.start()
    try:
        yield App(server, fake, tmp, notifier)
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def _fresh(request) -> None:
    """Every test starts locked, with a fake that answers the default proposal at once."""
    if "app" not in request.fixturenames:
        return
    app: App = request.getfixturevalue("app")
    if app.server.proc is None or app.server.proc.poll() is not None:
        app.server.start()  # an earlier test stopped it and failed before restarting it
    app.fake.configure()
    app.server.reset()
    if app.notifier is not None:
        app.notifier.log.unlink(missing_ok=True)  # each test counts its own notifications


# -- pages -------------------------------------------------------------------------------------


@dataclass
class Watch:
    """What one tab logged and received: console lines, page errors, websocket frames."""

    console: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    frames: list[tuple[float, str]] = field(default_factory=list)
    sockets: list[str] = field(default_factory=list)
    closed: list[str] = field(default_factory=list)  # sockets the page saw close, in order

    def attach(self, page: Page) -> Watch:
        page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("websocket", self._socket)
        return self

    def _socket(self, ws) -> None:
        self.sockets.append(ws.url)
        # Stamped when Python is handed the event, which can be well after the page got it:
        # a socket's frames all come before its close, so a mark taken once the close is in
        # (`closed`) comes after every frame that socket carried.
        ws.on("framereceived", lambda payload: self.frames.append((time.monotonic(), payload)))
        ws.on("close", lambda _: self.closed.append(ws.url))

    def csp_violations(self) -> list[str]:
        return [c for c in self.console if "Content Security Policy" in c or "Refused to" in c]

    def frames_with(self, needle: str, since: float = 0.0) -> list[str]:
        return [f for t, f in self.frames if t >= since and needle in f]


@dataclass
class Tabs:
    """Opens tabs in the test's browser context, each with its Watch."""

    context: BrowserContext
    base: str
    watches: dict[int, Watch] = field(default_factory=dict)

    def open(
        self,
        path: str = "/",
        *,
        before: Callable[[Page], object] | None = None,
        wait_until: str = "load",
    ) -> tuple[Page, Watch]:
        """A new tab on `path`; `before(page)` runs first (e.g. to route its websocket).
        `wait_until="commit"` returns as soon as it navigates, so several tabs load at once."""
        page = self.context.new_page()
        watch = Watch().attach(page)
        self.watches[id(page)] = watch
        if before is not None:
            before(page)
        page.goto(self.base + path, wait_until=wait_until)
        return page, watch


@pytest.fixture
def tabs(browser: Browser, app: App, request) -> Iterator[Tabs]:
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    tabs = Tabs(context, app.base)
    try:
        yield tabs
    finally:
        report = getattr(request.node, "rep_call", None)
        if report is not None and report.failed:
            _leave_evidence(request.node.name, context.pages, app)
        context.close()


@pytest.fixture
def new_tabs(browser: Browser, app: App, request) -> Callable[..., Tabs]:
    """new_tabs(viewport=..., color_scheme=...): Tabs in a browser context of their own
    (a phone's width, dark mode, ...), closed after the test."""
    contexts: list[BrowserContext] = []

    def make(**options: object) -> Tabs:
        options.setdefault("viewport", {"width": 1000, "height": 900})
        context = browser.new_context(**options)
        contexts.append(context)
        return Tabs(context, app.base)

    yield make
    report = getattr(request.node, "rep_call", None)
    for context in contexts:
        if report is not None and report.failed:
            _leave_evidence(request.node.name, context.pages, app)
        context.close()


@pytest.fixture
def page(tabs: Tabs) -> Page:
    page, _ = tabs.open()
    return page


@pytest.fixture
def watch(tabs: Tabs, page: Page) -> Watch:
    return tabs.watches[id(page)]


def _leave_evidence(name: str, pages: list[Page], app: App) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    stem = re.sub(r"[^\w.-]+", "_", name)
    for i, page in enumerate(pages):
        with contextlib.suppress(Exception):
            page.screenshot(path=str(SCREENSHOTS / f"FAILED-{stem}-tab{i}.png"), full_page=True)
    print(f"screenshots: {SCREENSHOTS}/FAILED-{stem}-tab*.png")
    print("server log (tail):\n" + app.server.log())


class UI:
    """Helpers the tests share, handed out by the `ui` fixture (test modules import no
    Playwright themselves, so a machine without it still skips with one line)."""

    expect = staticmethod(expect) if sync_playwright is not None else None

    @staticmethod
    def snap(page: Page, view: str) -> Path | None:
        """The named screenshot of a view (locked, planning-idle, pending, ready, active...),
        taken only where ANTIDRIFT_SHOTS points: the PNG is for a person reviewing the look;
        the test's asserts and axe are what keep it (a screenshot costs a run ~0.3 s each)."""
        shots = os.environ.get("ANTIDRIFT_SHOTS")
        if not shots:
            return None
        Path(shots).mkdir(parents=True, exist_ok=True)
        path = Path(shots) / f"{view}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    @staticmethod
    def view(page: Page, state: str):
        """The whole view, once it shows `state`."""
        return page.locator(f'#view[data-state="{state}"]')

    @staticmethod
    def coach(page: Page, status: str):
        return page.locator(f'#coach[data-status="{status}"]')

    @classmethod
    def plan(cls, page: Page) -> None:
        """Locked -> planning by clicking Plan, as a person would."""
        page.get_by_role("button", name="Plan").click()
        expect(cls.view(page, "planning")).to_be_visible()

    @staticmethod
    def active_id(page: Page) -> str:
        """The id of the focused element ("" for <body> or an element without one)."""
        return page.evaluate("document.activeElement ? document.activeElement.id : ''")

    @staticmethod
    def focused_matches(page: Page, selector: str) -> bool:
        return page.evaluate(
            "s => !!document.activeElement && document.activeElement.matches(s)", selector
        )

    @classmethod
    def tab_to(cls, page: Page, selector: str, *, back: bool = False, limit: int = 30) -> int:
        """Press Tab (or Shift+Tab) until the focused element matches; how many presses."""
        for presses in range(limit + 1):
            if cls.focused_matches(page, selector):
                return presses
            page.keyboard.press("Shift+Tab" if back else "Tab")
        raise AssertionError(f"{selector} never took focus after {limit} presses of Tab")

    @staticmethod
    def wait_until(
        page: Page, condition: Callable[[], bool], *, timeout: float = 10.0, what: str = "condition"
    ) -> None:
        """Poll a test-side condition while Playwright keeps delivering the page's events."""
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout} s waiting for {what}")
            page.wait_for_timeout(50)

    @staticmethod
    def fake_timers(page: Page) -> None:
        """Before a page loads (`tabs.open(before=ui.fake_timers)`): its context's JS timers
        on Playwright's clock, which keeps real time until `ui.reconnect` jumps it. CSS
        animations are no JS timers: the offline notice's delay and the countdown keep
        real time."""
        page.context.clock.install()

    @staticmethod
    def reconnect(
        page: Page,
        reconnected: Callable[[], bool],
        *,
        timeout: float = 10.0,
        what: str = "the page to reconnect",
    ) -> None:
        """Wait for `reconnected()` on a page with `ui.fake_timers`, its server back up, without
        sitting out htmx's reconnect back-off (full jitter, up to 64 s): its JS clock jumps
        past the longest delay, so the retry htmx scheduled runs now. Only a retry htmx
        scheduled itself runs (it schedules none after a close code it does not retry on),
        and the socket it opens is real."""
        deadline = time.monotonic() + timeout
        while not reconnected():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout} s waiting for {what}")
            # Again each time: an attempt already failing when the server came back schedules
            # a new delay.
            page.clock.fast_forward(65_000)
            page.wait_for_timeout(50)

    @staticmethod
    def timer_text(page: Page) -> str:
        """What the page's one timer (role="timer", the countdown) shows on screen, read from
        Chromium's accessibility tree: its digits are CSS counters (generated content), which
        neither the DOM's text nor getComputedStyle's `content` (the unresolved counter()
        expression) holds."""
        cdp = page.context.new_cdp_session(page)
        try:
            nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
        finally:
            cdp.detach()
        by_id = {n["nodeId"]: n for n in nodes}
        timers = [n for n in nodes if n.get("role", {}).get("value") == "timer"]
        assert len(timers) == 1, f"{len(timers)} timers on the page"
        assert timers[0]["name"]["value"] == "Time left"

        def text(node) -> str:
            if node.get("role", {}).get("value") == "StaticText":
                return node.get("name", {}).get("value", "")
            return "".join(text(by_id[c]) for c in node.get("childIds", []) if c in by_id)

        return text(timers[0])

    @staticmethod
    def box(element) -> dict:
        """The element's box; waits out a push swapping it (the clock's, every second; a
        widget's when its state changes), during which it has none."""
        for _ in range(100):
            element.wait_for(state="visible")
            box = element.bounding_box()
            if box is not None:
                return box
            element.page.wait_for_timeout(20)
        raise AssertionError(f"{element} never settled into a box")

    @staticmethod
    def settled(page: Page) -> None:
        """Return once htmx has finished its requests and swaps and no CSS transition is
        running (a button's colour fading in, on focus): what axe's contrast check or a
        screenshot must not catch half way. The event itself, not a guessed settle time."""
        page.wait_for_function(SETTLED)

    @classmethod
    def each_look(
        cls,
        browser: Browser,
        url: str,
        name: str,
        prepare: Callable[[Page], object] | None = None,
    ) -> None:
        """The page at `url` on a desktop and a phone, light and dark, never scrolls sideways;
        saved as `name-<size>-<scheme>` (ui.snap). One page per size, `prepare(page)` run once
        on it, its colour scheme switched: what differs between light and dark is colour."""
        for size, (width, height) in LOOK_SIZES.items():
            context = browser.new_context(viewport={"width": width, "height": height})
            try:
                page = context.new_page()
                page.goto(url)
                if prepare is not None:
                    prepare(page)
                for scheme in ("light", "dark"):
                    page.emulate_media(color_scheme=scheme)
                    assert cls.sideways_scroll(page) <= 0, f"{name} scrolls sideways at {width} px"
                    cls.snap(page, f"{name}-{size}-{scheme}")
            finally:
                context.close()

    @staticmethod
    def sideways_scroll(page: Page) -> int:
        """How many pixels the page scrolls sideways (0 when it fits its viewport)."""
        return page.evaluate(
            "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
            " - document.documentElement.clientWidth"
        )

    @staticmethod
    def axe_problems(page: Page, impacts: tuple[str, ...] = ("serious", "critical")) -> list[str]:
        """axe-core's violations of the given impacts on the page as it is now, one line each.
        axe is injected as a script tag, so the context must bypass the page's CSP."""
        need(AXE.is_file(), f"axe-core is not installed at {AXE}: run scripts/install-axe")
        if not page.evaluate("typeof window.axe !== 'undefined'"):
            page.add_script_tag(path=str(AXE))
        found = page.evaluate(
            """async () => (await axe.run(document, {resultTypes: ["violations"]})).violations
                .map(v => ({id: v.id, impact: v.impact, help: v.help,
                            where: v.nodes.slice(0, 3).map(n => n.target.join(" "))}))"""
        )
        return [
            f"{v['impact']} {v['id']}: {v['help']} at {v['where']}"
            for v in found
            if v["impact"] in impacts
        ]

    @staticmethod
    def process_gone(pid: int) -> bool:
        """Gone, or a zombie (already killed, waiting for its reaper)."""
        return not procs.alive(pid)


@pytest.fixture
def ui() -> type[UI]:
    return UI
