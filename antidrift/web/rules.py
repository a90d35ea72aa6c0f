"""Standing rules: GET /rules (JSON, or the rules page), POST /rules, POST /rules/<id>/delete.

The same partial (`_rules.html`, one root `id="rules"`) is the rules page's body, the
Settings page's section and the answer to every htmx request made from it, so the list, its
message and the form stay in step with no script. The drift banner's "always on task" posts
here too; it gets a sentence for its message slot (the push takes the banner away).
"""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, redirect, request

from antidrift.core.domain import NotFound, ValidationError, whole_number
from antidrift.drift.verdicts import Rule
from antidrift.web.requests import (
    HTML,
    controller,
    from_htmx,
    payload,
    reads,
    standing_rules,
    wants_html,
)
from antidrift.web.views import RulesForm, RulesView

bp = Blueprint("rules", __name__)

BACK = ("/rules", "/settings")  # where a plain (script-less) form returns
MAX_ID = 2**62  # beyond any rule id SQLite hands out


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
    rules = reads().rules()
    if wants_html():
        return _renderer().rules_page(RulesView(tuple(rules))), 200, HTML
    return jsonify([rule_json(r) for r in rules])


@bp.post("/rules")
def add_rule():
    data = payload()
    try:
        rule = standing_rules().add(
            data.get("app"), data.get("title_contains"), data.get("verdict"), data.get("site")
        )
    except ValidationError as exc:
        form = RulesForm.typed(exc.message, data, exc.fields)
        return _answer(form, exc.status) or _raise(exc)
    said = f"From now on, {rule.describe()}."
    if from_htmx() and not _swaps_rules():  # the banner's button: it goes away with the answer
        commitment = controller().snapshot().commitment
        if commitment is not None:  # focus moves to the active card's heading
            return _renderer().active_heading(commitment, said), 201, HTML
        return _renderer().confirm(said), 201, HTML
    return _answer(RulesForm(said, focus="app"), 201) or (jsonify(rule_json(rule)), 201)


@bp.post("/rules/<rule_id>/delete")
def delete_rule(rule_id: str):
    number = whole_number(rule_id, 1, MAX_ID, 19)
    try:
        if number is None:
            raise NotFound("There is no such rule.")
        gone = standing_rules().remove(number)
    except NotFound as exc:
        form = RulesForm(exc.message, focus="title", error=True)
        return _answer(form, exc.status) or _raise(exc)
    said = f"Removed: {gone.describe()}."
    return _answer(RulesForm(said, focus="title"), 200) or jsonify(deleted=number)


def _swaps_rules() -> bool:
    """Whether the request came from the rules partial (it swaps the whole of #rules)."""
    return request.headers.get("HX-Target") == "rules"


def _answer(form: RulesForm, status: int):
    """The partial for htmx, the page (or a redirect) for a plain form; None for JSON."""
    if from_htmx() and _swaps_rules():
        return _renderer().rules(RulesView(tuple(reads().rules()), form, _back())), status, HTML
    if not from_htmx() and wants_html() and request.mimetype != "application/json":
        if status >= 400:
            return _renderer().rules_page(RulesView(tuple(reads().rules()), form)), status, HTML
        return redirect(_back(), 303)
    return None


def _raise(exc: Exception):
    raise exc


def _back() -> str:
    back = request.form.get("back") if request.mimetype != "application/json" else None
    return back if back in BACK else "/rules"


def _renderer():
    return current_app.extensions["antidrift.renderer"]
