"""The day's queue: GET /day (the page), GET /day.json, POST /day/items (add; or a task from a
task source by its title), POST /day/items/<id>/delete, POST /day/items/<id>/move, POST
/day/clear; and Sharpen the day: POST /day/sharpen (a rough day: the coach's proposal comes
by push into the card beside the queue, web/day_proposal.py) and POST /day/proposal/use (an
entry of it, or all, added to the queue as POST /day/items adds one).

The same partial (`_day.html`, one root `id="day"`) is the page's queue and the answer to
every htmx request made from it, so the list and the form stay in step with no script; what
the change said goes with it, out of band, into the live region outside #day
(`_day_message.html`: the region is never replaced, so a screen reader announces it). A plain
(script-less) form is redirected back to /day; others get /day.json's shape. A refusal
changes nothing and says why (4xx), in that region for the page.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from flask import jsonify, redirect, url_for

from antidrift import tasks as task_sources
from antidrift.core.domain import NotFound, ValidationError
from antidrift.core.errors import Error
from antidrift.session.day import NO_ITEM
from antidrift.session.snapshot import CoachStatus
from antidrift.web.answer import Blueprint, Reply, refusal
from antidrift.web.requests import board, controller, payload, renderer

if TYPE_CHECKING:  # the form and the JSON load with the day's first answer (issue 40)
    from antidrift.web.day_form import DayForm

bp = Blueprint("day", __name__)
MAX_ID = 100  # characters of an item id in a request (ours are 36)


def _queue():
    return controller().day


def _day_data() -> dict[str, object]:
    from antidrift.web.day_form import day_json

    return day_json(_queue().view(), controller().day_plans.current())


def _card() -> str:
    """The proposal card as it is now, out of band (the push brings it to the other tabs)."""
    from antidrift.web import day_proposal

    context = day_proposal.context(controller().snapshot())
    return renderer().template("_day_proposal.html", **context, oob=True)


def _typed(data: Mapping[str, object]) -> dict[str, str]:
    """What the add form holds (sent along by an Add of the proposal), to give it back."""
    from antidrift.web.day_form import DayForm

    return {k: v for k in DayForm.TYPED if isinstance(v := data.get(k), str)}


def _partial(form: DayForm) -> str:
    """#day, and what it said into the live region outside it (out of band)."""
    render = renderer().template
    day = render("_day.html", day=_queue().view(), day_form=form)
    return day + render("_day_message.html", day_form=form, oob=True)


def _answer(said: str, focus: str = "title", status: int = 200, moved: str = "") -> Reply:
    """A change went through: the partial with `said`, the page back, or the day's JSON."""
    from antidrift.web.day_form import DayForm

    return Reply(
        json=lambda: (jsonify(_day_data()), status),
        fragment=lambda: (
            _partial(DayForm(said, focus="" if moved else focus, moved=moved)),
            status,
        ),
        page=lambda: redirect(url_for("day.day_page"), 303),
    )


def _refused(exc: Error, form: DayForm | None = None) -> Reply:
    """A refusal: in the partial (htmx), on the page (a plain form), raised for JSON."""
    from antidrift.web.day_form import DayForm

    form = form or DayForm(exc.message, True, focus="title")
    return refusal(exc, fragment=lambda e: _partial(form), page=lambda e: _page(form))


def _page(form: DayForm | None = None) -> str:
    from antidrift.web import day_proposal
    from antidrift.web.day_form import DayForm

    snap = controller().snapshot()
    return renderer().template(
        "day.html",
        day=_queue().view(),
        day_form=form or DayForm(),
        state=snap.state,
        **day_proposal.context(snap),
    )


@bp.get("/day")
def day_page():
    return Reply(json=lambda: jsonify(_day_data()), page=lambda: _page())


@bp.get("/day.json")
def day_data():
    return jsonify(_day_data())


@bp.post("/day/items")
def add_item():
    from antidrift.web.day_form import DayForm

    data = payload()
    try:
        if "task" in data:
            item = _queue().add_task(_task(data.get("task")))
        else:
            item = _queue().add(
                data.get("next_action"), data.get("success_condition"), data.get("timebox_minutes")
            )
    except ValidationError as exc:
        if "task" in data:
            return _refused(exc)
        return _refused(exc, DayForm.typed(exc.message, data, exc.fields))
    except Error as exc:
        return _refused(exc, DayForm(exc.message, True, focus="add"))
    return _answer(f"Added: {item.next_action}", focus="add", status=201)


def _task(key: object):
    """The task a `task=<source>:<id>` names, from the user's task sources."""
    if task_sources.split_key(key) is None:
        raise ValidationError("Pick a task as <source>:<id>, e.g. taskwarrior:<uuid>.", "task")
    task = board().find(key)
    if task is None:
        raise NotFound("That task is not in your task sources (any more): list them again.")
    return task


def _item_id(item_id: str) -> str:
    if not 0 < len(item_id) <= MAX_ID:
        raise NotFound(NO_ITEM)
    return item_id


@bp.post("/day/items/<item_id>/delete")
def delete_item(item_id: str):
    try:
        gone = _queue().delete(_item_id(item_id))
    except Error as exc:
        return _refused(exc)
    return _answer(f"Deleted: {gone.next_action}")


@bp.post("/day/items/<item_id>/move")
def move_item(item_id: str):
    try:
        at = _queue().move(_item_id(item_id), payload().get("to"))
    except Error as exc:
        return _refused(exc)
    return _answer(f"Moved to place {at + 1}.", moved=item_id)


@bp.post("/day/clear")
def clear_day():
    try:
        gone = _queue().clear()
    except Error as exc:
        return _refused(exc)
    said = f"Cleared: {gone} item{'s' if gone != 1 else ''}." if gone else "Nothing to clear."
    return _answer(said)


@bp.post("/day/sharpen")
def sharpen_day():
    """The coach plans the day from `intent` (in any state): pending at once (202), or the
    sentence why there is no coach (200); the proposal arrives by push."""
    from antidrift.web.day_form import DayForm

    try:
        view = controller().day_plans.request(payload().get("intent"))
    except Error as exc:
        form = DayForm(exc.message, True, focus="title")
        return refusal(
            exc, fragment=lambda e: renderer().error(e.message), page=lambda e: _page(form)
        )
    pending = view.status == CoachStatus.PENDING
    plan = {"status": view.status, "error": view.error}
    return Reply(
        json=lambda: (jsonify(plan), 202 if pending else 200),
        fragment=_card,  # the form's message slot emptied, the card out of band
        page=lambda: redirect(url_for("day.day_page"), 303),
    )


@bp.post("/day/proposal/use")
def use_proposal():
    """An entry of the proposal (`index`), or every one (`all=1`), added to the queue; the
    queue answers with focus on its heading, what was typed in its form kept."""
    from antidrift.web.day_form import DayForm

    data: Mapping[str, object] = {}
    try:
        data = payload()
        added = controller().day_plans.use(data.get("index"), data.get("all"), data.get("proposal"))
    except Error as exc:
        form = DayForm(exc.message, True, focus="title", **_typed(data))
        return refusal(exc, fragment=lambda e: _partial(form) + _card(), page=lambda e: _page(form))
    one = len(added) == 1
    said = f"Added: {added[0].next_action}" if one else f"Added {len(added)} items to the day."
    return Reply(
        json=lambda: (jsonify(_day_data()), 201),
        fragment=lambda: (_partial(DayForm(said, focus="title", **_typed(data))) + _card(), 201),
        page=lambda: redirect(url_for("day.day_page"), 303),
    )
