"""The words and defaults the settings take from the wings below them, each stated once.

gunicorn's arbiter reads the settings at every start, and the worker it forks copies what
the arbiter imported (issue 40: the footprint against the stack's floor). So the settings
learn an adapter's accepted words and default address here, without loading the adapter,
and each adapter takes its own from here too: the evidence registry orders its desktops by
DESKTOPS, ActivityWatch's and Ollama's modules use their address, the notifier its modes,
the day its end. The AI registry keeps its builders under these words (a test holds the
two equal: tests/unit/ai/test_ai_registry.py)."""

from __future__ import annotations

from datetime import time

# ANTIDRIFT_AI_BACKEND: one entry each in the AI registry (antidrift/ai/backends/__init__.py).
AI_BACKENDS = ("claude", "codex", "command", "ollama", "openai")
OLLAMA_URL = "http://127.0.0.1:11434"  # Ollama's own default address

# ANTIDRIFT_WINDOW_SOURCE: auto, each desktop of the evidence registry (evidence/desktops.py)
# in auto's preference among those that fit equally well, ActivityWatch (the fallback), off.
DESKTOPS = (
    "macos",
    "sway",
    "hyprland",
    "x11",  # before KDE and GNOME: on X11 xdotool sees every window
    "kde",
    "gnome",
)
ACTIVITYWATCH = "activitywatch"  # a source by name, but no desktop: the fallback
WINDOW_SOURCES = ("auto", *DESKTOPS, ACTIVITYWATCH, "off")
AW_URL = "http://127.0.0.1:5600"  # ActivityWatch's own default address

NOTIFY_MODES = ("auto", "off", "command")  # ANTIDRIFT_NOTIFY
DAY_ENDS = time(18, 0)  # the day_ends setting's default (ANTIDRIFT_DAY_ENDS)
