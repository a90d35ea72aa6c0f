"""A whole day in Chromium by keyboard alone (issue 43), against a real server on a test clock
(tests/support/hooked_serve.py --clock): three items added on /day; the first planned from the
locked view's Next up, started and met; the second planned (its done-when and minutes typed
then), started and missed when its time runs out on the clock; /day's end of the day (3
planned · 1 met · 1 missed · 1 left); past midnight the third is carried over, and /week.json
keeps for the day gone by what was started on it. axe on the locked view and on /day, before
midnight and after."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

pytestmark = pytest.mark.browser
TEST_CLOCK = True  # the timebox runs out and midnight passes on the server's clock

ITEMS = (  # next action, done when, minutes ("": asked for at Plan it)
    ("Write the intro", "The intro is sent to Ana", "25"),
    ("Review the PR", "", ""),
    ("Plan the sprint", "", ""),
)


def server_now(app) -> datetime:
    return datetime.now().astimezone() + timedelta(seconds=app.server.clock.offset)


def advance_to(app, when: datetime) -> None:
    app.server.clock.advance((when - server_now(app)).total_seconds())


def enter(page, ui, selector: str, *, back: bool = False) -> None:
    """Tab to the element (Shift+Tab with back) and press Enter on it, once no swap is under
    way (one would take the focus with it)."""
    ui.settled(page)
    ui.tab_to(page, selector, back=back)
    page.keyboard.press("Enter")


def save_outcome(page, ui, outcome: str) -> None:
    """In review: the outcome by the keys of a radio group (Space, an arrow), then Save."""
    ui.settled(page)
    ui.tab_to(page, "input[name=outcome]")
    if outcome == "missed":
        page.keyboard.press("ArrowRight")
    else:
        page.keyboard.press("Space")
    ui.expect(page.locator(f"#outcome-{outcome}")).to_be_checked()
    enter(page, ui, ".review-form button[type=submit]")
    ui.expect(ui.view(page, "locked")).to_be_visible()


def test_a_whole_day_by_keyboard_one_item_carried_over_midnight(app, new_tabs, ui):
    # The server's next 09:00 first: the day has hours left, and no midnight comes early.
    now = server_now(app)
    morning = now.replace(hour=9, minute=0, second=0, microsecond=0)
    advance_to(app, morning if morning > now else morning + timedelta(days=1))
    day = server_now(app).date()
    tabs = new_tabs(viewport={"width": 1280, "height": 800}, bypass_csp=True)  # for axe
    page, watch = tabs.open("/day")

    ui.tab_to(page, "#day-next-action")
    for action, done, minutes in ITEMS:
        page.keyboard.type(action)
        if done:
            page.keyboard.press("Tab")
            page.keyboard.type(done)
            page.keyboard.press("Tab")
            page.keyboard.type(minutes)
        page.keyboard.press("Enter")
        ui.expect(page.locator("#day-message")).to_have_text(f"Added: {action}")
        ui.settled(page)  # the new form is htmx's before the next Enter (else a plain post)
        ui.wait_until(page, lambda: ui.focused_matches(page, "#day-next-action"), what="focus")
    ui.expect(page.locator(".day-action")).to_have_text([a for a, _, _ in ITEMS])
    ui.expect(page.locator("#day-fit")).to_contain_text("75 min planned")
    ui.expect(page.locator("#day-fit")).to_contain_text("Fits")

    # The first: Next up on the locked view, Plan it, Start, Finish, met.
    enter(page, ui, "a[href='/']", back=True)
    ui.expect(page.locator("#next-up-action")).to_have_text("Write the intro")
    ui.settled(page)
    assert ui.axe_problems(page) == []
    enter(page, ui, "#next-up button")
    ui.expect(page.locator("#success_condition")).to_have_value("The intro is sent to Ana")
    enter(page, ui, "#start")
    ui.expect(ui.view(page, "active")).to_be_visible()
    enter(page, ui, "#controls button.primary")  # Finish
    ui.expect(ui.view(page, "review")).to_be_visible()
    save_outcome(page, ui, "met")

    # The second: its done-when and minutes typed at Plan it; its time runs out: missed.
    ui.expect(page.locator("#next-up-action")).to_have_text("Review the PR")
    enter(page, ui, "#next-up button")
    ui.expect(page.locator("#next_action")).to_have_value("Review the PR")
    ui.tab_to(page, "#success_condition")
    page.keyboard.type("Comments are posted")
    ui.tab_to(page, "#timebox_minutes")
    page.keyboard.type("20")
    enter(page, ui, "#start")
    ui.expect(ui.view(page, "active")).to_be_visible()
    app.server.clock.advance(20 * 60 + 1)
    ui.expect(ui.view(page, "review")).to_be_visible()
    save_outcome(page, ui, "missed")

    # The day's end on /day: planned against done, the third left to carry over.
    ui.expect(page.locator("#next-up-action")).to_have_text("Plan the sprint")
    enter(page, ui, "#next-up a.day-link")
    ui.expect(page.locator("#day-done")).to_have_text(
        "Today so far: 3 planned · 1 met · 1 missed · 1 left to carry over"
    )
    ui.expect(page.locator(".day-action")).to_have_text(["Plan the sprint"])
    ui.expect(page.locator(".day-carried")).to_have_count(0)
    ui.settled(page)
    assert ui.axe_problems(page) == []

    # Past midnight: the third is carried over to the new day; the day gone by is counted.
    midnight = datetime.combine(day + timedelta(days=1), datetime.min.time()).astimezone()
    advance_to(app, midnight + timedelta(minutes=1))
    enter(page, ui, "a[href='/']", back=True)
    ui.expect(page.locator("#next-up-action")).to_have_text("Plan the sprint")
    enter(page, ui, "#next-up a.day-link")
    ui.expect(page.locator("#day-title")).to_contain_text(f" {(day + timedelta(days=1)).day} ")
    ui.expect(page.locator(".day-item .day-carried")).to_have_text(["carried over"])
    ui.expect(page.locator("#day-done")).to_have_count(0)  # nothing started yet today
    ui.settled(page)
    assert ui.axe_problems(page) == []
    body = app.server.get("/day.json")
    assert [(i["next_action"], i["carried"]) for i in body["items"]] == [("Plan the sprint", True)]
    assert body["tally"] == {"planned": 1, "met": 0, "missed": 0, "carried": 1}
    # The day gone by keeps what was started on it; the carried item counts on the new day.
    [gone] = [d for d in app.server.get("/week.json")["days"] if d["date"] == day.isoformat()]
    assert (gone["planned"], gone["done"], gone["met"], gone["missed"]) == (2, 1, 1, 1)
    assert watch.errors == [] and watch.csp_violations() == []
