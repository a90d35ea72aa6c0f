"""Sharpen the day on /day: the proposal card (`_day_proposal.html`, id="day-proposal") and
its running seconds while the coach thinks. They are all that /day's socket is sent (a page
whose socket says `view=day`: web/push.py), so nothing pushed to /day holds a field being
typed in: the rough day and the add form live outside the card. Also the proposal as
/day.json carries it."""

from __future__ import annotations

from dataclasses import dataclass

from antidrift.core.domain import Plan
from antidrift.session.snapshot import CoachStatus, DayPlanView, Snapshot
from antidrift.web.widgets import Widget
from antidrift.web.words import in_words

DAY_PAGE = "day"  # what /day's socket says the page shows (its `view`)


@dataclass(frozen=True)
class DayProposal(Widget):
    """id="day-proposal": pending, the coach's sentence, or the proposed commitments with an
    Add each and Add all; nothing while idle. `key`: the proposal shown (Add sends it)."""

    name = "day_proposal"
    status: str = CoachStatus.IDLE
    items: tuple[Plan, ...] = ()
    error: str | None = None
    left_out: int = 0
    key: str = ""

    @property
    def minutes(self) -> int:
        return sum(p.timebox_secs // 60 for p in self.items)

    @classmethod
    def of(cls, view: DayPlanView) -> DayProposal:
        return cls(view.status, view.items, in_words(view.error), view.left_out, view.key)


@dataclass(frozen=True)
class DayProposalElapsed(Widget):
    """id="day-proposal-elapsed": the seconds the coach has been thinking."""

    name = "day_proposal_elapsed"
    parent = "day_proposal"
    seconds: int = 0


def widgets(snap: Snapshot) -> tuple[Widget, ...]:
    """What /day's socket is sent, parent first."""
    view = snap.day_plan
    return DayProposal.of(view), DayProposalElapsed(view.elapsed(snap.now) or 0)


def context(snap: Snapshot) -> dict[str, Widget]:
    """The card's variables, for /day's page and its answers."""
    return {w.name: w for w in widgets(snap)}


def proposal_json(view: DayPlanView) -> list[dict[str, object]] | None:
    """/day.json's `proposal`: the commitments waiting to be added, or null."""
    if view.status != CoachStatus.READY:
        return None
    return [
        {
            "next_action": p.next_action,
            "success_condition": p.success_condition,
            "timebox_minutes": p.timebox_secs // 60,
        }
        for p in view.items
    ]
