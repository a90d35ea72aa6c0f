"""What the command line writes to a terminal: every line goes out through `say`.

A next action, a task title, a window title or an AI's answer reaches the terminal in
`status`, `status --follow`, the waybar line, `start`, errors and `doctor`. Text that holds an
escape sequence could move the cursor, retitle the window, rewrite the line before it or
hide what follows; a bidi override could show a line in another order than it is. So every
C0 control but the newline, DEL, every C1 control, every Unicode format character (category
Cf: the bidi overrides and isolates, direction marks, the soft hyphen, zero-width characters,
the BOM, tags) and lone surrogates are written as `\\uXXXX`: visible, and in a JSON line
(`--json`, waybar) the very escape JSON reads back as the same character.
"""

from __future__ import annotations

import re
import sys
from typing import TextIO

# Category Cf as of Unicode 15.1 (Python 3.11 knows 14; 3.12 and 3.13 add U+13439-1343F),
# written out: computing it at every start would cost a scan of every code point
# (tests/security/test_sec_terminal.py holds it to the running Python's unicodedata).
FORMAT = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f"
)
_UNSAFE = re.compile(f"[\x00-\x09\x0b-\x1f\x7f-\x9f{FORMAT}\ud800-\udfff]")


def printable(text: str) -> str:
    """`text` with every character a terminal would obey rather than show escaped."""
    return _UNSAFE.sub(_escaped, text)


def _escaped(found: re.Match) -> str:
    """As JSON writes it: past U+FFFF, its two surrogates."""
    code = ord(found.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def say(text: str = "", *, err: bool = False, end: str = "\n") -> None:
    """Write one line (or, with `end=""`, a part of one) to stdout, or stderr with `err`."""
    stream: TextIO = sys.stderr if err else sys.stdout
    shown = printable(text)
    encoding = getattr(stream, "encoding", None) or "utf-8"
    # A terminal that is not UTF-8 (LANG=C on an old system) must not make "·" a traceback.
    shown = shown.encode(encoding, "backslashreplace").decode(encoding)
    stream.write(shown + end)
    stream.flush()
