"""The tab's icon: GET /icon.svg?state=…&left=…&span=… draws the state (and, while a
commitment runs, the minutes left on a ring) as a small SVG.

The page's `<link rel="icon" id="icon">` points here and is pushed like any widget
(antidrift/web/widgets.py `Icon`), so the icon follows the state without a script. Every
value drawn comes from a closed set or a bounded whole number checked here: nothing from the
request reaches the SVG as text. The drawing is icon_svg.py's, loaded with the first icon.
"""

from __future__ import annotations

from flask import Blueprint, current_app, request

bp = Blueprint("icon", __name__)

# One colour per state, on a disc, so the white marks read on a light or a dark tab strip.
COLOURS = {
    "locked": "#2f6f6a",  # the brand's teal, as the static favicon
    "planning": "#2f6f6a",
    "active": "#2f6f6a",
    "drifting": "#a86f00",  # the drift banner's colour, bright enough for a small disc
    "paused": "#5f6670",
    "timesup": "#a4513a",
    "review": "#276b44",
    "break": "#3d6a8a",  # a calm blue: nothing is timed against you
}
STATES = tuple(COLOURS)


@bp.get("/icon.svg")
def icon():
    from antidrift.web.icon_svg import IconState, svg  # with the first icon (issue 40)

    body = svg(IconState.parse(request.args))
    response = current_app.response_class(body, mimetype="image/svg+xml")
    # The query says everything the icon shows: the same URL is always the same picture.
    response.headers["Cache-Control"] = "max-age=86400"
    return response
