"""/day's list of items pushed when another machine's change of the day's queue was taken in
(sync): `_day_items.html` (id="day-items"), the part of #day that lists the items. Pushed for
an import only — a change made here answers its own request with the whole of #day (and the
focus where it belongs), and its other tabs see it at their next change or reload — so a
push never takes the focus from a button being pressed here, and never holds a field being
typed in (the add form is outside it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from antidrift.core.day import DayItem
from antidrift.web.widgets import Widget


@dataclass(frozen=True)
class DayQueueList(Widget):
    """id="day-items": the queue's items; `taken`, how many imports changed the queue, is
    its change key (the items ride along, compared by nothing)."""

    name = "day_items"
    taken: int = 0
    items: tuple[DayItem, ...] = field(default=(), compare=False)
    date: date | None = field(default=None, compare=False)
