"""No JavaScript of our own, and the accessibility basics (issue 4, scenarios 7 and 8):
every view is walked in a real browser, and the whole loop is done with the keyboard alone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.fake_cli import DEFAULT_PROPOSAL

pytestmark = pytest.mark.browser

VENDOR = Path(__file__).resolve().parents[2] / "static" / "vendor"

# Test code reading the DOM (the page itself runs none of ours).
AUDIT_SCRIPTS = """() => ({
  scripts: [...document.scripts].map(s => ({src: s.getAttribute('src'),
                                            text: s.textContent.trim().length})),
  handlers: [...document.querySelectorAll('*')].flatMap(el => [...el.attributes]
      .filter(a => /^on/i.test(a.name) || /^(data-)?hx-on/i.test(a.name)
                   || /^\\s*javascript:/i.test(a.value)
                   || (/^(data-)?hx-(vals|headers|vars)$/i.test(a.name)
                       && /^\\s*(js|javascript):/i.test(a.value)))
      .map(a => `<${el.tagName.toLowerCase()} ${a.name}="${a.value}">`)),
})"""

AUDIT_LABELS = """() => [...document.querySelectorAll('input, textarea, select')]
  .filter(e => e.type !== 'hidden')
  .map(e => ({id: e.id || e.name,
              label: [...(e.labels || [])].map(l => l.textContent.trim()).join(' ')
                     || e.getAttribute('aria-label')
                     || (e.getAttribute('aria-labelledby') || '').split(/\\s+/)
                          .map(id => document.getElementById(id)?.textContent.trim() || '')
                          .join(' ').trim()}))"""


def audit_scripts(page, where: str) -> None:
    found = page.evaluate(AUDIT_SCRIPTS)
    assert found["scripts"], f"{where}: no scripts at all? htmx should be loaded"
    for script in found["scripts"]:
        src = script["src"] or ""
        assert script["text"] == 0, f"{where}: an inline script"
        assert re.fullmatch(r"/static/vendor/[\w.-]+\.js", src), f"{where}: script {src!r}"
        assert (VENDOR / src.rsplit("/", 1)[1]).is_file(), f"{where}: {src} is not vendored"
    assert found["handlers"] == [], f"{where}: inline handlers {found['handlers']}"


def audit_labels(page, where: str) -> list[str]:
    fields = page.evaluate(AUDIT_LABELS)
    unlabelled = [f["id"] for f in fields if not f["label"]]
    assert unlabelled == [], f"{where}: inputs without a label: {unlabelled}"
    return [f["id"] for f in fields]


# -- 7. no JS of our own ---------------------------------------------------------------------------


def test_every_view_runs_only_vendored_scripts(tabs, app, ui, tmp_path):
    expect = ui.expect
    page, watch = tabs.open()
    response = page.request.get(app.base + "/")
    csp = response.headers.get("content-security-policy", "")
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "unsafe-eval" not in csp

    for src in page.evaluate("[...document.scripts].map(s => s.src)"):
        assert page.request.get(src).status == 200, src

    audit_scripts(page, "locked")
    ui.plan(page)
    audit_scripts(page, "planning")

    go = tmp_path / "go"
    app.fake.configure(wait_for=str(go))  # the coach answers once the pending view is audited
    page.get_by_label("Rough intent").fill("sort the inbox")
    page.get_by_role("button", name="Sharpen").click()
    expect(ui.coach(page, "pending")).to_be_visible()
    expect(page.locator("#coach-elapsed")).to_be_visible()
    audit_scripts(page, "coach pending")
    go.touch()
    expect(ui.coach(page, "ready")).to_be_visible()
    audit_scripts(page, "coach ready")

    app.fake.logged_out()
    page.get_by_role("button", name="Sharpen").click()
    expect(ui.coach(page, "error")).to_be_visible()
    audit_scripts(page, "coach error")

    page.get_by_label("Minutes", exact=True).fill("0")
    page.get_by_role("button", name="Start").click()
    expect(page.locator("#plan-message")).not_to_be_empty()
    audit_scripts(page, "validation message")

    page.get_by_label("Minutes", exact=True).fill("10")
    page.get_by_role("button", name="Start").click()
    expect(ui.view(page, "active")).to_be_visible()
    app.server.post("/evidence/window", {"app": "Mail", "title": "Inbox (3)"})
    expect(page.locator("#evidence")).to_contain_text("Mail")
    audit_scripts(page, "active")

    page.get_by_role("button", name="Finish").click()
    expect(ui.view(page, "review")).to_be_visible()
    audit_scripts(page, "review")
    page.get_by_role("button", name="Save to history").click()  # nothing chosen: a message
    expect(page.locator("#review-message")).to_have_text("Choose met or missed.")
    page.locator("label[for=outcome-missed]").click()
    page.get_by_role("button", name="Save to history").click()
    expect(ui.view(page, "locked")).to_be_visible()
    expect(page.locator(".history-item").first).to_contain_text(DEFAULT_PROPOSAL["next_action"])
    audit_scripts(page, "locked with history")

    # A reload of each kind of page is covered by the same audit; the console stayed clean.
    page.reload()
    audit_scripts(page, "locked (reloaded)")
    assert watch.csp_violations() == [], watch.csp_violations()
    assert watch.errors == [], watch.errors


# -- 8. accessibility basics -----------------------------------------------------------------------


def test_labels_and_the_live_coach_status(page, app, ui):
    expect = ui.expect
    ui.plan(page)
    ids = audit_labels(page, "planning")
    assert set(ids) >= {"intent", "next_action", "success_condition", "timebox_minutes"}
    coach = page.locator("#coach")
    expect(coach).to_have_attribute("aria-live", "polite")
    expect(coach).to_have_attribute("role", "status")
    for slot in ("#intent-message", "#plan-message"):
        expect(page.locator(slot)).to_have_attribute("role", "alert")

    # The region stays a live region whatever it shows (it is swapped on every change).
    page.get_by_label("Rough intent").fill("call the bank")
    page.get_by_role("button", name="Sharpen").click()
    expect(ui.coach(page, "ready")).to_have_attribute("aria-live", "polite")

    page.get_by_role("button", name="Start").click()
    expect(ui.view(page, "active")).to_be_visible()
    page.get_by_role("button", name="Finish").click()
    expect(ui.view(page, "review")).to_be_visible()
    assert set(audit_labels(page, "review")) >= {"outcome-met", "outcome-missed", "note"}


def test_the_whole_loop_by_keyboard_alone(page, app, ui):
    expect = ui.expect
    keys = page.keyboard

    # Locked: Plan has the focus on load; Enter presses it.
    expect(ui.view(page, "locked")).to_be_visible()
    ui.tab_to(page, "#view button.primary")
    keys.press("Enter")
    expect(ui.view(page, "planning")).to_be_visible()
    expect(page.locator("#intent")).to_be_focused()

    # Planning: into the intent box, type, Enter sharpens.
    ui.tab_to(page, "#intent")
    keys.type("prepare the board meeting")
    keys.press("Enter")
    expect(ui.coach(page, "ready")).to_be_visible()
    expect(page.locator("#next_action")).to_have_value(DEFAULT_PROPOSAL["next_action"])
    expect(page.locator("#start")).to_be_focused()  # the proposal moves the focus on to Start

    # Back (Shift+Tab) to minutes, change it; back to "Done when", change that.
    ui.tab_to(page, "#timebox_minutes", back=True)
    keys.press("ControlOrMeta+a")
    keys.type("30")
    ui.tab_to(page, "#success_condition", back=True)
    keys.press("ControlOrMeta+a")
    keys.type("Agenda sent to all members")
    ui.tab_to(page, ".plan-form button[type=submit]")
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none", (
        "a focused button shows no focus ring"
    )
    keys.press("Enter")

    expect(ui.view(page, "active")).to_be_visible()
    expect(page.locator(".done-when")).to_contain_text("Agenda sent to all members")
    expect(page.locator("#time-left")).to_contain_text("left of 30 min")
    # htmx puts the focus on the new view's heading as it settles the swap: Tab from there
    # (a Tab pressed before it would be undone by it, as no person is fast enough to do).
    expect(page.locator("#active-title")).to_be_focused()

    # Active: Tab to Finish, Space presses it.
    ui.tab_to(page, "#view button.primary")
    expect(page.locator("#view button.primary")).to_have_text("Finish")
    keys.press(" ")
    expect(ui.view(page, "review")).to_be_visible()
    expect(page.locator("#review-title")).to_be_focused()

    # Review: Tab onto the outcome group, Space chooses Met, a note, Enter saves.
    ui.tab_to(page, "#outcome-met")
    keys.press(" ")
    expect(page.locator("#outcome-met")).to_be_checked()
    ui.tab_to(page, "#note")
    keys.type("Done by keyboard")
    ui.tab_to(page, ".review-form button[type=submit]")
    keys.press("Enter")

    expect(ui.view(page, "locked")).to_be_visible()
    item = page.locator(".history-item").first
    expect(item).to_contain_text(DEFAULT_PROPOSAL["next_action"])
    expect(item).to_contain_text("Done by keyboard")
    expect(item.locator(".badge")).to_have_text("met")
    newest = app.server.get("/history")[0]
    assert (newest["outcome"], newest["success_condition"], newest["timebox_secs"]) == (
        "met",
        "Agenda sent to all members",
        30 * 60,
    )
