"""The web app manifest: what a Chromium-based browser needs to install AntiDrift as an app
(its own window, its own icon in the dock or task bar). No service worker is needed for that.
"""

from __future__ import annotations

# The page's ground in static/style.css (--bg), light and dark: the window's title bar and
# the splash screen match the page (base.html says it per colour scheme; a manifest cannot).
LIGHT_BG = "#f5f4f0"
DARK_BG = "#15181b"
THEME = {"light": LIGHT_BG, "dark": DARK_BG}

ICONS = (
    ("icons/icon-192.png", 192, "any"),
    ("icons/icon-512.png", 512, "any"),
    ("icons/maskable-512.png", 512, "maskable"),
)


def manifest(static_url: str = "/static/") -> dict[str, object]:
    """The manifest's JSON object."""
    return {
        "id": "/",
        "name": "AntiDrift",
        "short_name": "AntiDrift",
        "description": "One thing, on purpose: commit to a next action and keep to it.",
        "lang": "en",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": LIGHT_BG,
        "theme_color": LIGHT_BG,
        "icons": [
            {
                "src": static_url + path,
                "sizes": f"{size}x{size}",
                "type": "image/png",
                "purpose": purpose,
            }
            for path, size, purpose in ICONS
        ],  # fmt: skip
    }
