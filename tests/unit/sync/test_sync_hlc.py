"""The hybrid logical clock: a device's stamps only grow, a stamp made after seeing another is
greater than it, and all stamps are totally ordered (their text too)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from antidrift.core.errors import ValidationError
from antidrift.sync.hlc import COUNTER_MAX, HybridClock, Stamp

DEVICES = st.sampled_from(["aaaa", "bbbb", "m2k7zq"])
MS = st.integers(0, 2**45)
STAMPS = st.builds(Stamp, MS, st.integers(0, COUNTER_MAX), DEVICES)
# A wall clock that jumps back and forth, stands still, or leaps a day.
WALL = st.lists(st.integers(0, 2**45), min_size=1, max_size=40)


class Wall:
    """A wall clock that reads the next of `readings` (the last one for ever after)."""

    def __init__(self, readings: list[int]) -> None:
        self.readings = list(readings)

    def __call__(self) -> int:
        return self.readings.pop(0) if len(self.readings) > 1 else self.readings[0]


@given(WALL)
def test_a_devices_stamps_only_grow_whatever_its_wall_clock_does(readings):
    clock = HybridClock("aaaa", Wall(readings))
    stamps = [clock.now() for _ in range(len(readings) + 3)]
    assert all(earlier < later for earlier, later in zip(stamps, stamps[1:], strict=False))
    assert clock.last == stamps[-1]


@given(WALL, st.lists(st.tuples(st.booleans(), STAMPS), max_size=30))
def test_a_merged_stamp_is_greater_than_what_was_seen_and_what_came_before(readings, events):
    clock = HybridClock("m2k7zq", Wall(readings))
    before = clock.last
    for local, seen in events:
        stamp = clock.now() if local else clock.merge(seen)
        assert stamp > before
        if not local:
            assert stamp > seen
        assert stamp.device == "m2k7zq"
        before = stamp


@given(STAMPS, STAMPS, STAMPS)
def test_stamps_are_totally_ordered_and_their_text_sorts_the_same(a, b, c):
    assert sum([a < b, a == b, a > b]) == 1
    assert (a < b) == (str(a) < str(b)) and (a == b) == (str(a) == str(b))
    if a <= b and b <= c:
        assert a <= c
    assert Stamp.parse(str(a)) == a


def test_equal_times_are_told_apart_by_the_device():
    assert Stamp(5, 0, "aaaa") < Stamp(5, 0, "bbbb")
    assert Stamp(5, 1, "aaaa") > Stamp(5, 0, "bbbb")


def test_a_counter_past_its_width_carries_into_the_milliseconds():
    clock = HybridClock("aaaa", lambda: 10, last=Stamp(10, COUNTER_MAX, "bbbb"))
    assert clock.now() == Stamp(11, 0, "aaaa")


def test_a_clock_starts_after_the_stamp_it_is_given():
    clock = HybridClock("aaaa", lambda: 1_000, last=Stamp(5_000, 7, "aaaa"))
    assert clock.now() == Stamp(5_000, 8, "aaaa")


def test_a_clock_far_behind_catches_up_with_what_it_sees():
    clock = HybridClock("aaaa", lambda: 1_000)
    seen = Stamp(86_400_000, 3, "bbbb")  # a machine a day ahead
    assert clock.merge(seen) == Stamp(86_400_000, 4, "aaaa")
    assert clock.now() == Stamp(86_400_000, 5, "aaaa")


@pytest.mark.parametrize(
    "text", ["", "1-2-aaaa", "000000000000000001-000000-AAAA", None, 12, "x" * 200]
)
def test_a_malformed_stamp_is_refused_without_quoting_it(text):
    with pytest.raises(ValidationError) as refused:
        Stamp.parse(text)
    assert str(text) not in refused.value.message or not text


def test_a_parsed_stamps_text_is_the_one_it_makes_in_ascii_digits():
    # \d reads other scripts' digits too: the text kept (and compared) is the made one.
    other_digits = "\u0660" * 17 + "\u0665-000001-aaaa"
    assert str(Stamp.parse(other_digits)) == "000000000000000005-000001-aaaa"
    assert str(Stamp.parse(str(Stamp(5, 1, "aaaa")))) == str(Stamp(5, 1, "aaaa"))
