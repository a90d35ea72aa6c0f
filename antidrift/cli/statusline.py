"""The state as the desktop shows it: one line, or one JSON line for waybar (pure: a /state
object in, text out).

The time left comes from the state's `left_secs`, which the follower counts down by itself
between answers (antidrift/cli/remote.py); nothing here reads a clock.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from html import escape

from antidrift.core.isotime import from_iso
from antidrift.core.minutes import until_text
from antidrift.core.timing import clock_text

# waybar's `class`, one word per thing the bar may want to colour.
KINDS = ("locked", "planning", "active", "drifting", "paused", "timesup", "review")
SHORT = 32  # characters of the next action in a bar


def kind(state: dict) -> str:
    """locked | planning | active | drifting | paused | timesup | review."""
    runtime = state.get("runtime_state")
    if runtime == "active":
        if state.get("paused"):
            return "paused"
        if (state.get("drift") or {}).get("status") == "drifting":
            return "drifting"
        return "active"
    if runtime == "review":
        return "timesup" if (state.get("commitment") or {}).get("ran_out") else "review"
    return "planning" if runtime == "planning" else "locked"


def _action(state: dict, limit: int | None = None) -> str:
    text = " ".join(str((state.get("commitment") or {}).get("next_action") or "").split())
    if limit is not None and len(text) > limit:
        return text[: limit - 1].rstrip() + "…"
    return text


def _left(state: dict) -> str:
    return clock_text(int(state.get("left_secs") or 0))


SOON_MINUTES = 60  # the next calendar event joins the line this close


def _event(state: dict, limit: int | None = None) -> str:
    """· Team standup in 40 min: the next calendar event, when it is within the hour."""
    upcoming = (state.get("calendar") or {}).get("next") or {}
    minutes = upcoming.get("in_minutes")
    if not isinstance(minutes, int) or not 0 <= minutes <= SOON_MINUTES:
        return ""
    title = " ".join(str(upcoming.get("title") or "").split())
    if limit is not None and len(title) > limit:
        title = title[: limit - 1].rstrip() + "…"
    when = f"in {minutes} min"
    if minutes == 0:  # under a minute: seconds, as everywhere (core/minutes.py)
        try:
            starts = from_iso(upcoming.get("starts_at"))
        except (TypeError, ValueError):
            starts = None
        if starts is not None and starts.tzinfo is not None:
            when = until_text(starts, datetime.now(UTC))
    return f" · {title} {when}"


def line(state: dict) -> str:
    """One line for a terminal or a plain status bar (the next event within the hour)."""
    return _line(state) + _event(state)


def _rest(state: dict) -> str | None:
    """A break under way (locked): "Break until 14:05", as the page says Break."""
    rest = state.get("break")
    if not isinstance(rest, dict):
        return None
    name = "Long break" if rest.get("long") is True else "Break"
    try:
        ends = from_iso(rest.get("ends_at"))
    except (TypeError, ValueError):  # a server that says something else: the word alone
        ends = None
    return name if ends is None else f"{name} until {ends.astimezone():%H:%M}"


def _next_up(state: dict, limit: int | None = None) -> str:
    """Locked with the day's queue not empty: " · next up: Write the intro" (the server's
    `next_up`; an older server, or none queued, says nothing)."""
    first = state.get("next_up")
    if not isinstance(first, dict):
        return ""
    text = " ".join(str(first.get("next_action") or "").split())
    if limit is not None and len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return f" · next up: {text}" if text else ""


def _line(state: dict, limit: int | None = None) -> str:
    k = kind(state)
    if k == "locked":
        return _rest(state) or "No commitment" + _next_up(state, limit)
    if k == "planning":
        return "Planning"
    if k == "timesup":
        return f"Time's up · {_action(state)}"
    if k == "review":
        return f"Review · {_action(state)}"
    prefix = {"paused": "Paused · ", "drifting": "Drifting? · "}.get(k, "")
    if k == "active" and state.get("away"):
        prefix = "Away · "  # as the page's title: no input for the away_after minutes
    return f"{prefix}{_left(state)} · {_action(state)}"


def percentage(state: dict) -> int:
    """How much of the timebox has gone, 0–100 (100 once it is over)."""
    k = kind(state)
    if k in ("timesup", "review"):
        return 100
    commitment = state.get("commitment") or {}
    total = int(commitment.get("timebox_secs") or 0) + int(commitment.get("extended_secs") or 0)
    if k not in ("active", "drifting", "paused") or total <= 0:
        return 0
    return max(0, min(100, round(100 * (total - int(state.get("left_secs") or 0)) / total)))


def waybar(state: dict) -> str:
    """waybar's custom module, `return-type: json`: one object on one line."""
    k = kind(state)
    text = _line(state)
    if k in ("active", "drifting", "paused"):
        prefix = {"paused": "Paused ", "drifting": "Drifting? "}.get(k, "")
        if k == "active" and state.get("away"):
            prefix = "Away "
        text = f"{prefix}{_left(state)} {_action(state, SHORT)}"
    elif k in ("timesup", "review"):
        text = f"{_line(state).split(' · ')[0]} · {_action(state, SHORT)}"
    elif k == "locked":
        text = _line(state, SHORT)
    text += _event(state, SHORT)
    commitment = state.get("commitment") or {}
    tooltip = line(state)
    if commitment.get("success_condition") and k != "locked":
        tooltip += f"\nDone when: {commitment['success_condition']}"
    # waybar reads both as Pango markup: a next action's "<" or "&" must stay text.
    body = {
        "text": escape(text, quote=False),
        "tooltip": escape(tooltip, quote=False),
        "class": k,
        "percentage": percentage(state),
    }
    return json.dumps(body, ensure_ascii=False)


def waybar_down(message: str) -> str:
    """No server: an empty text (waybar hides the module), the reason as its tooltip."""
    body = {"text": "", "tooltip": escape(message, quote=False), "class": "locked", "percentage": 0}
    return json.dumps(body, ensure_ascii=False)
