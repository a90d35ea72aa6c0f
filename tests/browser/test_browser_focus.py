"""Focus after every button (issue 19, Access): in Chromium, after each button of each view
the focus is on something (the next sensible control, the new view's heading or a sentence
saying what happened), never left on <body> — including the buttons whose own element goes
away with the answer (Stop coach, Reflect) and the history's correct and remove. The drift
banner's answers are in test_browser_drift.py.

The walk is cut where a state begins (planning, start, active, review, history): each part
starts there by the server's own routes and checks every button of its stretch, so the parts
can run side by side. Twenty buttons in all."""

from __future__ import annotations

import pytest

from tests.support.walk import server_post, walk_http

pytestmark = pytest.mark.browser

ON_BODY = "!document.activeElement || document.activeElement === document.body"
SHORT = 300  # ms: the focus found must still be there a moment later

# Test tooling put into the page before its own scripts (as axe is; never served by the app):
# counts the websocket messages the page has handled (the count goes up inside the message
# event, the task in which htmx swaps it) and, per path, the answers swapped and that count
# when the last one was (an XHR's loadend follows its load, on which htmx swaps; htmx's own
# events may not reach the document then: a push can take the pressed button away before its
# answer). Per path: a draft saved as the fields are typed is answered too, and must not be
# taken for the answer to the button pressed.
COUNT_PUSHES = """
(() => {
  window.__pushes = 0; window.__answers = {};
  const RealSocket = window.WebSocket;
  window.WebSocket = class extends RealSocket {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", () => { window.__pushes += 1; });
    }
  };
  const RealXHR = window.XMLHttpRequest;
  window.XMLHttpRequest = class extends RealXHR {
    constructor() {
      super();
      this.addEventListener("loadend", () => {
        const [count] = window.__answers[this.__path] || [0];
        window.__answers[this.__path] = [count + 1, window.__pushes];
      });
    }
    open(method, url, ...rest) {
      this.__path = new URL(url, location.href).pathname;
      return super.open(method, url, ...rest);
    }
  };
})();
"""
# The path the pressed control (a button, or a form's submit button) posts to.
POSTS_TO = "b => b.getAttribute('hx-post') || (b.form && b.form.getAttribute('hx-post')) || ''"
ANSWERED = "([path, n]) => (window.__answers[path] || [0])[0] > n"
PUSHED_SINCE = "path => window.__pushes > window.__answers[path][1]"


class Walk:
    """One tab, its buttons pressed and the focus checked after each."""

    def __init__(self, page, ui) -> None:
        self.page, self.ui = page, ui
        self.seen: dict[str, str] = {}
        self._path, self._answers = "", 0

    def press(self, name: str) -> None:
        self.click(self.page.get_by_role("button", name=name, exact=True))

    def click(self, target) -> None:
        self._path = target.evaluate(POSTS_TO)
        self._answers = self.page.evaluate("p => (window.__answers[p] || [0])[0]", self._path)
        target.click()

    def after(self, what: str, *, push: bool = True) -> str:
        """The focused element's id once the answer and the push after it have been handled;
        fails when the focus is then on the page (a push and the answer may cross: a moment
        on <body> between them is not the end state, so it is the settled state that is
        checked). The hub queues a transition's push before the HTTP answer returns, on one
        ordered outbox per socket, and sends a frame at least every second: a message the
        page handles after it swapped the answer comes after that push. push=False: a page
        with no socket (Insights), settled once its answer (the new page) is shown."""
        page, ui = self.page, self.ui
        if push:
            assert self._path, f"{what}: the control pressed posts nothing to wait for"
            page.wait_for_function(ANSWERED, arg=[self._path, self._answers])
            page.wait_for_function(PUSHED_SINCE, arg=self._path)
        ui.wait_until(
            page, lambda: not page.evaluate(ON_BODY), timeout=3, what=f"focus after {what}"
        )
        page.wait_for_timeout(SHORT)
        assert not page.evaluate(ON_BODY), f"focus fell to the page after {what}"
        self.seen[what] = ui.active_id(page)
        return self.seen[what]


@pytest.fixture
def walker(tabs, app, ui):
    """walker(state): a Walk on a tab showing `state`, reached by the server's own routes."""

    def open_at(state: str | None = None, path: str = "/") -> Walk:
        if state is not None:
            walk_http(server_post(app.server), state)
        page, _ = tabs.open(path, before=lambda p: p.add_init_script(COUNT_PUSHES))
        if state is not None and path == "/":
            ui.expect(ui.view(page, state)).to_be_visible()
        return Walk(page, ui)

    return open_at


