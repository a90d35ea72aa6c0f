"""AntiDrift's own page is known by the whole title it shows (as a browser's window title
carries it), never by a suffix that any page can put in its own title."""

from __future__ import annotations

import pytest

from antidrift.drift.window_key import is_own_page

ACTION = "Write the intro"


@pytest.mark.parametrize(
    "title",
    [
        "12:34 · Write the intro · AntiDrift",
        "1:02:03 · Write the intro · AntiDrift — Mozilla Firefox",
        "Drifting? · 00:09 · Write the intro · AntiDrift - Chromium",
        "5 min left · 04:59 · Write the intro · AntiDrift - Google Chrome - Work",
        "Paused · 12:00 · Write the intro · AntiDrift — Mozilla Firefox Private Browsing",
        "AntiDrift - 12:34 · Write the intro · AntiDrift",  # an installed app's window
        "Review · Write the intro · AntiDrift",
        "Planning · AntiDrift — Mozilla Firefox",  # a page one push behind
        "  12:34  ·  Write the intro · AntiDrift ",  # whitespace as a title bar may space it
    ],
)
def test_the_pages_own_titles_are_its_own(title):
    assert is_own_page(title, ACTION)


@pytest.mark.parametrize(
    "title",
    [
        "Cat videos · AntiDrift — YouTube — Mozilla Firefox",
        "Cat videos · AntiDrift",
        "Why I quit · AntiDrift",
        "12:34 · Write the intro · AntiDrift · Cat videos — YouTube",
        "12:34 · Another plan · AntiDrift",  # another commitment's page
        "12:34 · Write the intro · AntiDriftX",
        "Watching · 12:34 · Write the intro · AntiDrift",
        "x12:34 · Write the intro · AntiDrift",
        "",
    ],
)
def test_a_title_that_only_contains_the_name_is_not(title):
    assert not is_own_page(title, ACTION)


def test_a_long_action_is_known_as_the_title_shortens_it():
    action = "Draft the grant report's budget section with every figure checked twice over"
    assert is_own_page(f"12:34 · {action[:59].rstrip()}… · AntiDrift — Mozilla Firefox", action)
    assert not is_own_page(f"12:34 · {action} · AntiDrift", action)
