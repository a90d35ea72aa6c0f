"""The stylesheets the server sends (minified, a page's sheets as one answer:
antidrift/web/assets.py) hold the same rules as static/*.css, as Chromium reads them: every
rule's text, in order, in the served page and in a page given the files as written, in the
order the page names them (blank space aside)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

STATIC = Path(__file__).resolve().parents[2] / "static"
# Each rule's text as Chromium serialises it (a value it keeps verbatim keeps its line breaks:
# blank space is compared as one space).
RULES = """() => [...document.styleSheets].flatMap(
    s => [...s.cssRules].map(r => r.cssText.replace(/\\s+/g, " ")))"""
PAGES = {
    "/": ("style", "loop"),
    "/day": ("style", "day"),
    "/insights": ("style", "loop", "insights"),
    "/settings": ("style", "settings"),
}


def test_the_served_stylesheets_are_the_files_rules_to_the_browser(browser, app):
    context = browser.new_context()
    try:
        for path, sheets in PAGES.items():
            served = context.new_page()
            served.goto(app.base + path)
            as_served = served.evaluate(RULES)
            written = context.new_page()  # about:blank: no server, no policy, the files
            css = "".join((STATIC / f"{name}.css").read_text() for name in sheets)
            written.set_content(f"<style>{css}</style>")
            as_written = written.evaluate(RULES)
            assert len(as_written) > 100, path
            assert as_served == as_written, path
    finally:
        context.close()
