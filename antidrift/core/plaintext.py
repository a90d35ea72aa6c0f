"""What a plan's text may not hold: C0 controls but tab, LF and CR (a textarea sends CRLF),
DEL, C1 controls, and the bidi overrides and isolates (U+202A-U+202E, U+2066-U+2069).

A terminal obeys them (`antidrift status` would move the cursor, retitle the window, or
show a line in another order than it is), and no one types them on purpose: the domain
refuses them in a typed plan and takes them out of a coach's proposal.
"""

from __future__ import annotations

import re

CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def first_control(text: str) -> str | None:
    """The first such character, as `U+XXXX`; None when there is none."""
    found = CONTROL.search(text)
    return f"U+{ord(found.group()):04X}" if found else None


def without_controls(text: object) -> object:
    """Text without any such character; anything but text is left for the validator."""
    return CONTROL.sub("", text) if isinstance(text, str) else text
