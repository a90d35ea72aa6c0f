"""The daily page finished (issue 19's slips), in Chromium at 1280 and 390 wide, light and
dark: the history's badges one width, the intent not squeezed on a phone, links in the page's
colour, "until 10:37" on one line, the drift banner on top, each review row marked with the
window readable on a phone, Insights' figures in words, Settings within the screen — and
axe-core finds nothing serious or critical in any of them. With ANTIDRIFT_SHOTS set, each
view is saved there as a PNG for a person to look at."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.support.browser import App, drift_app

pytestmark = pytest.mark.browser

SHOTS = os.environ.get("ANTIDRIFT_SHOTS")
LOOKS = [
    pytest.param({"width": 1280, "height": 800}, "light", id="desktop-light"),
    pytest.param({"width": 390, "height": 844}, "dark", id="phone-dark"),
    pytest.param({"width": 1280, "height": 800}, "dark", id="desktop-dark"),
    pytest.param({"width": 390, "height": 844}, "light", id="phone-light"),
]
DEFAULT_LINK_BLUE = "rgb(0, 0, 238)"
FITS = """s => [...s.options].every(o => {
    const probe = document.createElement("span");
    probe.style.font = getComputedStyle(s).font;
    probe.style.whiteSpace = "pre";
    probe.textContent = o.text;
    document.body.appendChild(probe);
    const wide = probe.getBoundingClientRect().width;
    probe.remove();
    return wide + 40 <= s.getBoundingClientRect().width;
})"""
ACTION = "Write the intro paragraph of the quarterly report"


@pytest.fixture(scope="module")
def app(tmp_path_factory, _chromium_available) -> Iterator[App]:
    """A fake claude that also judges (titles with "youtube" are off task), short grace, on
    the test clock: a window's time on the review is the clock moved on, not a sleep."""
    with drift_app(tmp_path_factory.mktemp("browser-finish")) as app:
        yield app


def _ended(app: App) -> None:
    for n, outcome in enumerate(("met", "missed")):
        app.server.post("/planning")
        plan = {"next_action": f"Earlier plan {n}", "success_condition": "x", "timebox_minutes": 5}
        assert app.server.post("/commitment", plan)[0] == 200
        app.server.post("/finish")
        app.server.post("/end", {"outcome": outcome})


def _look(page, ui, problems: dict[str, list[str]], name: str, viewport: dict, scheme: str):
    """The checks at each stop: no sideways scroll, axe; the PNG only for a person who asks."""
    ui.settled(page)
    assert ui.sideways_scroll(page) == 0, f"{name} scrolls sideways"
    if found := ui.axe_problems(page):
        problems[name] = found
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/{name}-{viewport['width']}-{scheme}.png", full_page=True)


