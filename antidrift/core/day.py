"""The day's queue, its rules (pure: times are passed in): what an item holds and needs, at
most 50 of them, the order they are moved in, which were carried over from an earlier day,
the minutes planned against the minutes free until the day ends, and the sentence that says
whether the plan fits. Minutes by core/minutes.py's one rule (rounded down)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time

from antidrift.core.choices import DAY_ENDS
from antidrift.core.domain import (
    IllegalTransitionError,
    ValidationError,
    every_check,
    parse_minutes,
    validate_next_action,
    validate_success_condition,
)
from antidrift.core.isotime import date_of, from_iso
from antidrift.core.minutes import whole_minutes
from antidrift.core.order_key import is_key

MAX_ITEMS = 50
# Items not started that this machine keeps at most, its own and the other machines' (an
# import past it is refused and said): two machines each adding up to MAX_ITEMS at once can
# pass MAX_ITEMS together, and no other machine's records make the queue's reads unbounded.
# The same bound holds for the items of one day, started or not (the day's end and the week).
MAX_STORED = 500
_ITEM_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
UNTIMED_MINUTES = 25  # what an item without minutes counts as in planned_minutes


@dataclass(frozen=True)
class DayItem:
    """One line of the day's queue: a next action, and the done-when and minutes that may
    wait until Plan it (empty, None)."""

    id: str
    day: date  # the day it belongs to (local): an earlier one is carried to today
    next_action: str
    success_condition: str
    timebox_minutes: int | None
    position: int
    created_at: datetime
    started_at: datetime | None = None
    carried: bool = False
    order: str = ""  # its order key (core/order_key.py): the queue reads in key order, then id

    def carried_on(self, today: date) -> bool:
        """Whether it came over from an earlier day (rolled over, or about to be)."""
        return self.carried or self.day < today

    @property
    def counted_minutes(self) -> int:
        return self.timebox_minutes if self.timebox_minutes is not None else UNTIMED_MINUTES


@dataclass(frozen=True)
class ItemFields:
    """What a new item holds once checked."""

    next_action: str
    success_condition: str
    timebox_minutes: int | None


def _given(value: object) -> bool:
    return not (value is None or (isinstance(value, str) and not value.strip()))


def validate_item(
    next_action: object, success_condition: object = None, timebox_minutes: object = None
) -> ItemFields:
    """A new item by the planning rules: a next action is required; done-when and minutes
    may be empty, and are checked as in planning when given. One ValidationError naming
    every field at fault."""
    checks = (
        lambda: validate_next_action(next_action),
        lambda: validate_success_condition(success_condition) if _given(success_condition) else "",
        lambda: parse_minutes(timebox_minutes) if _given(timebox_minutes) else None,
    )
    return ItemFields(*every_check(checks))  # type: ignore[arg-type]


def full_text(count: int) -> str:
    """What a full day says, the page and a refused add alike: past MAX_ITEMS (the other
    machines' items came in), how many and why."""
    if count <= MAX_ITEMS:
        return f"The day holds at most {MAX_ITEMS} items: delete or clear some first."
    return (
        f"The day holds at most {MAX_ITEMS} items, and has {count} with those from your other"
        f" machines: delete or clear {count + 1 - MAX_ITEMS} to add one."
    )


def check_room(count: int, adding: int = 1) -> None:
    """Refuse items past the fiftieth (a 409: none of them is added). A queue that holds
    more (added at once on two machines) takes none here until it is under MAX_ITEMS."""
    if count + adding <= MAX_ITEMS:
        return
    if adding == 1 or count >= MAX_ITEMS:
        raise IllegalTransitionError(full_text(count))
    raise IllegalTransitionError(
        f"Adding {adding} would make {count + adding} items; the day holds at most {MAX_ITEMS}:"
        " delete or clear some first, or add fewer."
    )


def parse_position(value: object, count: int, at: int) -> int:
    """Where a move puts the item at index `at` of `count`: `to` an index (0 first; past the
    end is the end), or "up" / "down" one place. ValidationError otherwise."""
    if value == "up":
        return max(0, at - 1)
    if value == "down":
        return min(count - 1, at + 1)
    if isinstance(value, int) and not isinstance(value, bool):
        number: int | None = value if value >= 0 else None
    elif isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        number = int(value.strip()) if len(value.strip()) <= 6 else None
    else:
        number = None
    if number is None:
        raise ValidationError("Say where to move it: to=<index> (0 is first), up or down.", "to")
    return min(number, count - 1)


def moved(ids: Sequence[str], item_id: str, to: int) -> list[str]:
    """The queue's ids with `item_id` at index `to`."""
    rest = [i for i in ids if i != item_id]
    rest.insert(to, item_id)
    return rest


def local_day(at: datetime) -> date:
    """The day `at` falls on, in the machine's time zone."""
    return at.astimezone().date()


def day_end(at: datetime, ends: time = DAY_ENDS) -> datetime:
    """When the day of `at` ends (local), as an aware time."""
    local = at.astimezone()
    # combined and then placed in the local zone: a day that changes its clock (daylight
    # saving) ends at its own offset, not at the one `at` had
    return datetime.combine(local.date(), ends).astimezone().astimezone(at.tzinfo)


def busy_secs(spans: Iterable[tuple[datetime, datetime]], start: datetime, end: datetime) -> float:
    """Seconds of [start, end) that the spans (events) cover, overlaps counted once."""
    cut = sorted((max(a, start), min(b, end)) for a, b in spans if a < end and b > start)
    total, reach = 0.0, start
    for a, b in cut:
        a = max(a, reach)
        if b > a:
            total += (b - a).total_seconds()
            reach = b
    return total


def free_minutes(
    now: datetime, spans: Iterable[tuple[datetime, datetime]], ends: time = DAY_ENDS
) -> int:
    """Whole minutes from now until the day ends, less the events in that span (0 after)."""
    end = day_end(now, ends)
    if now >= end:
        return 0
    return whole_minutes((end - now).total_seconds() - busy_secs(spans, now, end))


def free_spans(
    now: datetime, spans: Iterable[tuple[datetime, datetime]], ends: time = DAY_ENDS
) -> list[tuple[datetime, int]]:
    """The free stretches from now until the day ends, between the events: each one's start
    and whole minutes, in order (those under a minute left out; none after the day's end).
    What the day's coach is told of the calendar: times and minutes, never an event."""
    end = day_end(now, ends)
    free: list[tuple[datetime, int]] = []
    reach = now
    for a, b in sorted((max(a, now), min(b, end)) for a, b in spans if a < end and b > now):
        if a > reach and (minutes := whole_minutes((a - reach).total_seconds())):
            free.append((reach, minutes))
        reach = max(reach, b)
    if end > reach and (minutes := whole_minutes((end - reach).total_seconds())):
        free.append((reach, minutes))
    return free


def planned_minutes(items: Iterable[DayItem]) -> int:
    """The queue's minutes: an item without minutes counts UNTIMED_MINUTES."""
    return sum(item.counted_minutes for item in items)


def fit_text(planned: int, free: int) -> str:
    """Whether the plan fits, said plainly."""
    if planned > free:
        return f"{planned - free} min more than your free time."
    if planned == free:
        return "The plan fills your free time exactly."
    return f"Fits: {free - planned} min of your free time left over."


# -- an item as its sync record carries it (kind "day_item"; None is a removal) -----------------


def record_of(item: DayItem) -> dict[str, object]:
    """The body of an item's record: what another machine needs to show and start it."""
    return {
        "id": item.id,
        "day": item.day.isoformat(),
        "next_action": item.next_action,
        "success_condition": item.success_condition,
        "timebox_minutes": item.timebox_minutes,
        "created_at": item.created_at.isoformat(),
        "started_at": item.started_at.isoformat() if item.started_at else None,
        "carried": item.carried,
        "order": item.order,
    }


def is_item_id(value: object) -> bool:
    """Whether `value` is an item id as one is made here: a UUID in its canonical text
    (36 characters: the routes' ids, never a `/`)."""
    return isinstance(value, str) and _ITEM_ID.fullmatch(value) is not None


def item_of(item_id: str, body: dict) -> DayItem:
    """The item a record from another machine carries, checked as an item made here is
    (its id a UUID, the planning rules, an order key, times with their offset);
    ValidationError naming no text of it otherwise."""
    refused = ValidationError("A day item record is not one this version can take.", "day_item")
    if not is_item_id(item_id) or body.get("id") != item_id or not is_key(body.get("order")):
        raise refused
    fields = validate_item(
        body.get("next_action"), body.get("success_condition"), body.get("timebox_minutes")
    )
    try:
        day = date_of(body["day"])
        created, started = from_iso(body["created_at"]), from_iso(body.get("started_at"))
    except (KeyError, TypeError, ValueError):
        raise refused from None
    if created is None or created.tzinfo is None or (started and started.tzinfo is None):
        raise refused
    if not isinstance(body.get("carried"), bool):
        raise refused
    return DayItem(
        id=item_id,
        day=day,
        next_action=fields.next_action,
        success_condition=fields.success_condition,
        timebox_minutes=fields.timebox_minutes,
        position=0,  # orders nothing (the queue reads in key order): imported as 0
        created_at=created,
        started_at=started,
        carried=body["carried"],
        order=body["order"],
    )


# -- the day's end: planned against done --------------------------------------------------------

# What the store says of one item for the tallies: its day, whether it was started, and the
# outcome its commitment ended with ("met", "missed"; None: not started, still running, or
# discarded).
ItemRecord = tuple[date, bool, str | None]


@dataclass(frozen=True)
class Tally:
    """One day's planned against done.

    planned: the day's items, started or not (an item not started from an earlier day counts
    on today, where it is carried). met, missed: those whose commitment ended so. carried:
    those not started yet, which carry over to the next day unless started (0 on a day gone
    by: they were carried away from it)."""

    planned: int = 0
    met: int = 0
    missed: int = 0
    carried: int = 0

    @property
    def done(self) -> int:
        """What /week.json calls done: the items whose commitment was met."""
        return self.met


def tallies(records: Iterable[ItemRecord], today: date) -> dict[date, Tally]:
    """Each day's Tally from its items' records (days without items are left out)."""
    counts: dict[date, list[int]] = {}
    for day, started, outcome in records:
        if not started and day < today:
            day = today  # carried over: it belongs to today now
        row = counts.setdefault(day, [0, 0, 0, 0])
        row[0] += 1
        if outcome == "met":
            row[1] += 1
        elif outcome == "missed":
            row[2] += 1
        if not started:
            row[3] += 1
    return {day: Tally(*row) for day, row in counts.items()}
