"""Chromium offers to install AntiDrift as an app: the manifest, its icons and the CSP that
lets them load. Checked with CDP's Page.getInstallabilityErrors in a persistent context (an
incognito-like one always adds `in-incognito`), one for the module: launching and closing a
Chromium with a profile of its own costs seconds, and each check is a page of its own."""

from __future__ import annotations

import pytest

from tests.support.browser import CHROMIUM, CHROMIUM_ARGS

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def installable(browser, tmp_path_factory):
    """A persistent context (a profile on disk), shared by the module's pages."""
    context = browser.browser_type.launch_persistent_context(
        str(tmp_path_factory.mktemp("app-window") / "profile"),
        executable_path=CHROMIUM,
        args=CHROMIUM_ARGS,
    )
    yield context
    context.close()


def _installability(context, app, *, block_manifest: bool = False) -> dict:
    page = context.new_page()
    try:
        console: list[str] = []
        page.on("console", lambda m: console.append(m.text))
        if block_manifest:  # the control: the same page without its manifest
            page.route("**/manifest.webmanifest", lambda route: route.abort())
        page.goto(app.base + "/")
        page.wait_for_load_state("networkidle")
        cdp = context.new_cdp_session(page)
        errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
        manifest = cdp.send("Page.getAppManifest")
        return {"errors": errors, "manifest": manifest, "console": console}
    finally:
        page.close()


def test_chromium_finds_the_page_installable(installable, app):
    seen = _installability(installable, app)
    assert seen["errors"] == [], seen["errors"]
    assert seen["manifest"]["url"].endswith("/manifest.webmanifest")
    assert seen["manifest"]["errors"] == []
    assert [c for c in seen["console"] if "Content Security Policy" in c] == []


def test_without_its_manifest_the_page_is_not_installable(installable, app):
    """The check above can fail: Chromium names what is missing."""
    seen = _installability(installable, app, block_manifest=True)
    assert seen["errors"] != []
