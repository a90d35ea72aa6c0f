"""The tab's icon follows the state by push, in Chromium against a real server: htmx's
websocket extension swaps the <link rel="icon" id="icon"> in <head> (no script of ours), the
browser fetches the new picture, and the title says "Drifting?" when the guard asks."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from tests.support.browser import CHROMIUM, CHROMIUM_ARGS

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser(browser):
    """The whole Chromium, not the session's headless shell: only a browser with a tab strip
    fetches a tab's icon."""
    chromium = browser.browser_type.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield chromium
    chromium.close()


def icon_query(page) -> dict[str, str]:
    hrefs = page.evaluate(
        "[...document.querySelectorAll('link[rel~=icon]')]"
        ".map(l => [l.parentElement.tagName, l.id, l.getAttribute('href')])"
    )
    assert [(parent, ident) for parent, ident, _ in hrefs] == [("HEAD", "icon")], hrefs
    url = urlsplit(hrefs[0][2])
    assert url.path == "/icon.svg"
    return {k: v[0] for k, v in parse_qs(url.query).items()}


def test_the_icon_in_the_head_is_pushed_and_the_browser_loads_it(tabs, app, ui):
    expect = ui.expect
    fetched: list[str] = []
    page, watch = tabs.open(
        before=lambda p: p.on(
            "request", lambda r: fetched.append(r.url) if "/icon.svg" in r.url else None
        )
    )
    expect(ui.view(page, "locked")).to_be_visible()
    assert icon_query(page) == {"state": "locked"}
    ui.wait_until(page, lambda: any("state=locked" in u for u in fetched), what="the icon")

    ui.plan(page)  # the planning view arrives by push, with its icon
    ui.wait_until(page, lambda: icon_query(page)["state"] == "planning", what="a pushed icon")
    assert any('id="icon"' in f for _, f in watch.frames)
    ui.wait_until(
        page, lambda: any("state=planning" in u for u in fetched), what="the browser's fetch"
    )

    page.get_by_label("Next action", exact=True).fill("Write the intro")
    page.get_by_label("Done when", exact=True).fill("Intro done")
    page.get_by_label("Minutes", exact=True).fill("25")
    page.get_by_role("button", name="Start").click()
    expect(ui.view(page, "active")).to_be_visible()
    ui.wait_until(page, lambda: icon_query(page)["state"] == "active", what="the active icon")
    assert icon_query(page) == {"state": "active", "left": "25", "span": "25"}
    ui.wait_until(
        page,
        lambda: any("state=active&left=25&span=25" in u for u in fetched),
        what="the browser's fetch of the running icon",
    )
    assert watch.errors == [] and watch.csp_violations() == []