@pytest.mark.parametrize(("viewport", "scheme"), LOOKS)
def test_the_daily_walk_is_finished(new_tabs, app, ui, viewport, scheme):
    expect = ui.expect
    phone = viewport["width"] < 500
    tabs = new_tabs(viewport=viewport, color_scheme=scheme, bypass_csp=True)
    page, watch = tabs.open()
    problems: dict[str, list[str]] = {}

    def look(name: str) -> None:
        _look(page, ui, problems, name, viewport, scheme)

    _ended(app)
    page.reload()
    expect(ui.view(page, "locked")).to_be_visible()
    met = ui.box(page.locator(".badge-met").first)
    missed = ui.box(page.locator(".badge-missed").first)
    assert met["width"] == missed["width"], "MET and MISSED badges differ: titles misalign"
    look("locked")

    ui.plan(page)
    link = page.get_by_role("link", name="Coach settings")
    assert link.evaluate("a => getComputedStyle(a).color") != DEFAULT_LINK_BLUE
    intent, box = ui.box(page.locator("#intent").first), ui.box(page.locator(".intent-row").first)
    if phone:  # the intent takes the row; Sharpen goes below it
        assert intent["width"] >= box["width"] - 1, (intent, box)
    look("planning")
    # A refused Sharpen does not sit beside an older "Proposal filled in".
    page.get_by_label("Rough intent").fill("the quarterly report")
    page.get_by_role("button", name="Sharpen").click()
    expect(ui.coach(page, "ready")).to_be_visible()
    ready = page.locator("#coach .coach-line")
    expect(ready).to_be_visible()
    page.get_by_label("Rough intent").fill("")
    page.get_by_role("button", name="Sharpen").click()
    expect(page.locator("#intent-message")).to_contain_text("required")
    expect(ready).to_be_hidden()
    look("planning-refused-sharpen")

    app.server.post(
        "/commitment",
        {"next_action": ACTION, "success_condition": "Three paragraphs", "timebox_minutes": 45},
    )
    expect(ui.view(page, "active")).to_be_visible()
    # In one evaluation: the widget is replaced by a push every second.
    lines = page.evaluate("document.querySelector('#time-left .until').getClientRects().length")
    assert lines == 1, "'until' wraps"
    app.window("code", "intro.md — report")
    expect(page.locator("#drift-guard")).to_have_attribute("data-status", "on_task")
    app.server.clock.advance(1.1)  # the editor's time on the review
    app.window("firefox", "Cat videos — YouTube")
    expect(page.locator("#drift-guard")).to_have_attribute("data-status", "drifting")
    app.server.clock.advance(1)  # the grace: the next tick opens the episode
    banner = page.locator("#drift")
    expect(banner).to_be_visible()
    top = ui.box(page.locator("#drift").first)["y"]
    assert top < ui.box(page.locator("#active-title").first)["y"], "banner not on top"
    look("active-drift")
    page.get_by_role("button", name="This is on task").click()
    expect(banner).to_have_count(0)
    expect(page.locator("#active-title")).to_be_focused()
    app.server.clock.advance(1.1)  # the video's time on the review
    app.window("mail", "A very long subject line about the quarterly numbers and the board")
    expect(page.locator("#evidence")).to_contain_text("mail")
    app.server.clock.advance(0.6)  # the mail's
    page.get_by_role("button", name="Finish").click()
    expect(ui.view(page, "review")).to_be_visible()

    rows = page.locator("table.review-shares tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.filter(has_text="Cat videos")).to_contain_text("you said on task")
    expect(rows.filter(has_text="intro.md")).to_contain_text("on task")
    assert page.locator("meter").count() == 0
    title = page.locator(".share-window", has_text="very long subject")
    # Wrapped, not cut to a few characters: the cell shows its first words in full.
    assert title.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
    assert title.evaluate("e => getComputedStyle(e).whiteSpace") != "nowrap"
    look("review")

    page.locator("label[for=outcome-met]").click()
    page.get_by_role("button", name="Save to history").click()
    expect(ui.view(page, "locked")).to_be_visible()

    page.goto(app.base + "/insights")
    figure = page.locator(".figure", has_text="Time taken")
    expect(figure.locator(".figure-note")).to_contain_text("% of the ")
    expect(figure.locator(".figure-value")).not_to_contain_text("%")
    expect(page.locator(".crumbs")).to_have_text("← Back to AntiDrift")
    look("insights")
    assert problems == {}
    assert watch.errors == [] and watch.csp_violations() == []


@pytest.mark.parametrize(("viewport", "scheme"), LOOKS)
def test_settings_is_finished(new_tabs, app, ui, viewport, scheme):
    """Settings, whatever the walk above did: its own test, so it can run beside it."""
    tabs = new_tabs(viewport=viewport, color_scheme=scheme, bypass_csp=True)
    page, watch = tabs.open("/settings")
    problems: dict[str, list[str]] = {}
    card = ui.box(page.locator("#settings .card").first)
    for select in page.locator("#settings select").all():
        right = ui.box(select)
        assert right["x"] + right["width"] <= card["x"] + card["width"], "a select overflows"
        # A drop-down cannot wrap: each choice's words fit the closed box (arrow included).
        assert select.evaluate(FITS), select.evaluate("s => s.options[s.selectedIndex].text")
    _look(page, ui, problems, "settings", viewport, scheme)
    assert problems == {}
    assert watch.errors == [] and watch.csp_violations() == []
