"""The Settings page: what the environment variables set, in words, changed and saved here.

`GET /settings` (the page), `POST /settings` (form or JSON, any subset of the page's keys),
`GET /settings.json`. The holder (`antidrift.settings.LiveSettings`) validates, saves and tells
the runtime; this module only shapes the page and the answers.
"""

from __future__ import annotations

from collections.abc import Mapping

from flask import current_app, jsonify, redirect, request, url_for

from antidrift.core.errors import Error, ValidationError
from antidrift.settings import InvalidSetting, LiveSettings, SettingsError
from antidrift.web.answer import Blueprint, Reply, refusal
from antidrift.web.requests import payload, renderer

bp = Blueprint("settings_page", __name__)

# The fields (settings_form.py) load with the page, in each route (issue 40: the footprint).


def live() -> LiveSettings:
    """The running server's settings holder."""
    return current_app.extensions["antidrift.runtime"].settings


def _page(**context: object) -> str:
    from antidrift.web.settings_form import PASSPHRASE

    labels = {**live().current().table.labels(), PASSPHRASE: "Sync passphrase"}
    context = {"message": None, "refused": (), "labels": labels, **context}
    return renderer().template("settings.html", **context)


@bp.get("/settings")
def settings_page():
    from antidrift.web.settings_form import build

    saved = request.args.get("saved") == "1"
    return _page(groups=build(live().current()), saved=saved)


@bp.get("/settings.json")
def settings_json():
    return jsonify(live().describe())


@bp.post("/settings/group")
def settings_group():
    """One group again, as the choices being made in it (not yet saved) say: a field a
    choice needs is shown, one it leaves unused is folded away. Nothing is saved."""
    from antidrift.web.settings_form import build

    settings = live().current()
    data = payload()
    title = data.get("group")
    typed = {k: v for k, v in data.items() if k in settings.table.page_keys}
    group = next((g for g in build(settings, typed) if g.title == title), None)
    if group is None:
        raise ValidationError("There is no such group of settings: reload the page.")
    return renderer().template("_settings_group.html", group=group, preserve=True)


@bp.post("/settings")
def change_settings():
    from antidrift.web.settings_form import PASSPHRASE, changes_from

    holder = live()
    data = dict(payload())
    passphrase = data.pop(PASSPHRASE, None) or None  # never a setting: used, then gone
    changes = changes_from(data, holder.current(), form=request.mimetype != "application/json")
    moves = "sync_folder" in changes  # the passphrase opens the folder the save sets
    try:
        if passphrase:  # the settings checked first: a refused Save keeps no key either
            holder.check(changes)
        if passphrase and not moves:
            _join(passphrase)
        if changes:
            holder.update(changes)
        if passphrase and moves:
            _join(passphrase, after_save=True)
    except SettingsError as exc:
        return refusal(exc, fragment=_refused(data), page=_refused(data))
    saved = url_for("settings_page.settings_page", saved=1)
    return Reply(
        json=lambda: jsonify(holder.describe()),
        # htmx: the page loads afresh, its confirmation focused
        fragment=lambda: ("", 200, {"HX-Redirect": saved}),
        page=lambda: redirect(saved, 303),
    )


def _join(passphrase: object, *, after_save: bool = False) -> None:
    """The passphrase to the runtime's sync; its refusal said beside the field (InvalidSetting
    on the field's key). After a save that set the folder: said so, the rest being kept."""
    from antidrift.web.settings_form import PASSPHRASE

    sync = current_app.extensions["antidrift.runtime"].sync
    try:
        if sync is None:
            raise ValidationError("Sync is not running here.", PASSPHRASE)
        sync.join(passphrase)
    except Error as exc:
        kept = " The other settings were saved." if after_save else ""
        raise InvalidSetting(f"{PASSPHRASE}: {exc.message}{kept}", PASSPHRASE) from None


def _refused(data: Mapping[str, object]):
    """The page again as typed: each refusal's sentence beside its field; the top says
    nothing was saved, and where (and what no field can hold)."""

    def shown(exc: SettingsError) -> str:
        from antidrift.web.settings_form import PASSPHRASE, build

        settings = live().current()
        keys = (*settings.table.page_keys, PASSPHRASE)
        typed = {k: v for k, v in data.items() if k in keys}
        beside = {p.key: p.message for p in exc.each if p.key in keys}
        elsewhere = " ".join(p.message for p in exc.each if p.key not in keys) or None
        groups = build(settings, typed, beside)
        refused = tuple(f.key for g in groups for f in g.fields if f.error)
        return _page(groups=groups, refused=refused, message=elsewhere, saved=False)

    return shown
