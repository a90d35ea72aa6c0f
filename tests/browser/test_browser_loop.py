"""The commitment loop in a real browser: clicking through it, two tabs, errors in place,
cancelling a running Sharpen (issue 4, scenarios 1, 4, 5 and 6)."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser
TEST_CLOCK = True  # time a window holds the focus passes on the server's clock, not waited out


def fill_plan(page, next_action: str, done_when: str, minutes: str) -> None:
    page.get_by_label("Next action", exact=True).fill(next_action)
    page.get_by_label("Done when", exact=True).fill(done_when)
    page.get_by_label("Minutes", exact=True).fill(minutes)


def boxes(page, *selectors: str) -> dict[str, tuple[float, float]]:
    """Where each element sits in the document (x, y): to prove that nothing else moved. In
    the document, not the viewport: scrolling a message into view moves nothing."""
    out = {}
    scroll_x, scroll_y = page.evaluate("[window.scrollX, window.scrollY]")
    for sel in selectors:
        box = page.locator(sel).bounding_box()
        assert box is not None, f"{sel} is not on the page"
        out[sel] = (round(box["x"] + scroll_x), round(box["y"] + scroll_y))
    return out


# -- 1. the whole loop by clicking ---------------------------------------------------------------


def test_whole_loop_by_clicking(page, app, ui):
    expect = ui.expect
    expect(ui.view(page, "locked")).to_be_visible()
    expect(page.get_by_role("heading", name="No commitment yet.")).to_be_visible()
    ui.snap(page, "locked")

    ui.plan(page)
    expect(ui.coach(page, "idle")).to_be_visible()
    expect(page.get_by_role("heading", name="What is the next action?")).to_be_visible()
    ui.snap(page, "planning-idle")

    fill_plan(page, "Write the release notes", "Notes for 0.2 merged", "1")
    page.evaluate("window.__sameDocument = true")  # gone if anything reloads the page
    page.get_by_role("button", name="Start").click()

    expect(ui.view(page, "active")).to_be_visible()
    expect(page.get_by_role("heading", name="Write the release notes")).to_be_visible()
    expect(page.locator(".done-when")).to_contain_text("Notes for 0.2 merged")
    clock = page.locator("#time-left .time-left-clock")
    expect(clock).to_have_text(re.compile(r"^0[01]:\d\d$"))
    first = clock.text_content()
    expect(clock).not_to_have_text(first, timeout=3000)  # the clock runs without a reload
    assert page.evaluate("window.__sameDocument === true"), "the page reloaded"
    expect(page.locator("#evidence")).to_contain_text("No window watcher")

    # Evidence fed by an external watcher shows up live, then in the review.
    assert app.server.post("/evidence/window", {"app": "Code", "title": "notes.md"}) == (
        202,
        {"recorded": True},
    )
    expect(page.locator("#evidence")).to_contain_text("Watching focus: Code — notes.md")
    app.server.clock.advance(1.1)  # the first window holds the focus for a measurable second
    app.server.post("/evidence/window", {"app": "Firefox", "title": "Release checklist"})
    expect(page.locator("#evidence")).to_contain_text("Firefox — Release checklist")
    ui.snap(page, "active")

    page.get_by_role("button", name="Finish").click()
    expect(ui.view(page, "review")).to_be_visible()
    expect(page.get_by_role("heading", name="Write the release notes")).to_be_visible()
    rows = page.locator("table.shares tbody tr")
    expect(rows).to_have_count(2)
    expect(page.locator("table.shares")).to_contain_text("Code")
    expect(page.locator("table.shares")).to_contain_text("notes.md")
    expect(page.locator("table.shares")).to_contain_text("Firefox")
    expect(page.locator("table.shares")).to_contain_text("Release checklist")
    ui.snap(page, "review")

    # The radios are visually hidden behind styled labels: a person clicks the label.
    page.locator("label[for=outcome-met]").click()
    expect(page.get_by_label("Met", exact=True)).to_be_checked()
    page.get_by_role("textbox", name=re.compile(r"^Note")).fill("Shipped before lunch")
    page.get_by_role("button", name="Save to history").click()

    expect(ui.view(page, "locked")).to_be_visible()
    # Acknowledged, not "No commitment yet.": what was recorded, and what next.
    expect(page.locator("#closure")).to_be_visible()
    expect(page.get_by_role("heading", name="Met", exact=True)).to_be_visible()
    expect(page.get_by_role("button", name="Plan the next")).to_be_focused()
    item = page.locator(".history-item").first
    expect(item).to_contain_text("Write the release notes")
    expect(item.locator(".badge")).to_have_text("met")
    expect(item).to_contain_text("Shipped before lunch")
    assert page.evaluate("window.__sameDocument === true"), "the page reloaded"
    newest = app.server.get("/history")[0]
    assert (newest["next_action"], newest["outcome"], newest["note"]) == (
        "Write the release notes",
        "met",
        "Shipped before lunch",
    )


# -- 4. two tabs -----------------------------------------------------------------------------------


def test_a_change_in_one_tab_moves_the_other(tabs, ui):
    expect = ui.expect
    first, _ = tabs.open()
    second, _ = tabs.open()
    expect(ui.view(second, "locked")).to_be_visible()

    # A person brings a tab to the front to use it; a tab behind paints no frames, and
    # Playwright's clicks and fills wait for them.
    first.bring_to_front()
    ui.plan(first)
    expect(ui.view(second, "planning")).to_be_visible()

    fill_plan(first, "Answer the three reviews", "All three approved or commented", "20")
    first.get_by_role("button", name="Start").click()
    expect(ui.view(second, "active")).to_be_visible()
    expect(second.get_by_role("heading", name="Answer the three reviews")).to_be_visible()
    expect(second.locator("#time-left")).to_contain_text("left of 20 min")

    # ...and back the other way: Finish in the second tab moves the first to review.
    second.bring_to_front()
    second.get_by_role("button", name="Finish").click()
    expect(ui.view(first, "review")).to_be_visible()
    expect(first.get_by_role("heading", name="Answer the three reviews")).to_be_visible()


# -- 5. errors in place ---------------------------------------------------------------------------


def test_a_bad_minutes_value_is_explained_under_the_form(page, app, ui):
    expect = ui.expect
    ui.plan(page)
    page.get_by_label("Rough intent").fill("tidy the backlog")
    fill_plan(page, "Close stale issues", "Nothing older than a year", "0")
    before = boxes(
        page, "#intent", "#coach", "#next_action", "#success_condition", "#timebox_minutes"
    )

    for bad in ("0", "481"):
        page.get_by_label("Minutes", exact=True).fill(bad)
        page.get_by_role("button", name="Start").click()
        message = page.locator("#plan-message")
        expect(message).to_have_text("Minutes must be a whole number from 1 to 480.")
        expect(message).to_be_in_viewport()

    # Nothing else moved or changed: the state, the values typed, the other messages.
    assert app.state() == "planning"
    expect(ui.view(page, "planning")).to_be_visible()
    expect(page.locator("#next_action")).to_have_value("Close stale issues")
    expect(page.locator("#success_condition")).to_have_value("Nothing older than a year")
    expect(page.locator("#timebox_minutes")).to_have_value("481")
    expect(page.locator("#intent")).to_have_value("tidy the backlog")
    expect(page.locator("#intent-message")).to_be_empty()
    expect(ui.coach(page, "idle")).to_be_visible()
    assert boxes(page, *before) == before

    # Corrected, it starts, and the message does not linger.
    page.get_by_label("Minutes", exact=True).fill("15")
    page.get_by_role("button", name="Start").click()
    expect(ui.view(page, "active")).to_be_visible()


def test_an_empty_intent_is_explained_beside_sharpen(page, app, ui, tmp_path):
    expect = ui.expect
    pidfile = tmp_path / "pids"
    app.fake.configure(pidfile=str(pidfile))
    ui.plan(page)
    fill_plan(page, "Draft the agenda", "Five items, each with an owner", "10")
    before = boxes(page, "#intent", "#coach", "#next_action", "#success_condition")

    page.get_by_role("button", name="Sharpen").click()
    message = page.locator("#intent-message")
    expect(message).to_contain_text("rough intent")
    expect(message).to_be_in_viewport()

    expect(ui.coach(page, "idle")).to_be_visible()
    expect(page.locator("#next_action")).to_have_value("Draft the agenda")
    expect(page.locator("#success_condition")).to_have_value("Five items, each with an owner")
    expect(page.locator("#timebox_minutes")).to_have_value("10")
    expect(page.locator("#plan-message")).to_be_empty()
    # The message slot sits below the intent row; what is above it stays put.
    after = boxes(page, "#intent")
    assert after["#intent"] == before["#intent"]
    assert not pidfile.exists(), "an empty intent must not start the CLI"
    assert app.state() == "planning"


def test_a_logged_out_cli_is_a_readable_coach_error(page, app, ui):
    expect = ui.expect
    app.fake.logged_out()
    ui.plan(page)
    fill_plan(page, "Outline the talk", "Ten slide titles", "30")
    page.get_by_label("Rough intent").fill("prepare the conference talk")
    before = boxes(page, "#intent")

    page.get_by_role("button", name="Sharpen").click()
    error = ui.coach(page, "error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("Claude is not logged in — run claude once in a terminal")
    expect(error).to_be_in_viewport()
    assert "Please run /login" not in error.inner_text(), "raw CLI output reached the page"
    ui.snap(page, "coach-error")

    expect(page.locator("#intent")).to_have_value("prepare the conference talk")
    expect(page.locator("#next_action")).to_have_value("Outline the talk")
    expect(page.locator("#success_condition")).to_have_value("Ten slide titles")
    expect(page.locator("#timebox_minutes")).to_have_value("30")
    expect(page.locator("#intent-message")).to_be_empty()
    expect(page.locator("#plan-message")).to_be_empty()
    assert boxes(page, "#intent") == before
    assert app.state() == "planning"

    # Manual planning still works after a coach error.
    page.get_by_role("button", name="Start").click()
    expect(ui.view(page, "active")).to_be_visible()


# -- 6. cancel a running Sharpen ------------------------------------------------------------------


def test_cancel_a_running_sharpen_kills_the_cli(page, app, ui, tmp_path):
    expect = ui.expect
    pidfile = tmp_path / "pids"
    app.fake.configure(delay=20, pidfile=str(pidfile))
    ui.plan(page)
    page.get_by_label("Rough intent").fill("plan the offsite")
    page.get_by_label("Rough intent").press("Enter")

    pending = ui.coach(page, "pending")
    expect(pending).to_be_visible()
    expect(pending).to_contain_text("Thinking…")
    ui.wait_until(
        page,
        lambda: pidfile.exists() and pidfile.read_text().strip() != "",
        what="the fake CLI to start",
    )
    pid = int(pidfile.read_text().split()[0])
    assert not ui.process_gone(pid)

    pending.get_by_role("button", name="Stop coach").click()
    expect(ui.coach(page, "idle")).to_be_visible()
    ui.wait_until(page, lambda: ui.process_gone(pid), timeout=5, what=f"CLI pid {pid} to die")
    expect(page.locator("#intent")).to_have_value("plan the offsite")
    # It says what happened and what is left to do, and Sharpen takes the focus.
    expect(page.locator("#intent-message")).to_have_text(STOPPED)
    expect(page.get_by_role("button", name="Sharpen", exact=True)).to_be_focused()
    assert app.server.get("/state")["coach"]["status"] == "idle"


STOPPED = "Coach stopped: plan by hand below, or Sharpen again."
LOOKS = [(1280, 800), (390, 844)]


def contrast(page, selector: str, fore: str, back_selector: str, back: str) -> float:
    """WCAG's contrast ratio between a colour of one element and a colour of another."""
    return page.evaluate(
        """([sel, fore, backSel, back]) => {
            const lum = c => { const [r, g, b] = c.match(/[0-9.]+/g).slice(0, 3).map(v => {
                    v = v / 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
                return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
            const a = lum(getComputedStyle(document.querySelector(sel))[fore]);
            const b = lum(getComputedStyle(document.querySelector(backSel))[back]);
            return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); }""",
        [selector, fore, back_selector, back],
    )


