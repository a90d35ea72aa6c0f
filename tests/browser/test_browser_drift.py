"""The drift banner in Chromium: it appears by push, its buttons work by htmx alone, and it
clobbers nothing (focus, the clock, which it never pushes down); the banner and the
review's episodes fit at both sizes, light and dark (screenshots of each where
ANTIDRIFT_SHOTS points). The server runs on the test clock: the grace and cooldown are
passed by moving it, not waited out."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.support.browser import App, drift_app

ACTION = "Write the intro paragraph of the quarterly report"


@pytest.fixture(scope="module")
def app(tmp_path_factory, _chromium_available) -> Iterator[App]:
    """This module's server: a fake claude that also judges, a fake notify-send, short grace,
    the test clock."""
    with drift_app(tmp_path_factory.mktemp("browser-drift")) as app:
        yield app


def _start(app: App) -> None:
    app.server.post("/planning")
    status, _ = app.server.post(
        "/commitment",
        {"next_action": ACTION, "success_condition": "Three paragraphs", "timebox_minutes": 45},
    )
    assert status == 200


def test_the_banner_appears_and_its_buttons_work_without_clobbering(app, page, watch, ui, browser):
    expect = ui.expect
    _start(app)
    page.reload()
    guard = page.locator("#drift-guard")
    expect(guard).to_contain_text("Drift guard on — claude checks")
    app.window("code", "intro.md — report")
    expect(guard).to_have_attribute("data-status", "on_task")

    finish = page.get_by_role("button", name="Finish")
    finish.focus()
    clock = page.locator(".time-left-clock")
    clock_at = ui.box(clock)["y"]
    app.window("firefox", "Cat videos — YouTube")
    app.server.clock.advance(1)  # the grace, from the switch: nudged once judged off task
    banner = page.locator("#drift")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("Cat videos")
    # The tab says it too: the title asks first, the icon takes the drift colour.
    expect(page).to_have_title(re.compile(r"^Drifting\? · \d\d:\d\d · "))
    expect(page.locator("head link#icon")).to_have_attribute("href", re.compile("state=drifting"))
    expect(banner).not_to_contain_text(ACTION)  # the heading just below it says it
    # Under the clock, above the heading it asks about: the clock does not move.
    top = ui.box(page.locator("#drift-banner"))["y"]
    assert ui.box(clock)["y"] == clock_at, "the banner pushed the clock down"
    assert clock_at < top < ui.box(page.locator("#active-title"))["y"]
    expect(page.locator("#evidence")).to_have_attribute("data-judged", "drifting")
    focused = page.evaluate("document.activeElement.textContent.trim()")
    assert focused == "Finish", "the banner's push took the focus away"
    before = clock.text_content()
    expect(clock).not_to_have_text(before)  # the clock still runs beside the banner
    ui.wait_until(page, lambda: app.notifier.calls(), what="the drift notification")
    ui.each_look(browser, app.base, "active-drift")

    page.get_by_role("button", name="This is on task").click()
    expect(banner).to_have_count(0)
    expect(guard).to_have_attribute("data-status", "on_task")
    expect(page.locator("#active-message")).to_be_empty()
    expect(page.locator("#active-title")).to_be_focused()  # not the page's top (body)
    judged = len(app.fake.judge_prompts())
    app.window("firefox", "Cat videos — YouTube")
    app.server.clock.advance(3)  # past grace and cooldown (1 s each)...
    app.server.ticks(2)  # ...and two ticks have looked: the taught window never nudges
    expect(banner).to_have_count(0)
    assert len([c for c in app.notifier.calls() if any("Drifting" in a for a in c)]) == 1

    app.window("firefox", "Home / YouTube shorts")
    # The guard asks its judge one call at a time: once the shorts' call has begun, a call
    # for the taught window would have been made (and logged) before it.
    ui.wait_until(
        page,
        lambda: any("YouTube shorts" in p for p in app.fake.judge_prompts()),
        what="the shorts' judge call",
    )
    assert len(app.fake.judge_prompts()) == judged + 1, "the taught window was judged again"
    app.server.clock.advance(1)  # its grace
    expect(banner).to_be_visible()
    page.get_by_role("button", name="Back to it").click()
    expect(banner).to_have_count(0)
    expect(page.locator("#active-title")).to_be_focused()
    app.window("code", "intro.md — report")
    expect(guard).to_have_attribute("data-status", "on_task")

    page.get_by_role("button", name="Finish").click()
    episodes = page.locator(".episodes .episode")
    expect(episodes).to_have_count(2)
    expect(page.locator(".drift-review")).to_contain_text("you said: on task")
    expect(page.locator(".drift-review")).to_contain_text("you said: back to it")
    ui.each_look(browser, app.base, "review-drift")
    assert watch.errors == [] and watch.csp_violations() == []


def test_a_quiet_watcher_shows_no_healthy_dot_and_no_stale_on_task(app, new_tabs, ui):
    """The watcher gone quiet: the amber box's dot is the watcher's (amber), never the last
    verdict's green, and the guard's line says it judges nothing rather than a stale "On task"."""
    expect = ui.expect
    _start(app)
    page, watch = new_tabs(bypass_csp=True).open()
    app.window("code", "intro.md — report")
    guard, evidence = page.locator("#drift-guard"), page.locator("#evidence")
    expect(guard).to_have_attribute("data-status", "on_task")
    expect(guard.locator(".drift-line")).to_contain_text("On task")
    app.server.clock.advance(60)  # no window for a minute: the watcher has gone quiet
    expect(evidence).to_contain_text("The window watcher has gone quiet")
    expect(guard.locator(".drift-line")).to_have_text(
        "Not judged while the window watcher is quiet"
    )
    ui.settled(page)

    def dot(selector: str) -> str:
        return page.locator(selector).evaluate("e => getComputedStyle(e).backgroundColor")

    def colour(name: str) -> str:  # a custom property as the browser computes a colour
        return page.evaluate(
            """n => { const e = document.createElement('i'); e.style.color = `var(${n})`;
                document.body.append(e); const c = getComputedStyle(e).color; e.remove();
                return c; }""",
            name,
        )

    assert dot("#evidence .dot") == colour("--warn") != colour("--met")
    assert dot("#drift-guard .drift-line .dot") == colour("--muted")
    assert watch.errors == [] and watch.csp_violations() == []
    for width, height in ((1280, 800), (390, 844)):  # each look in a tab of its own scheme
        for scheme in ("light", "dark"):
            viewport = {"width": width, "height": height}
            tabs = new_tabs(viewport=viewport, color_scheme=scheme, bypass_csp=True)
            look, _ = tabs.open()
            expect(look.locator("#evidence")).to_contain_text("gone quiet")
            ui.settled(look)
            assert ui.axe_problems(look) == []
            assert ui.sideways_scroll(look) == 0
            ui.snap(look, f"active-quiet-{width}-{scheme}")