def test_focus_after_the_planning_and_coach_buttons(walker, app, ui, tmp_path):
    expect = ui.expect
    w = walker()
    page = w.page
    w.press("Plan")
    expect(ui.view(page, "planning")).to_be_visible()
    assert w.after("Plan") == "intent"

    app.fake.configure(delay=30)
    page.get_by_label("Rough intent").fill("the quarterly report")
    w.press("Sharpen")
    expect(ui.coach(page, "pending")).to_be_visible()
    w.after("Sharpen")
    w.press("Stop coach")  # its button goes with the pending line
    expect(ui.coach(page, "idle")).to_be_visible()
    assert w.after("Stop coach") == "sharpen"

    go = tmp_path / "go"
    app.fake.configure(wait_for=str(go))  # the coach answers when the test says
    w.press("Sharpen")
    expect(ui.coach(page, "pending")).to_be_visible()
    mine = "Call Dana about the numbers"  # typed while the coach thinks: kept, Use beside it
    page.locator("#next_action").fill(mine)
    ui.wait_until(
        page,
        lambda: app.server.get("/state").get("draft", {}).get("next_action") == mine,
        what="the typed draft on the server",
    )
    go.touch()
    expect(ui.coach(page, "ready")).to_be_visible()
    w.after("Sharpen (ready)")
    w.click(page.get_by_role("button", name="Use the coach's next action"))
    assert w.after("Use") == "next_action"

    w.press("Cancel planning")
    expect(ui.view(page, "locked")).to_be_visible()
    w.after("Cancel planning")
    assert len(w.seen) == 6, w.seen


def test_focus_after_start_refused_and_start(walker, app, ui):
    expect = ui.expect
    w = walker("planning")
    page = w.page
    page.locator("#next_action").fill("")
    page.locator("#success_condition").fill("")
    w.press("Start")  # refused: focus on the first field at fault
    expect(page.locator("#next_action")).to_have_attribute("aria-invalid", "true")
    assert w.after("Start (refused)") == "next_action"
    page.locator("#next_action").fill("Write the intro")
    page.locator("#success_condition").fill("Three paragraphs")
    w.press("Start")
    expect(ui.view(page, "active")).to_be_visible()
    assert w.after("Start") == "active-title"
    assert len(w.seen) == 2, w.seen


def test_focus_after_the_active_and_undo_buttons(walker, app, ui):
    expect = ui.expect
    w = walker("active")
    page = w.page
    w.press("+5 min")
    expect(page.locator("#time-left")).to_contain_text("5 added")
    w.after("+5 min")
    w.press("Pause")
    expect(page.get_by_role("button", name="Resume")).to_be_visible()
    w.after("Pause")
    w.press("Resume")
    expect(page.get_by_role("button", name="Pause")).to_be_visible()
    w.after("Resume")
    w.press("Finish")
    expect(ui.view(page, "review")).to_be_visible()
    w.after("Finish")
    w.press("Undo Finish")
    expect(ui.view(page, "active")).to_be_visible()
    w.after("Undo Finish")
    w.press("Finish")
    expect(ui.view(page, "review")).to_be_visible()
    w.after("Finish (again)")
    assert len(w.seen) == 6, w.seen


def test_focus_after_the_review_and_closure_buttons(walker, app, ui):
    expect = ui.expect
    w = walker("review")
    page = w.page
    w.click(page.get_by_role("button", name="Reflect"))  # its button goes while the coach reads
    w.after("Reflect")
    w.press("Save to history")  # no outcome chosen: refused, the button keeps the focus
    expect(page.locator("#review-message")).not_to_be_empty()
    w.after("Save to history (refused)")
    page.locator("label[for=outcome-met]").click()
    w.press("Save to history")
    expect(ui.view(page, "locked")).to_be_visible()
    w.after("Save to history")
    w.press("Again")  # the closure's one-click next: the same plan, planning
    expect(ui.view(page, "planning")).to_be_visible()
    w.after("Again")
    assert len(w.seen) == 4, w.seen


def test_focus_after_the_history_correct_and_remove(walker, app, ui):
    """The history's correct and remove: the page they return to says so and takes the focus."""
    expect = ui.expect
    walk_http(server_post(app.server), "review")
    assert app.server.post("/end", {"outcome": "met", "note": "for the history"})[0] == 200
    w = walker(path="/insights")
    page = w.page
    page.locator(".entry-tools summary").first.click()
    page.locator(".correct-form label.outcome-missed").first.click()
    page.locator(".correct-form button[type=submit]").first.click()
    expect(page.locator("#done")).to_have_text("Correction saved.")
    assert w.after("Save (correction)", push=False) == "done"
    page.locator(".entry-tools summary").first.click()
    page.locator(".remove-link").first.click()
    w.press("Remove")
    expect(page.locator("#done")).to_contain_text("Removed from history")
    assert w.after("Remove", push=False) == "done"
    assert len(w.seen) == 2, w.seen
