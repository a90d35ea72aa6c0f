"""The insights page in a real Chromium: desktop and phone, light and dark, corrections and
removals by clicking (no script of our own), paging, and the way there from the locked view."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.browser import App, history_app
from tests.support.history import seed_history

pytestmark = pytest.mark.browser

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
ENTRIES = 60  # more than one page of 50


@pytest.fixture(scope="module")
def app(tmp_path_factory, _chromium_available) -> Iterator[App]:
    """A real server over a database that already holds a history of ENTRIES commitments."""
    tmp = tmp_path_factory.mktemp("insights")
    seed_history(tmp / "data" / "antidrift.sqlite3", ENTRIES)
    with history_app(tmp) as app:
        yield app


def no_sideways_scroll(page) -> bool:
    return page.evaluate(
        "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", list(SIZES))
def test_insights_fits_every_screen_with_accessible_charts(browser, app, ui, size, scheme):
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    try:
        page = context.new_page()
        console: list[str] = []
        page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
        page.goto(app.base + "/insights")
        ui.expect(page.get_by_role("heading", name="How your commitments went")).to_be_visible()
        chart = page.get_by_role("img", name="Planned against actual minutes", exact=False)
        ui.expect(chart).to_be_visible()
        assert page.locator("svg.chart > title").count() == 1
        assert page.locator("svg.chart > desc").text_content().count("planned") == 20
        ui.expect(page.get_by_text("The chart as a table")).to_be_visible()
        assert page.locator(".app-time tbody tr").count() >= 3
        assert page.locator(".history-item").count() == 50
        assert no_sideways_scroll(page), f"{size}/{scheme} scrolls sideways"
        # The chart is drawn at a readable size, not squashed into a corner.
        box = chart.bounding_box()
        assert box["width"] >= min(width, 640) * 0.6 and box["height"] > 100
        assert [c for c in console if "error" in c or "Refused" in c] == []
        ui.snap(page, f"insights-{size}-{scheme}")
    finally:
        context.close()


def test_an_entry_is_corrected_by_clicking(tabs, app, ui):
    page, _ = tabs.open("/insights")
    newest = app.server.get("/history?limit=1")[0]
    entry = page.locator(f"#entry-{newest['id']}")
    entry.locator("summary").click()
    flipped = "missed" if newest["outcome"] == "met" else "met"
    entry.locator(f"label[for='{flipped}-{newest['id']}']").click()
    entry.get_by_label("Note").fill("Corrected in the browser")
    entry.get_by_role("button", name="Save").click()
    ui.expect(page.locator(f"#entry-{newest['id']} .history-note")).to_have_text(
        "Corrected in the browser"
    )
    row = app.server.get("/history?limit=1")[0]
    assert (row["outcome"], row["note"]) == (flipped, "Corrected in the browser")


def test_a_bad_correction_shows_its_message_in_place(tabs, app, ui):
    page, _ = tabs.open("/insights")
    newest = app.server.get("/history?limit=1")[0]
    entry = page.locator(f"#entry-{newest['id']}")
    entry.locator("summary").click()
    entry.get_by_label("Note").fill("x" * 2001)  # over the limit; maxlength is not a defence
    page.evaluate(
        "id => document.getElementById('note-' + id).removeAttribute('maxlength')", newest["id"]
    )
    entry.get_by_label("Note").fill("x" * 2001)
    entry.get_by_role("button", name="Save").click()
    ui.expect(page.locator(f"#msg-{newest['id']}")).to_contain_text("too long")
    assert app.server.get("/history?limit=1")[0]["note"] == newest["note"]


def test_an_entry_is_removed_only_after_the_confirmation_page(tabs, app, ui):
    page, _ = tabs.open("/insights")
    before = app.server.get("/history")
    victim = before[1]
    entry = page.locator(f"#entry-{victim['id']}")
    entry.locator("summary").click()
    entry.get_by_role("link", name="Remove from history").click()
    ui.expect(page.get_by_role("heading", name="Remove this entry?")).to_be_visible()
    assert len(app.server.get("/history")) == len(before)  # nothing removed yet
    page.get_by_role("button", name="Remove").click()
    ui.expect(page.get_by_role("heading", name="How your commitments went")).to_be_visible()
    ui.expect(page.locator(f"#entry-{victim['id']}")).to_have_count(0)
    assert victim["id"] not in [r["id"] for r in app.server.get("/history")]


def test_keep_it_on_the_confirmation_page_removes_nothing(tabs, app, ui):
    victim = app.server.get("/history?limit=1")[0]
    page, _ = tabs.open(f"/history/{victim['id']}/delete")
    page.get_by_role("link", name="Keep it").click()
    ui.expect(page.get_by_role("heading", name="How your commitments went")).to_be_visible()
    assert app.server.get("/history?limit=1")[0]["id"] == victim["id"]


def test_older_pages_and_the_way_there_from_the_locked_view(tabs, app, ui):
    page, _ = tabs.open("/")
    page.get_by_role("link", name="Insights and all history").click()
    ui.expect(page.get_by_role("heading", name="All history")).to_be_visible()
    page.get_by_role("link", name="Older →").click()
    ui.expect(page.get_by_role("heading", name="Older history")).to_be_visible()
    total = len(app.server.get("/history"))
    assert page.locator(".history-item").count() == total - 50
    page.get_by_role("link", name="← Newest").click()
    ui.expect(page.get_by_role("heading", name="All history")).to_be_visible()


VISIBLE_CONTROL_NAMES = """() => [...document.querySelectorAll('a, button, summary')]
  .filter(e => e.getClientRects().length > 0)
  .map(e => (e.getAttribute('aria-label') || e.textContent).trim().replace(/\\s+/g, ' '))"""


def test_no_two_visible_controls_share_a_name_even_with_every_entry_open(tabs, app):
    page, _ = tabs.open("/insights")
    for summary in page.locator(".entry-tools summary").all()[:10]:
        summary.click()
    names = page.evaluate(VISIBLE_CONTROL_NAMES)
    assert len(names) > 30
    assert sorted(n for n in set(names) if names.count(n) > 1) == []


def test_a_very_long_note_and_action_never_scroll_sideways_on_a_phone(browser, app, ui):
    newest = app.server.get("/history?limit=1")[0]
    status, _ = app.server.post(f"/history/{newest['id']}", {"outcome": "met", "note": "n" * 1999})
    assert status == 200
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto(app.base + "/insights")
        page.locator(f"#entry-{newest['id']} summary").click()
        page.locator("details.chart-table summary").click()
        ui.expect(page.locator(f"#entry-{newest['id']} .history-note")).to_be_visible()
        assert no_sideways_scroll(page)
    finally:
        context.close()


@pytest.mark.parametrize("count", [1, 2, 3])
def test_the_chart_axis_words_never_overlap_with_few_commitments(
    browser, ui, tmp_path, count, _chromium_available
):
    """One, two, three commitments: the words under the columns, as drawn, never touch (one
    word where two would), at a desktop's width and a phone's, light and dark."""
    seed_history(tmp_path / "data" / "antidrift.sqlite3", count)
    with history_app(tmp_path) as few:
        for width, height in SIZES.values():
            for scheme in ("light", "dark"):
                context = browser.new_context(
                    viewport={"width": width, "height": height},
                    color_scheme=scheme,
                    bypass_csp=True,
                )
                try:
                    page = context.new_page()
                    page.goto(few.base + "/insights")
                    chart = page.locator("svg.chart")
                    ui.expect(chart).to_be_visible()
                    boxes = chart.locator("text.chart-tick").evaluate_all(
                        """ts => ts.filter(t => ['older', 'newest'].includes(t.textContent))
                            .map(t => { const b = t.getBoundingClientRect();
                                        return [t.textContent, b.left, b.right]; })"""
                    )
                    assert [b[0] for b in boxes][-1:] == ["newest"], boxes
                    for (_, _, right), (_, left, _) in zip(boxes, boxes[1:], strict=False):
                        assert left - right >= 4, f"{count} at {width} px: {boxes}"
                    svg = ui.box(chart)
                    assert all(svg["x"] <= b[1] and b[2] <= svg["x"] + svg["width"] for b in boxes)
                    if count == 1:  # the page's words and colours do not change with the count
                        assert ui.axe_problems(page) == []
                        ui.snap(page, f"insights-one-{width}-{scheme}")
                finally:
                    context.close()
