"""Copy and looks in a real Chromium (issue 33, items 11 and 12): the locked view after
commitments today, its history, Insights, Settings with a refusal beside its field, and the
review with Met chosen — desktop and phone, light and dark, axe-core on each; a chosen outcome
is told apart from the other by more than a tint in either scheme."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.fakes import wait_until
from tests.support.browser import App, drift_app
from tests.support.walk import server_post, walk_http

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def app(tmp_path_factory, _chromium_available) -> Iterator[App]:
    """A server on the test clock (the history's times are minutes, not 0 s) whose fake
    claude also judges windows (titles with "youtube" are off task)."""
    with drift_app(tmp_path_factory.mktemp("browser-copy"), grace=600) as app:
        yield app


LOOKS = [(w, h, s) for w, h in ((1280, 800), (390, 844)) for s in ("light", "dark")]


def ended(app, outcome: str, action: str, minutes: int) -> None:
    plan = {"next_action": action, "success_condition": "Notes in the doc", "timebox_minutes": 5}
    walk_http(server_post(app.server), "active", **plan)
    app.server.clock.advance(minutes * 60)
    assert app.server.post("/finish", {})[0] == 200
    assert app.server.post("/end", {"outcome": outcome, "note": "Went well enough"})[0] == 200


def channels(css: str) -> tuple[float, ...]:
    return tuple(float(v) for v in re.findall(r"[\d.]+", css)[:3])


def luminance(rgb: tuple[float, ...]) -> float:
    def lin(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(channels(a)), luminance(channels(b))), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def each_look(browser, app, ui, path: str, name: str, check) -> None:
    for width, height, scheme in LOOKS:
        context = browser.new_context(
            viewport={"width": width, "height": height}, color_scheme=scheme, bypass_csp=True
        )
        try:
            page = context.new_page()
            page.goto(app.base + path)
            check(page)
            ui.settled(page)
            assert ui.axe_problems(page) == [], (name, width, scheme)
            assert ui.sideways_scroll(page) == 0, (name, width, scheme)
            ui.snap(page, f"{name}-{width}-{scheme}")
        finally:
            context.close()


def test_the_locked_view_history_and_insights_after_commitments_today(browser, app, ui):
    ended(app, "met", "Draft the intro", 4)
    ended(app, "missed", "Reply to the long thread", 2)
    ended(app, "met", "Fix the flaky test", 5)
    assert app.server.post("/planning", {})[0] == 200  # the closure goes with a new planning
    assert app.server.post("/planning/cancel", {})[0] == 200

    def locked(page):
        heading = page.locator("#locked-title")
        ui.expect(heading).to_have_text("2 met, 1 missed today")
        ui.expect(page.get_by_role("button", name="Plan", exact=True)).to_be_visible()
        ui.expect(page.locator(".history-item")).to_have_count(3)
        assert page.locator(".history-action[dir=auto]").count() == 3

    each_look(browser, app, ui, "/", "locked-today", locked)

    def insights(page):
        ui.expect(page.get_by_role("heading", name="How your commitments went")).to_be_visible()
        # A missed bar is hatched, not only another colour; its swatch says so too.
        fill = page.locator("rect.bar-missed").first.evaluate("r => getComputedStyle(r).fill")
        assert "hatch-missed" in fill, fill

    each_look(browser, app, ui, "/insights", "insights", insights)


def test_settings_with_a_refusal_beside_its_field(browser, app, ui):
    def refused(page):
        page.locator("#set-evidence_exclude").fill("(")
        page.get_by_role("button", name="Save settings").click()
        beside = page.locator("#error-evidence_exclude")
        ui.expect(beside).to_contain_text("Private window titles: '(' is not accepted")
        ui.expect(page.locator("#set-evidence_exclude")).to_be_focused()
        # Beside its field: right under it, not at the top of the page.
        field = page.locator("#set-evidence_exclude").bounding_box()
        box = beside.bounding_box()
        assert 0 <= box["y"] - (field["y"] + field["height"]) < 24, (field, box)
        ui.expect(page.locator("#settings-message")).not_to_contain_text("evidence_exclude")
        # The AI server's address does not apply to claude: folded away, one click opens it.
        ui.expect(page.locator("#set-ai_url")).to_be_hidden()
        page.locator(".setting-folded summary").first.focus()

    each_look(browser, app, ui, "/settings", "settings-refused", refused)


def test_review_with_met_chosen_is_clear_in_either_scheme(browser, app, ui):
    plan = {"next_action": "Write the summary", "success_condition": "Three paragraphs"}
    walk_http(server_post(app.server), "active", **plan)
    for app_name, title, status, secs in (
        ("code", "summary.md — report", "on_task", 240),
        ("firefox", "Cat videos — YouTube", "drifting", 60),
    ):
        app.window(app_name, title)
        wait_until(
            lambda s=status: app.server.get("/state")["drift"]["status"] == s,
            message=f"the judge's {status}",
        )
        app.server.clock.advance(secs)
    assert app.server.post("/finish", {})[0] == 200

    def met_chosen(page):
        ui.expect(ui.view(page, "review")).to_be_visible()
        page.locator("label[for=outcome-met]").click()
        ui.expect(page.locator("#outcome-met")).to_be_checked()
        met, missed = (
            page.locator(f"label[for=outcome-{o}]").evaluate(
                "l => { const s = getComputedStyle(l); const b = getComputedStyle(l, '::before');"
                " return [s.backgroundColor, s.color, b.content]; }"
            )
            for o in ("met", "missed")
        )
        surface = page.locator(".card").first.evaluate("c => getComputedStyle(c).backgroundColor")
        # Chosen: a fill that stands off the card, its word readable on it, and a tick.
        assert contrast(met[0], surface) >= 3, (met, surface)
        assert contrast(met[1], met[0]) >= 4.5, met
        assert "✓" in met[2] and "✓" not in missed[2], (met, missed)
        # Off task is hatched, on task solid: more than a colour apart (and marked in words).
        fills = page.locator("svg.share-bar .app-bar-fill").evaluate_all(
            "rs => rs.map(r => getComputedStyle(r).fill)"
        )
        assert len(fills) == 2 and "hatch-off-task" in fills[1] and "url" not in fills[0], fills
        page.locator("#note").focus()

    each_look(browser, app, ui, "/", "review-met", met_chosen)
