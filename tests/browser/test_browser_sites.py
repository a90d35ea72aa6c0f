"""Sites in Chromium: the drift banner names the page's site and offers a rule for it by
htmx alone; the rules page lists a site's rule; the review and insights count a browser's
time per site; each view fits at both sizes, light and dark (screenshots where
ANTIDRIFT_SHOTS points). The server runs on the test clock."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.browser import App, drift_app

ACTION = "Write the intro paragraph of the quarterly report"
VIDEO = "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42"


@pytest.fixture(scope="module")
def app(tmp_path_factory, _chromium_available) -> Iterator[App]:
    with drift_app(tmp_path_factory.mktemp("browser-sites")) as app:
        yield app


def page_of(app: App, app_name: str, title: str, url: str | None = None) -> None:
    sent = {"app": app_name, "title": title} | ({"url": url} if url else {})
    status, _ = app.server.post("/evidence/window", sent)
    assert status == 202


def test_the_banner_offers_the_site_and_the_views_count_time_per_site(
    app, page, watch, ui, browser
):
    expect = ui.expect
    app.server.post("/planning")
    status, _ = app.server.post(
        "/commitment",
        {"next_action": ACTION, "success_condition": "Three paragraphs", "timebox_minutes": 45},
    )
    assert status == 200
    page.reload()
    page_of(app, "code", "intro.md — report")
    expect(page.locator("#drift-guard")).to_have_attribute("data-status", "on_task")
    app.server.clock.advance(20)
    page_of(app, "firefox", "Cat videos — YouTube — Mozilla Firefox", VIDEO)
    app.server.clock.advance(1)  # the grace: nudged once judged off task
    banner = page.locator("#drift")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("youtube.com")
    expect(banner).not_to_contain_text("watch?v")
    ui.each_look(browser, app.base, "sites-active-drift")
    page.get_by_role("button", name="youtube.com is always on task").click()
    expect(banner).to_have_count(0)
    expect(page.locator("#active-message")).to_contain_text("youtube.com is always on task")
    rules = app.server.get("/rules")
    assert [(r["app"], r["site"], r["verdict"]) for r in rules] == [("", "youtube.com", "on_task")]
    app.server.clock.advance(20)
    page_of(app, "firefox", "re — Python docs — Mozilla Firefox", "https://docs.python.org/3/")
    app.server.clock.advance(20)
    page.get_by_role("button", name="Finish").click()
    expect(page.locator(".apps-line")).to_contain_text("youtube.com")
    ui.each_look(browser, app.base, "sites-review")
    ui.each_look(browser, app.base + "/rules", "sites-rules")
    status, _ = app.server.post("/end", {"outcome": "met"})
    assert status == 200
    ui.each_look(browser, app.base + "/insights", "sites-insights")
    assert watch.errors == [] and watch.csp_violations() == []
