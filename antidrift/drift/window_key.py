"""The focused window as the drift guard keys it (pure): clocks and counters in a title left
out, AntiDrift's own page recognised, and what of a title the judge may see."""

from __future__ import annotations

import re
from functools import lru_cache

from antidrift.core.domain import EXCLUDED_TITLE, redact
from antidrift.core.drift_records import Window

# A title that ticks (a countdown, a player's position) or counts (an unread badge) is still
# the same window: without this, a window showing a clock would be judged every few seconds.
_CLOCK = re.compile(r"(?<![\d:])\d{1,2}:\d{2}(?::\d{2})?(?![\d:])")
_COUNTER = re.compile(r"^\(\d+\)\s*")
_SPACES = re.compile(r"\s{2,}")

# AntiDrift's own page ("12:34 · Write the intro · AntiDrift" in a browser's title): looking
# at it to answer a nudge is neither work nor drift, so the guard lets it pass unjudged (and
# the teeth never put it away). It is known by the whole title the page itself shows (below,
# the one formula web/widgets.Title renders), never by a suffix: any page or window can put
# "· AntiDrift" in its own title.
PAGE_NAME = "AntiDrift"
PAUSED, SOON, DRIFTING = "Paused", "5 min left", "Drifting?"  # while active, before the clock
AWAY = "Away"  # while active, no input for the away_after minutes (session/away.py)
EVENT_SOON = " in 5 min"  # "Team standup in 5 min": a calendar event's head, the same place
REVIEW, TIMES_UP, PLANNING, LOCKED = "Review", "Time's up", "Planning", "No commitment"
ACTION_MAX = 60  # characters of the next action in the page's title
# What a browser adds around a page's title: its own name after a dash ("— Mozilla Firefox",
# "- Chromium", "- Google Chrome - Work"), an installed app's name before one.
_AROUND = r"(?:{name} [-\u2013\u2014] )?{title}(?: [-\u2013\u2014] [^·]{{1,80}})?"
_WHITESPACE = re.compile(r"\s+")


def short_action(text: str) -> str:
    """The next action as the page's title carries it (at most ACTION_MAX characters)."""
    return text if len(text) <= ACTION_MAX else text[: ACTION_MAX - 1].rstrip() + "…"


def event_soon(title: str) -> str:
    """The head of the page's title in the minute from five minutes before an event."""
    return short_action(title) + EVENT_SOON


def page_title(*parts: str) -> str:
    """The page's title: its parts and the app's name, " · " between them."""
    return " · ".join((*parts, PAGE_NAME))


@lru_cache(maxsize=16)
def _own_page(next_action: str) -> re.Pattern[str]:
    action = re.escape(_WHITESPACE.sub(" ", short_action(next_action)).strip())
    clock = r"\d{1,2}:\d{2}(?::\d{2})?"
    event = rf".{{1,{ACTION_MAX}}}{re.escape(EVENT_SOON)}"  # any event's title: the calendar's
    heads = "|".join([*(re.escape(h) for h in (PAUSED, SOON, DRIFTING, AWAY)), event])
    forms = "|".join(
        (
            rf"(?:(?:{heads}) · )?{clock} · {action}",
            rf"(?:{re.escape(REVIEW)}|{re.escape(TIMES_UP)}) · {action}",
            re.escape(PLANNING),  # a page a push behind, at the start
            re.escape(LOCKED),
        )
    )
    title = rf"(?:{forms}) · {re.escape(PAGE_NAME)}"
    return re.compile(_AROUND.format(name=re.escape(PAGE_NAME), title=title))


def window_of(app: str, title: str, site: str | None = None) -> Window:
    """The window as the guard keys its verdicts: clocks and unread counters left out."""
    if title == EXCLUDED_TITLE:
        return Window(app, title)  # a private page keeps no site either
    key = _SPACES.sub(" ", _COUNTER.sub("", _CLOCK.sub("", title))).strip()
    return Window(app, key, site or "")


def churn_key(window: Window) -> str:
    """What a new title inherits a verdict by: its site in a browser, else its app."""
    return f"site:{window.site}" if window.site else f"app:{window.app}"


def churn_reason(window: Window) -> str:
    """Why a new title counts off task before the judge has said (churn)."""
    where = f"a new page on {window.site}" if window.site else f"a new title in {window.app}"
    return f"{where}, already found off task; asking about it"


def is_own_page(title: str, next_action: str) -> bool:
    """Whether the window's title is exactly the title AntiDrift's own page shows for this
    commitment (in a browser's window, its name beside it)."""
    return _own_page(next_action).fullmatch(_WHITESPACE.sub(" ", title).strip()) is not None


def judge_page(
    window: Window, exclude: re.Pattern[str] | None
) -> tuple[str | None, str | None, str]:
    """What the judge may see of a window: its title, site and app, as a sample recorded now
    would keep them (sites.redact_page). A pattern saved while the window is in focus applies
    at once: a private app, title or site hides the title and the site (and a private app's
    name); the window was recorded under the old pattern."""
    title = judge_title(window.title, exclude)
    site = window.site or None
    if exclude is None:
        return title, site, window.app
    if exclude.search(window.app):
        return None, None, EXCLUDED_TITLE
    if redact(window.title, exclude) == EXCLUDED_TITLE or (site and exclude.search(site)):
        return None, None, window.app
    return title, site, window.app


def judge_title(title: str, exclude: re.Pattern[str] | None) -> str | None:
    """What the judge may see of a title: nothing when excluded (or the placeholder).

    Redacted again: the key (window_of) leaves out clocks, and a pattern may match only then."""
    shown = redact(title, exclude)
    return None if shown in ("", EXCLUDED_TITLE) else shown
