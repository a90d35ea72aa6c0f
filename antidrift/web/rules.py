"""Standing rules: GET /rules (JSON, or the rules page), POST /rules, POST /rules/<id>/delete.

The same partial (`_rules.html`, one root `id="rules"`) is the rules page's body, the
Settings page's section and the answer to every htmx request made from it, so the list, its
message and the form stay in step with no script. The drift banner's "always on task" posts
here too; it gets a sentence for its message slot (the push takes the banner away).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from flask import jsonify, redirect, request

from antidrift.core.domain import NotFound, ValidationError
from antidrift.core.errors import Error
from antidrift.drift.verdicts import Rule
from antidrift.web.answer import Blueprint, Reply, refusal
from antidrift.web.requests import controller, payload, reads, renderer, standing_rules

if TYPE_CHECKING:  # the partial's view data loads with its first answer (issue 40)
    from antidrift.web.rules_view import RulesForm

bp = Blueprint("rules", __name__)

BACK = ("/rules", "/settings")  # where a plain (script-less) form returns
# A rule's id: random text (hex, made once, the same on every machine); longer is none.
RULE_ID = re.compile(r"[0-9a-f]{1,64}")


def rule_json(rule: Rule) -> dict[str, object]:
    """One rule as GET /rules lists it."""
    return {
        "id": rule.id,
        "app": rule.app,
        "title_contains": rule.title_contains,
        "verdict": rule.verdict.value,
        "site": rule.site,
    }


@bp.get("/rules")
def list_rules():
    from antidrift.web.rules_view import RulesView

    rules = tuple(reads().rules())
    return Reply(
        json=lambda: jsonify([rule_json(r) for r in rules]),
        page=lambda: renderer().rules_page(RulesView(rules)),
    )


@bp.post("/rules")
def add_rule():
    from antidrift.web.rules_view import RulesForm

    data = payload()
    try:
        rule = standing_rules().add(
            data.get("app"), data.get("title_contains"), data.get("verdict"), data.get("site")
        )
    except ValidationError as exc:
        return _refused(exc, RulesForm.typed(exc.message, data, exc.fields))
    said = f"From now on, {rule.describe()}."

    def fragment():
        if _swaps_rules():
            return _rules(RulesForm(said, focus="app")), 201
        # The banner's button: it goes away with the answer.
        commitment = controller().snapshot().commitment
        if commitment is not None:  # focus moves to the active card's heading
            return renderer().active_heading(commitment, said), 201
        return renderer().confirm(said), 201

    return Reply(json=lambda: (jsonify(rule_json(rule)), 201), fragment=fragment, page=_returned)


@bp.post("/rules/<rule_id>/delete")
def delete_rule(rule_id: str):
    from antidrift.web.rules_view import RulesForm

    wanted = rule_id if RULE_ID.fullmatch(rule_id) else None
    try:
        if wanted is None:
            raise NotFound("There is no such rule.")
        gone = standing_rules().remove(wanted)
    except NotFound as exc:
        return _refused(exc, RulesForm(exc.message, focus="title", error=True))
    said = f"Removed: {gone.describe()}."
    return Reply(
        json=lambda: jsonify(deleted=wanted),
        # The partial for a form inside #rules; any other htmx request gets the JSON.
        fragment=(lambda: _rules(RulesForm(said, focus="title"))) if _swaps_rules() else None,
        page=_returned,
    )


def _swaps_rules() -> bool:
    """Whether the request came from the rules partial (it swaps the whole of #rules)."""
    return request.headers.get("HX-Target") == "rules"


def _rules(form: RulesForm) -> str:
    """The partial (the whole of #rules) with the list as it is now and `form`."""
    from antidrift.web.rules_view import RulesView

    return renderer().rules(RulesView(tuple(reads().rules()), form, _back()))


def _refused(exc: Error, form: RulesForm) -> Reply:
    """A refusal: in the partial for htmx from it, on the rules page for a plain form; raised
    for JSON and for the banner's button (the error handler answers)."""
    from antidrift.web.rules_view import RulesView

    return refusal(
        exc,
        fragment=(lambda e: _rules(form)) if _swaps_rules() else None,
        page=lambda e: renderer().rules_page(RulesView(tuple(reads().rules()), form)),
    )


def _returned():
    """A plain form's change: back to the page it came from."""
    return redirect(_back(), 303)


def _back() -> str:
    back = request.form.get("back") if request.mimetype != "application/json" else None
    return back if back in BACK else "/rules"
