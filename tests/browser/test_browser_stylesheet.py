"""The stylesheet the server sends (minified: antidrift/web/assets.py) holds the same rules as
static/style.css, as Chromium reads them: every rule's text, in order, in the served page
and in a page given the file as written (blank space aside)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

CSS = (Path(__file__).resolve().parents[2] / "static" / "style.css").read_text()
# Each rule's text as Chromium serialises it (a value it keeps verbatim keeps its line breaks:
# blank space is compared as one space).
RULES = """() => [...document.styleSheets].flatMap(
    s => [...s.cssRules].map(r => r.cssText.replace(/\\s+/g, " ")))"""


def test_the_served_stylesheet_is_the_files_rules_to_the_browser(browser, app):
    context = browser.new_context()
    try:
        served = context.new_page()
        served.goto(app.base + "/")
        as_served = served.evaluate(RULES)
        written = context.new_page()  # about:blank: no server, no policy, the file itself
        written.set_content(f"<style>{CSS}</style>")
        as_written = written.evaluate(RULES)
    finally:
        context.close()
    assert len(as_written) > 300
    assert as_served == as_written
