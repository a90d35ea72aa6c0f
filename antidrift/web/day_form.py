"""The day's partial state (`_day.html`'s form) and /day.json: loaded with the day's first
answer (web/day.py, its routes), not at every start (issue 40: the footprint)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from antidrift.core.day import DayItem
    from antidrift.session.day import DayView
    from antidrift.session.snapshot import DayPlanView


@dataclass(frozen=True)
class DayForm:
    """The partial's state: a message, and what was typed when an add was refused."""

    TYPED: ClassVar[tuple[str, ...]] = ("next_action", "success_condition", "timebox_minutes")
    message: str = ""
    error: bool = False
    next_action: str = ""
    success_condition: str = ""
    timebox_minutes: str = ""
    invalid: tuple[str, ...] = ()
    focus: str = ""  # "add" (the form, to add another) or "title" (the queue's heading)
    moved: str = ""  # the item just moved: its Up (Down when it became first) takes focus

    @classmethod
    def typed(cls, message: str, data: Mapping[str, object], invalid: tuple[str, ...]):
        def text(key: str) -> str:
            value = data.get(key)
            return value if isinstance(value, str) else ""

        typed = (text("next_action"), text("success_condition"), text("timebox_minutes"))
        return cls(message, True, *typed, invalid or ("next_action",), "add")


def item_json(item: DayItem, view: DayView) -> dict[str, object]:
    return {
        "id": item.id,
        "next_action": item.next_action,
        "success_condition": item.success_condition,
        "timebox_minutes": item.timebox_minutes,
        "carried": item.carried_on(view.date),
    }


def day_json(view: DayView, plan: DayPlanView | None = None) -> dict[str, object]:
    """/day.json (SYSTEM.md "The day"); `tally`: the day's end as the page says it, planned
    against done (core/day.Tally: met, missed, and carried, the items left); `proposal`: the
    day's coach's commitments waiting to be added, or null."""
    from antidrift.web import day_proposal  # with the page: not at every start (issue 40)

    t = view.tally
    return {
        "date": view.date.isoformat(),
        "items": [item_json(i, view) for i in view.items],
        "planned_minutes": view.planned_minutes,
        "free_minutes": view.free_minutes,
        "tally": {"planned": t.planned, "met": t.met, "missed": t.missed, "carried": t.carried},
        "proposal": day_proposal.proposal_json(plan) if plan is not None else None,
    }
