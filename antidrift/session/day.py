"""The day's queue as the session keeps it: add, delete, move, clear, each one unit of work
(one transaction; items left from an earlier day are carried to today in the same one), and
the day as the pages read it (today's items, planned against free minutes, planned against
done). Starting an item
is the controller's (Plan it, then Start: it leaves the queue in the Start's transaction)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import date, datetime, time

from antidrift.core import day as rules
from antidrift.core.day import DayItem
from antidrift.core.domain import MAX_TEXT, NotFound, TaskRef
from antidrift.core.ports import DayItems
from antidrift.session.state import Session
from antidrift.session.unit_of_work import UnitOfWork

# The calendar's events as (start, end) spans: whatever it kept last (never any I/O).
Spans = Callable[[], Iterable[tuple[datetime, datetime]]]
NO_ITEM = "There is no such item in the day's queue (any more)."


@dataclass(frozen=True)
class DayView:
    """The day as /day and /day.json show it."""

    date: date
    items: tuple[DayItem, ...]
    planned_minutes: int
    free_minutes: int
    now: datetime
    tally: rules.Tally = rules.Tally()  # today's planned against done (met, missed, carried)

    @property
    def fit(self) -> str:
        return rules.fit_text(self.planned_minutes, self.free_minutes)

    @property
    def over(self) -> bool:
        return self.planned_minutes > self.free_minutes

    @property
    def full(self) -> bool:
        return len(self.items) >= rules.MAX_ITEMS


class DayQueue:
    """The queue's changes and its view. `spans`: the calendar's events; `ends`: when the
    day ends (the day_ends setting; a change applies at once: Runtime.take_up)."""

    def __init__(
        self,
        work: UnitOfWork,
        session: Session,
        store: DayItems,
        spans: Spans | None = None,
        ends: time = rules.DAY_ENDS,
    ) -> None:
        self._work, self._s, self._store = work, session, store
        self._spans = spans or (lambda: ())
        self.ends = ends

    def _today(self) -> date:
        return rules.local_day(self._s.now())

    def view(self) -> DayView:
        """Today's queue (an item from an earlier day shows as carried before any change
        writes it so), its planned minutes and the free minutes left today."""
        with self._work:
            now = self._s.now()
        today = rules.local_day(now)
        items = tuple(i if i.day == today else _carried(i, today) for i in self._store.day_queue())
        return DayView(
            today,
            items,
            rules.planned_minutes(items),
            rules.free_minutes(now, self._spans(), self.ends),
            now,
            rules.tallies(self._store.day_records(today), today).get(today, rules.Tally()),
        )

    def item(self, item_id: object) -> DayItem:
        """One queued item (NotFound: 404)."""
        if isinstance(item_id, str):
            for item in self._store.day_queue():
                if item.id == item_id:
                    return item
        raise NotFound(NO_ITEM)

    def _queue(self) -> list[DayItem]:
        """Under the lock: the queue, carried to today first (a write of this change)."""
        self._store.carry_day_items(self._today())
        return self._store.day_queue()

    def add(
        self, next_action: object, success_condition: object = None, timebox_minutes: object = None
    ) -> DayItem:
        """POST /day/items: a new item at the end of the queue."""
        fields = rules.validate_item(next_action, success_condition, timebox_minutes)
        return self._add(fields)

    def add_task(self, task: TaskRef) -> DayItem:
        """POST /day/items task=…: an item whose next action is the task's title (a longer
        title is cut to a next action's length)."""
        return self._add(rules.validate_item(task.title.strip()[:MAX_TEXT]))

    def _add(self, fields: rules.ItemFields) -> DayItem:
        with self._work as work:
            queue = self._queue()
            rules.check_room(len(queue))
            now = self._s.now()
            item = DayItem(
                id=str(uuid.uuid4()),
                day=rules.local_day(now),
                next_action=fields.next_action,
                success_condition=fields.success_condition,
                timebox_minutes=fields.timebox_minutes,
                position=max((i.position for i in queue), default=-1) + 1,
                created_at=now,
            )
            self._store.add_day_item(item)
            work.changed()
        return item

    def delete(self, item_id: str) -> DayItem:
        with self._work as work:
            gone = _find(self._queue(), item_id)
            self._store.delete_day_item(gone.id)
            work.changed()
        return gone

    def move(self, item_id: str, to: object) -> int:
        """The item at index `to` (or one up or down); its new index."""
        with self._work as work:
            queue = self._queue()
            item = _find(queue, item_id)
            ids = [i.id for i in queue]
            at = rules.parse_position(to, len(ids), ids.index(item.id))
            self._store.order_day_items(rules.moved(ids, item.id, at))
            work.changed()
        return at

    def clear(self) -> int:
        """Every item not started leaves the queue; how many did."""
        with self._work as work:
            self._queue()
            gone = self._store.clear_day_queue()
            work.changed()
        return gone


def _find(queue: list[DayItem], item_id: str) -> DayItem:
    for item in queue:
        if item.id == item_id:
            return item
    raise NotFound(NO_ITEM)


def _carried(item: DayItem, today: date) -> DayItem:
    return replace(item, day=today, carried=True)
