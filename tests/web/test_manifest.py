"""The web app manifest and its icons: what Chromium installs AntiDrift as an app from."""

from __future__ import annotations

import re
import struct
import zlib
from pathlib import Path

from antidrift.web import manifest as app_manifest
from tests.support.plans import PLAN

REPO = Path(__file__).resolve().parents[2]
CSS = (REPO / "static" / "style.css").read_text()


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    width, height = struct.unpack(">II", data[16:24])
    assert zlib.crc32(data[12:29]) == struct.unpack(">I", data[29:33])[0]  # IHDR's CRC
    return width, height


def _css_bg(scheme: str) -> str:
    block = CSS if scheme == "light" else CSS.split("prefers-color-scheme: dark", 1)[1]
    return re.search(r"--bg:\s*(#[0-9a-f]{6})", block).group(1)


def test_manifest_is_served_with_its_media_type_and_the_fields_chromium_needs(client):
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response.mimetype == "application/manifest+json"
    body = response.get_json(force=True)
    assert body["name"] == "AntiDrift" and body["display"] == "standalone"
    assert body["start_url"] == "/" and body["scope"] == "/"
    purposes = {(icon["sizes"], icon["purpose"]) for icon in body["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= purposes


def test_every_icon_is_a_png_of_its_stated_size_served_by_the_app(client):
    for icon in client.get("/manifest.webmanifest").get_json(force=True)["icons"]:
        response = client.get(icon["src"])
        assert response.status_code == 200 and response.mimetype == "image/png", icon
        width, height = _png_size(response.data)
        assert f"{width}x{height}" == icon["sizes"] and icon["type"] == "image/png"


def test_maskable_icon_fills_its_square_and_the_others_are_transparent_at_the_corner():
    def corner_alpha(name: str) -> int:
        data = (REPO / "static" / "icons" / name).read_bytes()
        chunks, at = b"", 8
        while at < len(data):
            length, kind = struct.unpack(">I4s", data[at : at + 8])
            if kind == b"IDAT":
                chunks += data[at + 8 : at + 8 + length]
            at += 12 + length
        return zlib.decompress(chunks)[4]  # filter byte, then R, G, B, A of pixel (0, 0)

    assert corner_alpha("maskable-512.png") == 255
    assert corner_alpha("icon-512.png") == 0 and corner_alpha("icon-192.png") == 0


def test_colours_match_the_stylesheet_in_light_and_dark(client):
    body = client.get("/manifest.webmanifest").get_json(force=True)
    assert body["background_color"] == body["theme_color"] == _css_bg("light")
    page = client.get("/").data.decode()
    for scheme in ("light", "dark"):
        meta = f'<meta name="theme-color" content="{_css_bg(scheme)}"'
        assert f'{meta} media="(prefers-color-scheme: {scheme})">' in page, scheme
    assert {"light": _css_bg("light"), "dark": _css_bg("dark")} == app_manifest.THEME


def _assert_linked_and_versioned(html: str, what: str) -> None:
    from antidrift.core.release import version

    assert version() not in ("", "unknown")
    assert '<link rel="manifest" href="/manifest.webmanifest">' in html, what
    assert f'<span class="version">AntiDrift {version()}</span></footer>' in html, what


def test_every_page_links_the_manifest_and_shows_the_version(client):
    steps = [("locked", None, None), ("planning", "/planning", {}), ("active", "/commitment", PLAN)]
    for state, path, data in [*steps, ("review", "/finish", {})]:
        if path:
            assert client.post(path, data=data).status_code == 200
        _assert_linked_and_versioned(client.get("/").data.decode(), state)
    assert client.post("/end", data={"outcome": "met", "note": ""}).status_code == 200
    entry = client.get("/history").get_json()[0]["id"]
    for path in ("/insights", f"/history/{entry}/delete", "/history/nope/delete"):
        response = client.get(path, headers={"Accept": "text/html"})
        assert response.mimetype == "text/html", path
        _assert_linked_and_versioned(response.data.decode(), path)


def test_the_changelog_has_a_section_for_the_version_that_runs():
    from packaging.version import Version

    from antidrift.core.release import version

    root = Path(__file__).resolve().parents[2]
    release = Version(version()).base_version  # 0.6.0.dev0 is on its way to 0.6.0
    changelog = (root / "CHANGELOG.md").read_text()
    assert f"## [{release}]" in changelog
    assert version() not in (root / "README.md").read_text()  # said in one place
