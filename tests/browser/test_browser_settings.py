"""The Settings page in a real Chromium: a change saved by clicking and shown after a reload,
a setting the environment gives shown locked with its variable, a refused value marked in
place; desktop and phone, light and dark, axe-core, and a focus ring on every control."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.browser

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


def test_a_change_is_saved_by_clicking_and_the_environment_wins(tabs, app, ui):
    page, _ = tabs.open("/settings")  # straight there: no detour through the locked view
    ui.expect(page.get_by_role("heading", name="How AntiDrift works for you")).to_be_visible()
    # The module's server sets the AI backend in its environment: locked, its variable named.
    backend = page.locator("#set-ai_backend")
    ui.expect(backend).to_be_disabled()
    ui.expect(page.get_by_text("Set by ANTIDRIFT_AI_BACKEND", exact=False)).to_be_visible()
    page.locator("#set-drift_grace").fill("75")
    page.get_by_role("button", name="Save settings").click()
    ui.expect(page.locator("#settings-message")).to_contain_text("Saved")
    # Focus lands on the confirmation, not on the page's top (after htmx's settle step: wait
    # for it, do not race it; read at once it was still on the body at load 14).
    ui.expect(page.locator("#settings-message")).to_be_focused()
    page.reload()
    ui.expect(page.locator("#set-drift_grace")).to_have_value("75")
    saved = json.loads((app.server.data_dir / "settings.json").read_text())
    assert saved["drift_grace"] == 75
    described = page.request.get(app.base + "/settings.json").json()
    assert described["drift_grace"] == {"value": 75, "source": "saved"}
    assert described["ai_backend"]["source"] == "environment"


def test_a_refused_value_is_marked_in_place_and_nothing_is_saved(tabs, app, ui):
    page, _ = tabs.open("/settings")  # straight there: no detour through the locked view
    before = page.request.get(app.base + "/settings.json").json()
    # Teeth are off: their delay does not apply, folded away until opened.
    ui.expect(page.locator("#set-enforce_after")).to_be_hidden()
    page.get_by_text("Not used with these choices: Seconds before the window is put away").click()
    page.locator("#set-enforce_after").fill("9999")
    page.get_by_role("button", name="Save settings").click()
    # Said beside the field, by its label; the field takes the focus.
    ui.expect(page.locator("#error-enforce_after")).to_contain_text(
        "Seconds before the window is put away: '9999' is not accepted"
    )
    ui.expect(page.locator("#settings-message")).to_contain_text("Nothing was saved")
    ui.expect(page.locator("#set-enforce_after")).to_have_attribute("aria-invalid", "true")
    ui.expect(page.locator("#set-enforce_after")).to_be_focused()
    assert page.request.get(app.base + "/settings.json").json() == before


def test_task_lists_named_on_the_page_are_planned_from_at_once(tabs, app, ui, tmp_path):
    notes = tmp_path / "Today.md"
    notes.write_text("# Today\n- [ ] Pay the invoice\n")
    page, _ = tabs.open("/settings")  # straight there: no detour through the locked view
    lists = page.get_by_label("Task lists to plan from")
    lists.fill("markdown:Today.md")
    page.get_by_role("button", name="Save settings").click()
    ui.expect(page.locator("#error-tasks")).to_contain_text("is not a full path")
    ui.expect(page.locator("#set-tasks")).to_have_attribute("aria-invalid", "true")
    assert page.request.get(app.base + "/settings.json").json()["tasks"]["source"] == "default"
    try:
        page.locator("#set-tasks").fill(f"markdown:{notes}")
        page.get_by_role("button", name="Save settings").click()
        ui.expect(page.locator("#settings-message")).to_contain_text("Saved")
        page.goto(app.base + "/")  # no restart: the next planning lists the file's tasks
        ui.plan(page)
        pick = page.locator("#tasks").get_by_role("button", name="Pay the invoice")
        pick.click()
        ui.expect(page.locator("#intent")).to_have_value("Pay the invoice")
    finally:
        assert app.server.post("/settings", {"tasks": None})[0] == 200  # the module's server


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", list(SIZES))
def test_settings_fits_every_screen_is_accessible_and_shows_focus(browser, app, ui, size, scheme):
    width, height = SIZES[size]
    context = browser.new_context(
        viewport={"width": width, "height": height}, color_scheme=scheme, bypass_csp=True
    )
    try:
        page = context.new_page()
        page.goto(app.base + "/settings")
        ui.expect(page.get_by_role("heading", name="How AntiDrift works for you")).to_be_visible()
        assert ui.axe_problems(page) == []
        assert ui.sideways_scroll(page) == 0
        # Every enabled control shows a ring of at least 2 px when reached by keyboard.
        ids = page.evaluate(
            "() => [...document.querySelectorAll('#settings input:not([disabled]),"
            " #settings select:not([disabled]), #settings button')].map(e => e.id || e.name"
            " || e.textContent.trim())"
        )
        assert len(ids) >= 10
        page.locator("body").click(position={"x": 1, "y": 1})
        rings = []
        for _ in range(len(ids) + 3):
            page.keyboard.press("Tab")
            ring = page.evaluate(
                "() => { const e = document.activeElement; if (!e.closest('#settings form'))"
                " return null; const s = getComputedStyle(e); return [e.id || e.textContent,"
                " s.outlineStyle, parseFloat(s.outlineWidth)]; }"
            )
            if ring:
                rings.append(ring)
        assert rings, "no control of the form was reached by Tab"
        thin = [r for r in rings if r[1] == "none" or r[2] < 2]
        assert thin == [], thin
        # Every section heading looks the same: the groups' legends and Standing rules', each
        # under a hairline as wide as the card, the words below it, never struck through.
        looks = page.evaluate(
            """() => [...document.querySelectorAll('.settings-group > legend, #rules > h2')]
                .map(e => { const s = getComputedStyle(e), r = e.getBoundingClientRect(),
                                  card = e.closest('.card').getBoundingClientRect();
                    return {look: [s.fontSize, s.fontWeight, s.borderTopWidth, s.borderTopStyle,
                                   s.paddingTop, Math.round(r.width)],
                            inCard: r.left >= card.left && r.right <= card.right,
                            words: (() => { const range = document.createRange();
                                range.selectNodeContents(e);
                                return range.getBoundingClientRect().top - r.top; })()}; })"""
        )
        assert len(looks) >= 9 and len({str(h["look"]) for h in looks}) == 1, looks
        assert looks[0]["look"][2:4] == ["1px", "solid"] and all(h["inCard"] for h in looks)
        assert all(h["words"] >= 10 for h in looks), looks  # the rule sits above the words
        page.get_by_role("heading", name="How AntiDrift works for you").focus()
        ui.snap(page, f"settings-{size}-{scheme}")
    finally:
        context.close()


def test_a_choice_unfolds_the_field_it_needs_and_keeps_what_was_typed(tabs, app, ui):
    page, _ = tabs.open("/settings")
    saved = app.server.data_dir / "settings.json"
    before = saved.read_bytes() if saved.exists() else None
    page.locator("#set-break_minutes").fill("7")  # typed in another group, not saved yet
    page.locator("#set-drift_grace").fill("33")  # and in this one
    after, choice = page.locator("#set-enforce_after"), page.locator("#set-enforce")
    ui.expect(after).to_be_hidden()
    choice.focus()
    page.keyboard.press("End")  # by keyboard: the last choice, "Put the window away"
    ui.expect(after).to_be_visible()
    ui.expect(page.locator("#settings-the-drift-guard details")).to_have_count(0)
    ui.expect(choice).to_be_focused()
    ui.expect(page.locator("#set-drift_grace")).to_have_value("33")
    ui.expect(page.locator("#set-break_minutes")).to_have_value("7")
    page.keyboard.press("Home")  # back to leaving it: folded away again
    ui.expect(after).to_be_hidden()
    assert (saved.read_bytes() if saved.exists() else None) == before
