"""The day's order keys (core/order_key.py): a key made for a place lies between its
neighbours', whatever they are; two machines placing items at once keep every item, each in
the place it was put among those it saw, in one order on both (key, then id)."""

from __future__ import annotations

import uuid

from hypothesis import given
from hypothesis import strategies as st

from antidrift.core.order_key import (
    DIGITS,
    MAX_KEY,
    between,
    is_key,
    key_at,
    salt_of,
    spread,
)

keys = st.text(DIGITS, min_size=0, max_size=12).map(lambda k: k + "i")
salts = st.text("0123456789abcdef", max_size=3)


@given(keys, keys, salts)
def test_a_key_made_between_two_lies_between_them(a, b, salt):
    lo, hi = min(a, b), max(a, b)
    made = between(lo, hi, salt)
    if lo == hi:
        assert made is None  # no room: the list is spread anew
    else:
        assert made is not None and is_key(made) and lo < made < hi


@given(keys, salts)
def test_a_key_before_the_first_or_after_the_last(key, salt):
    first, last = between(None, key, salt), between(key, None, salt)
    assert first is not None and is_key(first) and first < key
    assert last is not None and is_key(last) and last > key


@given(st.integers(0, 60))
def test_spread_keys_are_in_order_and_short(count):
    made = spread(count)
    assert len(made) == count and made == sorted(set(made))
    assert all(is_key(k) and len(k) <= 3 for k in made)


def test_appending_keeps_keys_short():
    made: list[str] = []
    for _ in range(200):
        made.append(key_at(made, len(made), salt_of(str(uuid.uuid4()))))
    assert made == sorted(made) and max(map(len, made)) <= 12


def test_a_key_that_would_pass_its_bound_asks_for_a_spread():
    assert between("z" * (MAX_KEY - 1) + "y", None) == "z" * MAX_KEY
    assert between("z" * (MAX_KEY - 1) + "y", None, "abc") is None
    assert between("z" * MAX_KEY, None) is None
    assert not is_key("a0") and not is_key("") and not is_key("A") and not is_key(3)


def _place(items: list[tuple[str, str]], at: int, item_id: str) -> list[tuple[str, str]]:
    """`items` (key, id) in order, with a new item put at index `at` as the queue puts one."""
    key = key_at([k for k, _ in items], at, salt_of(item_id))
    assert key is not None
    placed = sorted([*items, (key, item_id)])
    assert placed[at] == (key, item_id)  # where it was put
    return placed


@given(
    st.integers(0, 6),
    st.lists(st.integers(0, 10), max_size=6),
    st.lists(st.integers(0, 10), max_size=6),
)
def test_two_machines_inserting_at_once_keep_every_item_in_one_order(start, at_a, at_b):
    base = list(zip(spread(start), [f"base-{n}" for n in range(start)], strict=True))
    queues = {"a": list(base), "b": list(base)}
    for name, places in (("a", at_a), ("b", at_b)):
        for at in places:
            queue = queues[name]
            queues[name] = _place(queue, min(at, len(queue)), f"{name}-{uuid.uuid4()}")
    merged = sorted({*queues["a"], *queues["b"]})  # each machine takes the other's items
    assert len(merged) == start + len(at_a) + len(at_b)
    for queue in queues.values():  # each machine's own order stands among the rest
        mine = {i for _, i in queue}
        assert [i for _, i in merged if i in mine] == [i for _, i in queue]


def test_two_items_given_one_place_at_once_get_two_keys():
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    while salt_of(first) == salt_of(second):
        second = str(uuid.uuid4())
    assert between("i", "j", salt_of(first)) != between("i", "j", salt_of(second))
