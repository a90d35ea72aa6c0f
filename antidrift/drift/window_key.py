"""The focused window as the drift guard keys it (pure): clocks and counters in a title left
out, AntiDrift's own page recognised, and what of a title the judge may see."""

from __future__ import annotations

import re
from dataclasses import dataclass

from antidrift.core.domain import EXCLUDED_TITLE, redact

# A title that ticks (a countdown, a player's position) or counts (an unread badge) is still
# the same window: without this, a window showing a clock would be judged every few seconds.
_CLOCK = re.compile(r"(?<![\d:])\d{1,2}:\d{2}(?::\d{2})?(?![\d:])")
_COUNTER = re.compile(r"^\(\d+\)\s*")
_SPACES = re.compile(r"\s{2,}")
# AntiDrift's own page ("12:34 · Write the intro · AntiDrift" in a browser's title): looking
# at it to answer a nudge is neither work nor drift, so the guard lets it pass unjudged (and
# the teeth never put it away).
_OWN_PAGE = re.compile(r"·\s*AntiDrift\b")


@dataclass(frozen=True)
class Window:
    """A focused window as stored (an excluded title is already the placeholder)."""

    app: str
    title: str


def window_of(app: str, title: str) -> Window:
    """The window as the guard keys its verdicts: clocks and unread counters left out."""
    if title == EXCLUDED_TITLE:
        return Window(app, title)
    return Window(app, _SPACES.sub(" ", _COUNTER.sub("", _CLOCK.sub("", title))).strip())


def is_own_page(title: str) -> bool:
    """Whether the title is AntiDrift's own page (in a browser's window title)."""
    return bool(_OWN_PAGE.search(title))


def judge_title(title: str, exclude: re.Pattern[str] | None) -> str | None:
    """What the judge may see of a title: nothing when excluded (or the placeholder).

    Redacted again: the key (window_of) leaves out clocks, and a pattern may match only then."""
    shown = redact(title, exclude)
    return None if shown in ("", EXCLUDED_TITLE) else shown
