"""The 0.4 judge end to end in Chromium, with a scripted judge (the fake claude) behind a real
server: "always on task" from the banner is a rule that title follows with no call; an
unclear window never nudges; a site that retitles itself nudges within the grace + 2 s of the
first switch although each title's own verdict is slow; the review shows what was sent.
The banner, the rules page and the review's verdicts fit at both sizes, light and dark
(screenshots of each where ANTIDRIFT_SHOTS points). The server runs on the test clock: a
grace the test only waits out is passed by moving that clock; the churn's is real time.
Three walks, each from a fresh commitment and no rules (the rule from the banner, the churn,
unclear with the review, which walks to each kind of verdict), and the rules page alone."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.support.browser import App, drift_app
from tests.support.timing import assert_within

ACTION = "Write the intro paragraph of the quarterly report"
GRACE = 2  # seconds: longer than a pause between two titles of the churn (0.4 s)


@pytest.fixture(scope="module")
def app(tmp_path_factory, _chromium_available) -> Iterator[App]:
    with drift_app(tmp_path_factory.mktemp("browser-judge"), grace=GRACE) as app:
        yield app


def _open_verdicts(page) -> None:
    page.locator("details.verdicts summary").click()


def _asked(app: App, title: str) -> bool:
    """Whether the judge was asked about a window with `title`."""
    return any(title in prompt for prompt in app.fake.judge_prompts())


def _nudges(app: App) -> int:
    return len([c for c in app.notifier.calls() if any("Drifting" in a for a in c)])


@pytest.fixture(autouse=True)
def _no_rules(app: App) -> None:
    """Each walk starts with no standing rule (the module's server keeps them)."""
    for rule in app.server.get("/rules"):
        assert app.server.post(f"/rules/{rule['id']}/delete")[0] == 200


def _active(app: App, page, ui):
    """A commitment started by the routes, the page showing it, code judged on task."""
    app.fake.configure(off=("youtube", "steam"), unclear=["slack"])  # after the reset
    app.server.post("/planning")
    status, _ = app.server.post(
        "/commitment",
        {"next_action": ACTION, "success_condition": "Three paragraphs", "timebox_minutes": 45},
    )
    assert status == 200
    page.reload()
    guard = page.locator("#drift-guard")
    app.window("code", "intro.md — report")
    ui.expect(guard).to_have_attribute("data-status", "on_task")
    return guard, page.locator("#drift")


def test_a_rule_from_the_banner_decides_that_title_with_no_call(app, page, watch, ui, browser):
    """The rule made from the banner (this title is always on task) answers that title of
    firefox with no call, said in a calm confirmation; the browser's other titles are still
    judged (the whole browser is not always on task)."""
    expect = ui.expect
    guard, banner = _active(app, page, ui)
    app.window("firefox", "Cat videos — YouTube")
    expect(guard).to_have_attribute("data-status", "drifting")  # judged; the grace runs
    app.server.clock.advance(GRACE)
    expect(banner).to_be_visible()
    ui.wait_until(page, lambda: _nudges(app) == 1, what="the nudge's notification")
    ui.each_look(browser, app.base, "judge-banner")
    page.get_by_role("button", name="This title is always on task").click()
    expect(banner).to_have_count(0)
    expect(guard).to_have_attribute("data-status", "on_task")
    said = page.locator("#active-message .message-ok")
    expect(said).to_have_text("From now on, firefox «Cat videos — YouTube» is always on task.")
    error_red = page.evaluate(
        """() => { const probe = document.createElement("span");
                   probe.style.color = "var(--error)"; document.body.append(probe);
                   const colour = getComputedStyle(probe).color; probe.remove(); return colour; }"""
    )
    assert said.evaluate("e => getComputedStyle(e).color") != error_red, "a confirmation in red"
    expect(page.locator("#active-title")).to_be_focused()  # the banner went: focus did not
    rules = [(r["app"], r["title_contains"]) for r in app.server.get("/rules")]
    assert rules == [("firefox", "Cat videos — YouTube")]
    cats = len([p for p in app.fake.judge_prompts() if "Cat videos" in p])
    app.window("code", "outline.md — report")
    expect(guard).not_to_contain_text("your rule")
    app.window("firefox", "Cat videos — YouTube")  # the rule decides: nothing is sent
    expect(guard).to_contain_text("your rule")
    app.window("firefox", "Dog videos — YouTube")  # another title: the judge is asked
    ui.wait_until(page, lambda: _asked(app, "Dog videos"), what="the other title's call")
    assert len([p for p in app.fake.judge_prompts() if "Cat videos" in p]) == cats
    assert watch.errors == [] and watch.csp_violations() == []


def test_a_retitling_site_nudges_within_the_grace_from_its_first_switch(app, page, watch, ui):
    """Churn: steam is found off task once; later, with a slow judge, every new title of it
    still counts as off task at once, and the grace runs from the first switch (real time:
    the test clock stands still here)."""
    expect = ui.expect
    guard, banner = _active(app, page, ui)
    app.window("steam", "Store — Steam")
    expect(guard).to_have_attribute("data-status", "drifting")
    app.window("code", "intro.md — report")
    expect(guard).to_have_attribute("data-status", "on_task")
    app.fake.configure(off=("youtube", "steam"), unclear=["slack"], delay=30)
    switched = time.monotonic()
    for n in range(1, 40):
        app.window("steam", f"Trailer {n} — Steam")
        if banner.count():
            break
        page.wait_for_timeout(400)
    expect(banner).to_be_visible(timeout=1000)
    took = time.monotonic() - switched
    # A grace that restarted at each title would nudge only after the loop (16 s or more).
    assert_within(took, GRACE + 2, "the nudge after the first switch")
    expect(banner).to_contain_text("already found off task")
    # Its desktop notification runs beside the push (notify-send has its own process).
    ui.wait_until(page, lambda: _nudges(app) == 1, what="the nudge's notification")
    app.fake.configure(off=("youtube", "steam"), unclear=["slack"])
    page.get_by_role("button", name="Back to it").click()
    expect(banner).to_have_count(0)
    app.window("code", "intro.md — report")
    expect(guard).to_have_attribute("data-status", "on_task")
    assert _nudges(app) == 1
    assert watch.errors == [] and watch.csp_violations() == []


def test_unclear_never_nudges_and_the_review_says_what_decided_each_window(
    app, page, watch, ui, browser
):
    expect = ui.expect
    assert app.server.post("/rules", {"app": "firefox", "verdict": "on_task"})[0] == 201
    guard, banner = _active(app, page, ui)
    app.window("firefox", "Dog videos — YouTube")  # the rule: nothing is sent
    expect(guard).to_have_attribute("data-status", "on_task")

    # Unclear: shown as such, never a nudge however long it keeps focus.
    app.window("slack", "#general — Slack")
    expect(guard).to_have_attribute("data-status", "unclear")
    expect(guard).to_contain_text("Unclear")
    app.server.clock.advance(GRACE + 3)
    app.server.ticks(2)
    expect(banner).to_have_count(0)
    assert _nudges(app) == 0

    # Titles counted off task by churn: the first asked about, its slow verdict never back;
    # the next never sent (one judge call at a time).
    app.window("steam", "Store — Steam")
    expect(guard).to_have_attribute("data-status", "drifting")
    app.window("code", "intro.md — report")
    expect(guard).to_have_attribute("data-status", "on_task")
    app.fake.configure(off=("youtube", "steam"), unclear=["slack"], delay=30)
    app.window("steam", "Trailer 1 — Steam")
    expect(guard).to_have_attribute("data-status", "drifting")  # at once: churn
    ui.wait_until(
        page,
        lambda: any("Trailer 1" in p for p in app.fake.judge_prompts()),
        what="the judge asked about the new title",
    )
    app.window("steam", "Trailer 2 — Steam")
    expect(page.locator("#evidence")).to_contain_text("Trailer 2")
    # The judge stays slow until Finish: a title asked about again (the focus moved on
    # before its answer) must not be answered before the commitment ends.
    app.window("code", "intro.md — report")
    expect(guard).to_have_attribute("data-status", "on_task")

    # The review: what decided each window, and what went where.
    page.get_by_role("button", name="Finish").click()
    review = page.locator(".drift-review")
    expect(review).to_contain_text("unclear (the judge could not tell")
    page.locator("details.verdicts summary").click()
    verdicts = page.locator(".verdict-list")
    expect(verdicts).to_contain_text("Sent to claude (haiku): the app “code” and the title")
    expect(verdicts).to_contain_text("decided by your rule: firefox is always on task")
    expect(verdicts).to_contain_text("Nothing was sent for this title")
    expect(verdicts).to_contain_text("No answer came back")
    ui.each_look(browser, app.base, "judge-review", _open_verdicts)
    checked = browser.new_context(bypass_csp=True)  # axe is injected as a script
    try:
        page = checked.new_page()
        page.goto(app.base + "/")
        page.locator("details.verdicts summary").click()
        assert ui.axe_problems(page) == []
    finally:
        checked.close()
    assert watch.errors == [] and watch.csp_violations() == []


def test_the_rules_page_fits_passes_axe_and_adds_and_removes(app, ui, browser):
    assert app.server.post("/rules", {"app": "firefox", "verdict": "on_task"})[0] == 201
    ui.each_look(browser, app.base + "/rules", "judge-rules")
    checked = browser.new_context(bypass_csp=True)  # axe is injected as a script
    try:
        _axe_on_rules(app, ui, checked.new_page())
    finally:
        checked.close()


def _axe_on_rules(app: App, ui, page) -> None:
    expect = ui.expect
    page.goto(app.base + "/rules")
    page.get_by_role("button", name="Add rule").click()  # nothing typed: refused in place
    expect(page.locator("#rule-app")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#rules-message")).to_contain_text("Name the app")
    assert ui.axe_problems(page) == []
    page.locator("#rule-app").fill("steam")
    page.locator("#rule-off").check()
    page.get_by_role("button", name="Add rule").click()
    expect(page.locator("#rules-message")).to_contain_text("From now on, steam is always off task")
    expect(page.locator("#rule-app")).to_have_value("")
    page.get_by_role("button", name="Remove the rule for steam").click()
    expect(page.locator(".rule-list")).not_to_contain_text("steam")
    assert [r["app"] for r in app.server.get("/rules")] == ["firefox"]
