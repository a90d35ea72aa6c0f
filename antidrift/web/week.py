"""The week: GET /week (the page: a bar per day, the same figures as a table, the weekly
streak, the top distractions) and GET /week.json (the figures alone)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from flask import jsonify

from antidrift.web.answer import Blueprint
from antidrift.web.reflection import BACK_TO
from antidrift.web.requests import controller, reads, renderer

if TYPE_CHECKING:  # the week's figures load with the page (issue 40: the footprint)
    from antidrift.core.week import Week

bp = Blueprint("week", __name__)


@bp.get("/week.json")
def week_json():
    return jsonify(reads().week(controller().snapshot().now).as_json())


@bp.get("/week")
def week_page():
    from antidrift.web.week_chart import chart  # with the page (issue 40: the footprint)

    snap = controller().snapshot()
    week: Week = reads().week(snap.now)
    return renderer().template(
        "week.html",
        week=week,
        chart=chart(week.days),
        back_to=BACK_TO.get(snap.state, "AntiDrift"),
    )
