"""The one way user text enters a prompt: as a JSON string literal, with every character a
reader cannot see escaped.

`json.dumps(..., ensure_ascii=False)` keeps U+2028/U+2029 (line and paragraph separators:
many renderers and tokenizers break the line there, so a window title could start a line of
its own in the prompt), the bidi controls (U+202A–U+202E, U+2066–U+2069: text shown in an
order other than the one the model reads), zero-width and other format characters, and the
C1 controls. Each becomes a `\\uXXXX` escape: still the same string to any JSON reader, and
visible as what it is to the model and to a person reading the prompt.
"""

from __future__ import annotations

import json
import unicodedata

# Controls, format characters (bidi, zero-width, BOM, tags), line and paragraph separators,
# and lone surrogates.
_HIDDEN = frozenset(("Cc", "Cf", "Zl", "Zp", "Cs"))


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # a JSON escape of an astral character is its UTF-16 surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def quote(text: str, limit: int | None = None) -> str:
    """`text` (its first `limit` characters) as a JSON string literal for a prompt, every
    invisible or line-breaking character escaped."""
    if limit is not None:
        text = text[:limit]
    literal = json.dumps(text, ensure_ascii=False)
    return "".join(
        _escape(char) if ord(char) >= 0x7F and unicodedata.category(char) in _HIDDEN else char
        for char in literal
    )