@pytest.mark.parametrize(("width", "height"), LOOKS)
def test_stop_coach_reads_as_a_button_and_says_what_happened(new_tabs, app, ui, width, height):
    """Light and dark: Stop coach is a button plainly (its edge seen on the coach's tint, its
    words in the page's ink), and once pressed the page says what happened and what next."""
    expect = ui.expect
    app.fake.configure(delay=30)
    tabs = new_tabs(viewport={"width": width, "height": height}, bypass_csp=True)
    page, _ = tabs.open()
    ui.plan(page)
    page.get_by_label("Rough intent").fill("plan the offsite")
    page.get_by_role("button", name="Sharpen", exact=True).click()
    expect(ui.coach(page, "pending")).to_be_visible()
    stop = "#coach button.quiet"
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        ui.settled(page)
        # Its edge against the coach's tint (non-text contrast, 3:1) and its words (4.5:1).
        assert contrast(page, stop, "borderTopColor", ".coach-box", "backgroundColor") >= 3
        assert contrast(page, stop, "color", stop, "backgroundColor") >= 4.5
        assert ui.axe_problems(page) == []
        ui.snap(page, f"planning-pending-{width}-{scheme}")
    page.get_by_role("button", name="Stop coach").click()
    expect(ui.coach(page, "idle")).to_be_visible()
    expect(page.locator("#intent-message")).to_have_text(STOPPED)
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        ui.settled(page)
        assert ui.axe_problems(page) == []
        assert ui.sideways_scroll(page) == 0
        ui.snap(page, f"planning-stopped-{width}-{scheme}")
