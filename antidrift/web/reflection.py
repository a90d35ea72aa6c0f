"""Reflection routes: the history (paged, as CSV), corrections, removals, the insights page."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from flask import Response, current_app, jsonify, redirect, request

from antidrift.core.domain import Commitment, NotFound, RuntimeState, ValidationError, whole_number
from antidrift.core.ports import EXPORT_COLUMNS
from antidrift.web.answer import Blueprint, Reply, moved, refusal
from antidrift.web.projection import history_json
from antidrift.web.requests import controller, corrections, payload, reads, renderer

if TYPE_CHECKING:
    from antidrift.web import insights_view

bp = Blueprint("reflection", __name__)

MAX_LIMIT = 1000
# Where a correction made from the insights page returns to: that page, nothing else.
_BACK = re.compile(r"/insights(?:\?before=[A-Za-z0-9-]{1,64})?")


def _limit(value: str | None) -> int | None:
    if value is None:
        return None
    limit = whole_number(value, 1, MAX_LIMIT, 4)
    if limit is None:
        raise ValidationError(f"limit must be a whole number from 1 to {MAX_LIMIT}.", "limit")
    return limit


def _before(value: str | None) -> str | None:
    if value is None or value == "":
        return None
    if len(value) > 64:
        raise ValidationError("before must be the id of a history entry.", "before")
    return value


@bp.get("/history")
def history():
    limit, before = _limit(request.args.get("limit")), _before(request.args.get("before"))
    items = reads().history(limit, before)
    response = jsonify(_rows(items))
    if limit is not None and len(items) == limit:
        query = urlencode({"limit": limit, "before": items[-1].id})
        response.headers["Link"] = f'</history?{query}>; rel="next"'
    return response


@bp.get("/history.csv")
def history_csv():
    from antidrift.web import export  # with the first export (issue 40: the footprint)

    name = _here()[1]  # the device column: this machine's name for what it made
    rows = [(*row[:-1], row[-1] or name) for row in reads().export_rows()]
    body = export.to_csv(EXPORT_COLUMNS, rows)
    return Response(
        body,
        mimetype="text/csv",
        headers={
            "Content-Disposition": 'attachment; filename="antidrift-history.csv"',
            "Cache-Control": "no-store",
        },
    )


@bp.post("/history/<cid>")
def correct(cid: str):
    data = payload()
    fixed = corrections().correct(cid, data.get("outcome"), data.get("note"))
    return _changed(_rows([fixed])[0], said="corrected")


@bp.post("/history/<cid>/delete")
def delete(cid: str):
    corrections().remove(cid)
    return _changed({"deleted": cid}, said="removed")


@bp.get("/history/<cid>/delete")
def confirm_delete(cid: str):
    """The confirmation step, a page of its own: removing needs two deliberate clicks."""
    back = _back(request.args.get("back"))
    try:
        entry = reads().entry(cid)
    except NotFound as exc:
        return _missing(exc)
    return renderer().template("confirm_delete.html", entry=entry, back=back)


@bp.post("/reflect")
def reflect():
    controller().reflections.request()
    # The button goes with the pending line: focus moves to this sentence.
    return moved(fragment=lambda: renderer().template("_asked.html"))


@bp.get("/insights")
def insights_page():
    before = _before(request.args.get("before"))
    try:
        view = _insights(before)
    except NotFound as exc:
        return _missing(exc)
    return _insights_page(view)


def _insights_page(view: insights_view.InsightsView) -> str:
    # What each entry's task source offers to record (the entries that served a task).
    views = current_app.extensions["antidrift.views"]
    offers = views.tasks.offers((e.commitment.id, e.commitment.task) for e in view.entries)
    return renderer().template(
        "insights.html",
        view=view,
        offers=offers,
        done=DONE.get(request.args.get("done", "")),
        back_to=BACK_TO.get(controller().snapshot().state, "AntiDrift"),
    )


# What Insights says after a change made from it (the change redirects back with ?done=…).
DONE = {
    "removed": "Removed from history, with its window evidence.",
    "corrected": "Correction saved.",
}
# The way back from Insights names what is there: a commitment only while there is one.
BACK_TO = {
    RuntimeState.ACTIVE: "your commitment",
    RuntimeState.REVIEW: "your commitment",
    RuntimeState.PLANNING: "planning",
}


def _insights(before: str | None) -> insights_view.InsightsView:
    from antidrift.web import insights_view  # with the page, not at every start (issue 40)

    history = reads()
    page = history.history(insights_view.PAGE_SIZE + 1, before)
    return insights_view.build(
        history.ended_figures(),
        history.history(insights_view.CHART_COMMITMENTS),
        history.app_totals(),
        page,
        before=before,
        drift=history.drift_summaries([c.id for c in page]),
    )


def _missing(exc: NotFound) -> Reply:
    """An entry that is gone (removed in another tab, an old link): for a browser, a 404 page
    with a way back rather than a JSON line."""
    return refusal(exc, page=lambda e: renderer().template("missing.html", message=e.message))


def _rows(items: list[Commitment]) -> list[dict[str, object]]:
    """/history rows, with the drift guard's figures for each entry."""
    ids = [c.id for c in items]
    here = _here()
    return history_json(
        items,
        reads().drift_summaries(ids),
        reads().drift_episodes_of(ids),
        reads().top_sites(ids),
        here,
        reads().by_device(ids),  # what other machines watched for each
    )


def _here() -> tuple[str, str]:
    """This machine's (device id, name): what the history says of the entries made here."""
    sync = current_app.extensions["antidrift.runtime"].sync
    return (sync.me, sync.name) if sync is not None else ("", "")


def _back(value: object) -> str:
    return value if isinstance(value, str) and _BACK.fullmatch(value) else "/insights"


def _changed(body: dict[str, object], *, said: str) -> Reply:
    """htmx follows HX-Redirect; a plain browser form gets a 303 back; API clients JSON.
    The page it returns to says what was done (?done=…) and takes the focus there."""
    back = _back(request.form.get("back"))
    back += ("&" if "?" in back else "?") + f"done={said}"
    return Reply(
        json=lambda: jsonify(body),
        fragment=lambda: ("", 200, {"HX-Redirect": back}),
        page=lambda: redirect(back, 303),
    )
