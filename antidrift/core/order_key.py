"""Order keys for a list that several machines change at once (the day's queue under sync):
each item carries a short text key, the list is read in key order (then by id, so two equal
keys still give one order on every machine), and placing or moving an item gives it a new
key between its neighbours' alone — no other item changes, so two machines inserting or
moving at once keep every item, and a move is one item's edit, last writer winning.

A key is lowercase base-36 digits, read as a fraction after the point ("i" = 18/36), never
ending in "0" (so there is always a key below it, and one between any two). A key made here
ends in a few digits of the item's own id (`salt`): two machines placing two items at one
place at once make two different keys."""

from __future__ import annotations

import re
from collections.abc import Sequence

DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
BASE = len(DIGITS)
MAX_KEY = 64  # characters; a key that would be longer asks for the list to be spread anew
SALT = 3  # digits of the item's id at the end of a key made for it
_KEY = re.compile(rf"[0-9a-z]{{0,{MAX_KEY - 1}}}[1-9a-z]")


def is_key(value: object) -> bool:
    """Whether `value` is an order key (what a record from another machine must carry)."""
    return isinstance(value, str) and _KEY.fullmatch(value) is not None


def salt_of(item_id: str) -> str:
    """The digits of an id that end the keys made for it (its last base-36 digits)."""
    digits = [c for c in item_id.lower() if c in DIGITS]
    return "".join(digits[-SALT:])


def between(lo: str | None, hi: str | None, salt: str = "") -> str | None:
    """A key after `lo` and before `hi` (None: the start, the end of the list), ending in
    `salt`; None when there is none of at most MAX_KEY characters (lo ≥ hi: two machines
    gave two items one key; or the keys grew long): the list is then spread anew."""
    if lo is not None and hi is not None and lo >= hi:
        return None
    lo_digits = [DIGITS.index(c) for c in lo or ""]
    hi_digits = [DIGITS.index(c) for c in hi] if hi is not None else None
    made: list[int] = []
    for at in range(MAX_KEY):
        low = lo_digits[at] if at < len(lo_digits) else 0
        high = BASE if hi_digits is None else hi_digits[at] if at < len(hi_digits) else 0
        if high - low > 1:  # room at this digit: one step up at the end, else halfway
            made.append(low + 1 if hi_digits is None else (low + high) // 2)
            break
        made.append(low)
        if high - low == 1:  # below hi from here on: any digits after it stay under it
            hi_digits = None
    else:
        return None  # no room within MAX_KEY digits
    key = ("".join(DIGITS[d] for d in made) + salt).rstrip("0")
    return key if len(key) <= MAX_KEY else None


def spread(count: int) -> list[str]:
    """`count` keys in order, evenly apart (the list spread anew: every item gets one)."""
    width = 1
    while BASE**width <= count * 4:
        width += 1
    step = BASE**width // (count + 1)
    keys = []
    for n in range(1, count + 1):
        value, digits = n * step, []
        for _ in range(width):
            value, digit = divmod(value, BASE)
            digits.append(DIGITS[digit])
        keys.append("".join(reversed(digits)).rstrip("0"))
    return keys


def key_at(keys: Sequence[str], at: int, salt: str = "") -> str | None:
    """The key that puts an item at index `at` of a list whose other items have `keys` (in
    order); None when there is no room there (spread the list anew)."""
    lo = keys[at - 1] if 0 < at <= len(keys) else None
    hi = keys[at] if 0 <= at < len(keys) else None
    return between(lo, hi, salt)
