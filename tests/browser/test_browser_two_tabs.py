"""Two tabs on one server, in Chromium (0.6): the draft typed in one tab reaches the other for
the fields it is not typing in; a Start from a tab that did not take the other's change is
refused with "Changed in another tab" and the other text, nothing started, while one tab
never takes its own save on its way for another's; and an Edit dialog open in one tab stays
open, with what is typed in it, when the other tab saves. No swap logs an error."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser

MINE = {"next_action": "Write the intro", "success_condition": "Intro in the doc"}
# Over 90 characters: the heading that says it is a smaller one (class "long").
LONG = "Draft the intro's first line, then the two paragraphs on revenue and risk under it"
LONG += " for Ada, today"


def saved(app) -> dict:
    return app.server.get("/state")["draft"]


def swap_errors(watch) -> list[str]:
    """What the page logged about a swap (one that found no element says "oobErrorNoTarget";
    a refusal's 409 is logged too, by the browser and htmx, and is not one), and its script
    errors."""
    refused = ("409 (CONFLICT)", "Response Status Error Code 409")
    said = [c for c in watch.console if c.startswith("error") and not any(r in c for r in refused)]
    return said + watch.errors


def open_planning(tabs, app, ui, **options):
    page, watch = tabs.open(**options)
    ui.expect(ui.view(page, "planning")).to_be_visible()
    ui.wait_until(page, lambda: bool(watch.frames), what="the page's socket")
    return page, watch


def type_into(page, selector: str, text: str) -> None:
    page.locator(selector).click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.type(text, delay=5)


def test_the_draft_reaches_the_other_tab_but_never_the_field_it_types_in(tabs, app, ui):
    expect = ui.expect
    app.server.post("/planning")
    a, a_watch = open_planning(tabs, app, ui)
    b, b_watch = open_planning(tabs, app, ui)

    # A types its plan; B, typing nowhere yet (its intent box has the focus), takes it.
    type_into(a, "#next_action", MINE["next_action"])
    type_into(a, "#success_condition", MINE["success_condition"])
    ui.wait_until(a, lambda: saved(app)["success_condition"] == MINE["success_condition"])
    expect(b.locator("#next_action")).to_have_value(MINE["next_action"])
    expect(b.locator("#success_condition")).to_have_value(MINE["success_condition"])
    expect(b.locator("#count-next_action")).to_have_text(f"{len(MINE['next_action'])} / 500")
    version = str(saved(app)["draft_version"])
    expect(b.locator("#draft_version")).to_have_value(version)
    expect(a.locator("#draft_version")).to_have_value(version)

    # B types in "Done when" while A types there too: neither field is swapped under typing.
    type_into(b, "#success_condition", "Sent to Ada")
    ui.wait_until(b, lambda: saved(app)["success_condition"] == "Sent to Ada")
    expect(a.locator("#success_condition")).to_be_focused()
    type_into(a, "#success_condition", "Three paragraphs")
    ui.wait_until(a, lambda: saved(app)["success_condition"] == "Three paragraphs")
    a.wait_for_timeout(500)  # the push of A's words has reached B
    expect(b.locator("#success_condition")).to_have_value("Sent to Ada")
    expect(a.locator("#success_condition")).to_have_value("Three paragraphs")
    # A's words are saved, B never took them: B's Start would drop them. It is refused.
    assert b.input_value("#draft_version") != str(saved(app)["draft_version"])
    b.get_by_role("button", name="Start").click()
    message = b.locator("#plan-message")
    expect(message).to_contain_text("Changed in another tab")
    expect(message).to_contain_text("“Three paragraphs”")
    expect(message).to_contain_text(f"“{MINE['next_action']}”")
    assert app.server.get("/state")["runtime_state"] == "planning"  # nothing started
    expect(b.locator("#success_condition")).to_have_value("Sent to Ada")  # B's own stay

    # Seen: Start again starts what B shows, and A's tab follows.
    b.get_by_role("button", name="Start").click()
    expect(ui.view(b, "active")).to_be_visible()
    assert app.server.get("/state")["commitment"]["success_condition"] == "Sent to Ada"
    expect(ui.view(a, "active")).to_be_visible()
    assert swap_errors(a_watch) == [] and swap_errors(b_watch) == []


def test_a_start_from_a_tab_that_missed_the_change_says_so_and_starts_nothing(tabs, app, ui):
    expect = ui.expect
    hold = {"on": False}

    def drop_draft_pushes(page) -> None:
        # The tab's socket goes through Playwright, which drops the pushes of the draft while
        # `hold` is on: a tab that did not hear of the change (asleep, slow, a push late).
        def proxy(ws) -> None:
            server = ws.connect_to_server()

            def from_server(message) -> None:
                if not (hold["on"] and 'id="draft_version"' in message):
                    ws.send(message)

            server.on_message(from_server)

        page.route_web_socket(re.compile(r"/ws\b"), proxy)

    app.server.post("/planning")
    a, a_watch = open_planning(tabs, app, ui, before=drop_draft_pushes)
    b, _ = open_planning(tabs, app, ui)
    type_into(a, "#next_action", MINE["next_action"])
    type_into(a, "#success_condition", MINE["success_condition"])
    ui.wait_until(a, lambda: saved(app)["success_condition"] == MINE["success_condition"])
    expect(b.locator("#next_action")).to_have_value(MINE["next_action"])

    hold["on"] = True
    type_into(b, "#next_action", "Call Dana about the numbers")
    ui.wait_until(b, lambda: saved(app)["next_action"] == "Call Dana about the numbers")
    a.get_by_role("button", name="Start").click()
    message = a.locator("#plan-message")
    expect(message).to_contain_text("Changed in another tab")
    expect(message).to_contain_text("“Call Dana about the numbers”")
    assert app.server.get("/state")["runtime_state"] == "planning"
    expect(a.locator("#next_action")).to_have_value(MINE["next_action"])

    # A reload shows the saved draft: B's words; Start starts them.
    hold["on"] = False
    a.reload()
    expect(a.locator("#next_action")).to_have_value("Call Dana about the numbers")
    a.get_by_role("button", name="Start").click()
    expect(ui.view(a, "active")).to_be_visible()
    assert app.server.get("/state")["commitment"]["next_action"] == "Call Dana about the numbers"
    assert swap_errors(a_watch) == []


def test_one_tab_never_takes_its_own_save_on_its_way_for_another_tabs(tabs, app, ui):
    """A save of this tab reaches the server, its answer is held on the way back; more is
    typed and Start pressed at once: the Start waits for that answer (which brings the draft
    version), so it starts what is typed instead of saying "Changed in another tab"."""
    expect = ui.expect
    held: list = []

    def hold_the_first_save(route) -> None:
        if held or "next_action=Write" not in (route.request.post_data or ""):
            route.continue_()
            return
        held.append((route, route.fetch()))  # the server has it; the page has no answer yet

    app.server.post("/planning")
    page, watch = open_planning(tabs, app, ui)
    page.route(re.compile(r"/planning/draft$"), hold_the_first_save)
    type_into(page, "#success_condition", MINE["success_condition"])
    type_into(page, "#next_action", "Write")
    # The handler holds the answer once its fetch returns (the server saved by then): wait
    # for that, not for the save alone, which lands while the handler is still fetching.
    ui.wait_until(page, lambda: bool(held), what="the held save")
    assert saved(app)["next_action"] == "Write"
    page.keyboard.type(" the intro")
    page.get_by_role("button", name="Start").click()
    page.wait_for_timeout(300)
    assert app.server.get("/state")["runtime_state"] == "planning"  # Start waits for it
    route, response = held[0]
    route.fulfill(response=response)
    expect(ui.view(page, "active")).to_be_visible()
    assert app.server.get("/state")["commitment"]["next_action"] == "Write the intro"
    assert swap_errors(watch) == []


def test_an_open_edit_dialog_stays_open_with_its_text_when_the_other_tab_saves(tabs, app, ui):
    expect = ui.expect
    app.server.post("/planning")
    app.server.post("/commitment", {**MINE, "timebox_minutes": "25"})
    a, a_watch = tabs.open()
    b, b_watch = tabs.open()
    for page, watch in ((a, a_watch), (b, b_watch)):
        expect(ui.view(page, "active")).to_be_visible()
        ui.wait_until(page, lambda w=watch: bool(w.frames), what="the page's socket")

    a.get_by_role("button", name="Edit the next action").click()
    a_field = a.locator("#edit-next_action")
    expect(a_field).to_be_focused()
    expect(a_field).to_have_value(MINE["next_action"])
    a.keyboard.press("ControlOrMeta+a")
    a.keyboard.type("Outline the intro", delay=5)

    b.get_by_role("button", name="Edit the next action").click()
    expect(b.locator("#edit-next_action")).to_be_focused()  # fetched afresh as it opens
    b.locator("#edit-next_action").fill(LONG)
    b.get_by_role("button", name="Save").click()
    expect(b.locator("#active-title")).to_have_text(LONG)

    # A hears of it: its heading says B's words, at their size; its dialog stays open with A's.
    expect(a.locator("#active-title")).to_have_text(LONG)
    expect(a.locator("#active-title")).to_have_class("long")
    expect(a).to_have_title(re.compile("Draft the intro's first line"))
    expect(a.locator("#edit-next")).to_be_visible()
    expect(a_field).to_have_value("Outline the intro")
    expect(a_field).to_be_focused()
    a.keyboard.type(" today", delay=5)  # still the field being typed in
    expect(a_field).to_have_value("Outline the intro today")

    # A saves: its words win, in both tabs; B's closed editor holds them for its next Edit.
    a.get_by_role("button", name="Save").click()
    expect(a.locator("#edit-next")).to_be_hidden()
    expect(a.locator("#active-title")).to_have_text("Outline the intro today")
    expect(a.locator("#active-title")).to_be_focused()
    expect(b.locator("#active-title")).to_have_text("Outline the intro today")
    expect(b.locator("#active-title")).not_to_have_class("long")
    expect(b.locator("#edit-next_action")).to_have_value("Outline the intro today")
    assert app.server.get("/state")["commitment"]["next_action"] == "Outline the intro today"
    assert swap_errors(a_watch) == [] and swap_errors(b_watch) == []
