"""What the command line writes to a terminal: every line goes out through `say`.

A next action, a task title, a window title or an AI's answer reaches the terminal in
`status`, `status --follow`, the waybar line, `start`, errors and `doctor`. Text that holds an
escape sequence could move the cursor, retitle the window, rewrite the line before it or
hide what follows; a bidi override could show a line in another order than it is. So every
C0 control but the newline, DEL, every C1 control, the bidi overrides and isolates
(U+202A-U+202E, U+2066-U+2069) and lone surrogates are written as `\\uXXXX`: visible, and in
a JSON line (`--json`, waybar) the very escape JSON reads back as the same character.
"""

from __future__ import annotations

import re
import sys
from typing import TextIO

_UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def printable(text: str) -> str:
    """`text` with every character a terminal would obey rather than show escaped."""
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def say(text: str = "", *, err: bool = False, end: str = "\n") -> None:
    """Write one line (or, with `end=""`, a part of one) to stdout, or stderr with `err`."""
    stream: TextIO = sys.stderr if err else sys.stdout
    shown = printable(text)
    encoding = getattr(stream, "encoding", None) or "utf-8"
    # A terminal that is not UTF-8 (LANG=C on an old system) must not make "·" a traceback.
    shown = shown.encode(encoding, "backslashreplace").decode(encoding)
    stream.write(shown + end)
    stream.flush()
