"""Every screen finished, in Chromium: nothing scrolls sideways on a 390 px phone whatever the
length of the texts, axe-core finds no serious or critical violation in any state (light and
dark), and focus lands on the new view after each transition."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
# 400 characters: long words that cannot wrap, and long sentences that can.
WORDY = ("Refactor the payment reconciliation module so that every ledger entry matches ") * 6
LONG = WORDY[:400]
UNBROKEN = "x" * 400
assert len(LONG) == len(UNBROKEN) == 400


def history(app, count: int = 2) -> None:
    """Ended commitments with long texts, so the locked view's history has them."""
    for n in range(count):
        app.server.post("/planning")
        text = UNBROKEN if n % 2 else LONG
        plan = {"next_action": text, "success_condition": text, "timebox_minutes": 25}
        assert app.server.post("/commitment", plan)[0] == 200
        app.server.post("/finish")
        app.server.post("/end", {"outcome": "met" if n % 2 else "missed", "note": text * 5})


def evidence(app) -> None:
    for app_name, title in (("firefox", LONG), (UNBROKEN[:300], UNBROKEN), ("code", "main.py")):
        assert app.server.post("/evidence/window", {"app": app_name, "title": title})[0] == 202


def walk(page, app, ui, check) -> None:
    """Through every state and the planning view's coach states, calling check(name)."""
    expect = ui.expect
    history(app)
    page.reload()
    expect(ui.view(page, "locked")).to_be_visible()
    check("locked")
    ui.plan(page)
    check("planning")
    page.get_by_role("button", name="Start").click()  # nothing filled in: refused
    expect(page.locator("#next_action")).to_have_attribute("aria-invalid", "true")
    # Focus moves to the field at fault once the refusal settles: typing elsewhere before
    # that would land in it.
    expect(page.locator("#next_action")).to_be_focused()
    check("planning-refused")
    app.fake.configure(delay=30)
    page.get_by_label("Rough intent").fill(LONG)
    page.get_by_role("button", name="Sharpen", exact=True).click()
    expect(ui.coach(page, "pending")).to_be_visible()
    check("planning-pending")
    page.get_by_role("button", name="Stop coach").click()
    expect(ui.coach(page, "idle")).to_be_visible()
    app.fake.configure(
        answer={"next_action": LONG, "success_condition": UNBROKEN, "timebox_minutes": 45}
    )
    page.get_by_role("button", name="Sharpen", exact=True).click()
    expect(ui.coach(page, "ready")).to_be_visible()
    expect(page.locator("#next_action")).to_have_value(LONG)
    check("planning-ready")
    app.fake.configure(answer="Not logged in · Please run /login\n", exit=1)
    page.get_by_role("button", name="Sharpen", exact=True).click()
    expect(ui.coach(page, "error")).to_be_visible()
    check("planning-error")
    page.get_by_role("button", name="Start").click()
    expect(ui.view(page, "active")).to_be_visible()
    evidence(app)
    expect(page.locator("#evidence")).to_contain_text("code")
    check("active")
    page.get_by_role("button", name="Finish").click()
    expect(ui.view(page, "review")).to_be_visible()
    check("review")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_nothing_scrolls_sideways_on_a_phone_with_400_character_texts(new_tabs, app, ui, scheme):
    page, _ = new_tabs(viewport=PHONE, color_scheme=scheme).open()
    seen = []

    def check(name: str) -> None:
        seen.append(name)
        assert ui.sideways_scroll(page) == 0, f"{name} scrolls sideways"
        card = page.locator(".card").first.bounding_box()
        assert card["x"] >= 0 and card["x"] + card["width"] <= PHONE["width"], name
        ui.snap(page, f"phone-{scheme}-{name}")

    walk(page, app, ui, check)
    assert len(seen) == 8


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_serious_in_any_state(new_tabs, app, ui, scheme):
    # axe is injected as a script tag: the page's CSP (rightly) refuses inline script.
    tabs = new_tabs(viewport={"width": 1280, "height": 800}, color_scheme=scheme, bypass_csp=True)
    page, _ = tabs.open()
    problems: dict[str, list[str]] = {}

    def check(name: str) -> None:
        ui.settled(page)
        found = ui.axe_problems(page)
        if found:
            problems[name] = found

    walk(page, app, ui, check)
    assert problems == {}


def test_no_two_visible_controls_in_a_view_share_a_name(page, app, ui):
    names_by_view = {}

    def check(name: str) -> None:
        names = page.evaluate(
            """() => [...document.querySelectorAll('button, a[href], input, textarea, select')]
                .filter(e => e.offsetParent !== null && e.type !== 'hidden')
                .map(e => (e.labels && e.labels.length ? e.labels[0].innerText
                           : e.getAttribute('aria-label') || e.innerText || e.value).trim())"""
        )
        names_by_view[name] = names
        doubles = {n for n in names if names.count(n) > 1}
        assert not doubles, f"{name}: {doubles}"

    walk(page, app, ui, check)
    assert "Stop coach" in names_by_view["planning-pending"]
    assert "Cancel planning" in names_by_view["planning-pending"]


def test_focus_lands_on_the_new_view_after_each_transition(page, app, ui):
    expect = ui.expect
    expect(page.get_by_role("button", name="Plan")).to_be_focused()
    ui.plan(page)
    expect(page.locator("#intent")).to_be_focused()
    page.get_by_label("Next action", exact=True).fill("Write it")
    page.get_by_label("Done when", exact=True).fill("Written")
    page.get_by_role("button", name="Start").click()
    expect(page.locator("#active-title")).to_be_focused()
    page.get_by_role("button", name="Finish").click()
    expect(page.locator("#review-title")).to_be_focused()
    page.locator("label[for=outcome-met]").click()
    page.get_by_role("button", name="Save to history").click()
    expect(page.get_by_role("button", name="Plan")).to_be_focused()
    # A refused plan moves focus to its first field at fault.
    ui.plan(page)
    page.get_by_label("Next action", exact=True).fill("Only this")
    page.get_by_role("button", name="Start").click()
    expect(page.locator("#success_condition")).to_be_focused()
    expect(page.locator("#success_condition")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#next_action")).not_to_have_attribute("aria-invalid", "true")
    expect(page.locator("#next_action")).to_have_value("Only this")  # what was typed stays
