"""The tab's icon drawn (GET /icon.svg, web/icon.py): the state on a disc and, while a
commitment runs, the minutes left on a ring; every value checked before it is drawn. Loaded
with the first icon asked for, not at every start (issue 40: the footprint)."""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import escape

from antidrift.core.domain import ValidationError
from antidrift.web.icon import COLOURS, STATES

MAX_MINUTES = 100_000  # beyond any timebox with every extension
SIZE = 32


@dataclass(frozen=True)
class IconState:
    """What the icon shows: the state, and while active the minutes left of the span."""

    state: str
    left: int = 0
    span: int = 0

    @classmethod
    def parse(cls, args) -> IconState:
        """From a query string; an unknown state or a bad number is a 400 sentence."""
        state = args.get("state", "locked")
        if state not in COLOURS:
            raise ValidationError(f"The icon's state is one of {', '.join(STATES)}.")
        return cls(state, _minutes(args.get("left", "0")), _minutes(args.get("span", "0")))

    @property
    def label(self) -> str:
        if self.state in ("active", "drifting", "paused", "break"):
            return f"{self.state}, {self.left} min left"
        return self.state


def _minutes(text: str) -> int:
    if not (text.isascii() and text.isdigit() and len(text) <= 6):
        raise ValidationError("The icon's minutes are whole numbers.")
    value = int(text)
    if value > MAX_MINUTES:
        raise ValidationError(f"The icon's minutes are at most {MAX_MINUTES}.")
    return value


def minutes_text(left: int) -> str:
    """What fits in 16 pixels: the minutes up to 99, then whole hours ("2h")."""
    return str(left) if left < 100 else f"{left // 60}h"


def svg(icon: IconState) -> str:
    """The icon as an SVG document (32×32 user units)."""
    c = SIZE / 2
    parts = [f'<circle cx="{c}" cy="{c}" r="15" fill="{COLOURS[icon.state]}"/>']
    ring = f'cx="{c}" cy="{c}" r="13.5" fill="none" stroke="#fff" stroke-width="2.5"'
    if icon.state in ("active", "drifting", "paused", "timesup", "break"):
        share = 0 if icon.state == "timesup" else _share(icon.left, icon.span)
        parts.append(f'<circle {ring} stroke-opacity="0.35"/>')
        if share:
            parts.append(
                f'<circle {ring} pathLength="100" stroke-dasharray="{share} 100"'
                f' stroke-linecap="round" transform="rotate(-90 {c} {c})"/>'
            )
    if icon.state == "paused":
        parts.append('<rect x="11.5" y="10" width="3" height="12" rx="1" fill="#fff"/>')
        parts.append('<rect x="17.5" y="10" width="3" height="12" rx="1" fill="#fff"/>')
    elif icon.state in ("active", "drifting", "timesup", "break"):
        text = minutes_text(icon.left) if icon.state != "timesup" else "0"
        size = 20 if len(text) < 2 else 16 if len(text) < 3 else 11
        parts.append(
            f'<text x="{c}" y="{c}" dy="0.35em" text-anchor="middle" font-size="{size}"'
            ' font-weight="700" font-family="system-ui, sans-serif" letter-spacing="-0.5"'
            ' fill="#fff">'
            f"{escape(text)}</text>"
        )
    elif icon.state == "planning":
        parts.append(f'<circle {ring} pathLength="100" stroke-dasharray="19 6"/>')
    elif icon.state == "review":
        parts.append(
            '<path d="M9.5 16.5l4.5 4.5 8.5-9" fill="none" stroke="#fff" stroke-width="3.2"'
            ' stroke-linecap="round" stroke-linejoin="round"/>'
        )
    else:  # locked: the brand mark
        parts.append(f'<circle cx="{c}" cy="{c}" r="6.5" fill="#e3efed"/>')
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {SIZE} {SIZE}"'
        f' width="{SIZE}" height="{SIZE}">'
        f"<title>AntiDrift: {escape(icon.label)}</title>{''.join(parts)}</svg>"
    )


def _share(left: int, span: int) -> int:
    """The ring's length: the share of the span still left, in whole percent."""
    if span <= 0:
        return 0
    return max(0, min(100, round(100 * left / span)))
