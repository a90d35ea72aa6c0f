"""With scripts off (no htmx), the pages that promise a plain form (the day, the rules,
Settings) still work: the browser names our origin on a same-origin post (Referrer-Policy
same-origin; with no-referrer it sends `Origin: null`, which the origin check refuses)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_the_day_and_a_rule_are_kept_by_plain_forms_with_scripts_off(app, new_tabs, ui):
    tabs = new_tabs(java_script_enabled=False)
    page = tabs.context.new_page()
    page.goto(app.base + "/day")
    page.fill("#day-next-action", "Review the PR")
    page.locator("#day-next-action").press("Enter")
    ui.expect(page.locator(".day-action")).to_have_text(["Review the PR"])
    assert [i["next_action"] for i in app.server.get("/day.json")["items"]] == ["Review the PR"]

    page.goto(app.base + "/rules")
    page.locator(".rule-form [name=app]").fill("slack")
    page.locator(".rule-form [name=app]").press("Enter")
    ui.expect(page.locator("body")).not_to_contain_text("other origins")
    assert [r["app"] for r in app.server.get("/rules")] == ["slack"]
