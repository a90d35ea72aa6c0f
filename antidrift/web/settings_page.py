"""The Settings page: what the environment variables set, in words, changed and saved here.

`GET /settings` (the page), `POST /settings` (form or JSON, any subset of the page's keys),
`GET /settings.json`. The holder (`antidrift.settings.LiveSettings`) validates, saves and tells
the runtime; this module only shapes the page and the answers.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass

from flask import current_app, jsonify, redirect, request, url_for

from antidrift.core.errors import Error, ValidationError
from antidrift.settings import TABLE, InvalidSetting, LiveSettings, Settings, SettingsError
from antidrift.settings.kinds import Choice, Flag, Number
from antidrift.web.answer import Blueprint, Reply, refusal
from antidrift.web.requests import payload, renderer

bp = Blueprint("settings_page", __name__)

# The page's labels, from the table (a refusal names a setting by its label).
LABELS: dict[str, str] = TABLE.labels()


@dataclass(frozen=True)
class Field:
    """One setting as the page shows it."""

    key: str
    label: str
    about: str
    value: str
    source: str
    variable: str
    accepted: str
    choices: tuple[tuple[str, str], ...] = ()  # (value, words) for a drop-down
    number: bool = False
    invalid: bool = False
    error: str | None = None  # the refusal, in words, beside the field
    applies: bool = True  # False: folded away (e.g. the AI server's address for a CLI)
    focus: bool = False  # the first field refused takes the focus
    secret: bool = False  # write-only (the sync passphrase): never shown back, never saved

    @property
    def locked(self) -> bool:
        """Set by the environment: the page shows it and cannot change it."""
        return self.source == "environment"


@dataclass(frozen=True)
class Group:
    title: str
    fields: tuple[Field, ...]

    @property
    def slug(self) -> str:
        """Its element's id: "settings-the-drift-guard"."""
        return "settings-" + re.sub(r"[^a-z0-9]+", "-", self.title.lower()).strip("-")

    @property
    def shown(self) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if f.applies)

    @property
    def folded(self) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if not f.applies)


def said_beside(message: str, key: str, labels: Mapping[str, str] = LABELS) -> str:
    """A refusal as the field says it: its label, not its key ("drift_grace: …"); another
    setting it names, by its label too."""
    label = labels.get(key, key.replace("_", " ").capitalize())
    rest = message.removeprefix(f"{key}: ")
    if rest != message:
        return f"{label}: {rest}"
    keys = re.compile(r"\b(?:" + "|".join(sorted(labels, key=len, reverse=True)) + r")\b")
    return keys.sub(lambda m: f"“{labels[m.group(0)]}”", message)


def build(
    settings: Settings,
    typed: Mapping[str, object] | None = None,
    refused: Mapping[str, str | None] | None = None,
) -> tuple[Group, ...]:
    """The page's groups from the Settings in force (and, after a refusal, what was typed
    and each refusal's sentence beside its field, the first of them focused)."""
    refused = refused or {}

    def value_of(key: str) -> str:
        if typed and key in typed:
            return _text(typed[key]).strip().lower()
        return _text(settings.shown(key)).strip().lower()

    table = settings.table
    labels = {**table.labels(), PASSPHRASE: "Sync passphrase"}
    groups = []
    for title, rows in table.groups():
        fields = []
        for setting in rows:
            key = setting.key
            shown = settings.shown(key)
            value = typed.get(key) if typed and key in typed else shown
            kind = setting.kind
            choices: tuple[tuple[str, str], ...] = ()
            if isinstance(kind, Choice):
                choices = tuple((n, setting.words.get(n, n)) for n in kind.names)
            elif isinstance(kind, Flag):  # on or off: a drop-down, never "False" to type over
                choices = (("off", "Off"), ("on", "On"))
                if not (typed and key in typed):
                    value = "on" if shown else "off"
            fields.append(
                Field(
                    key=key,
                    label=setting.label,
                    about=setting.page_help,
                    value=_text(value),
                    source=settings.source(key),
                    variable=setting.variable,
                    accepted=setting.accepted,
                    choices=choices,
                    number=isinstance(kind, Number),
                    invalid=key in refused,
                    error=said_beside(error, key, labels) if (error := refused.get(key)) else None,
                    applies=key in refused or setting.applies_with(value_of),
                )
            )
        if any(f.key == "sync_folder" for f in fields):
            fields.append(_passphrase(settings, value_of, refused, labels))
        groups.append(Group(title, tuple(fields)))
    first = next((f.key for g in groups for f in g.fields if f.error), None)
    return tuple(
        Group(g.title, tuple(dataclasses.replace(f, focus=f.key == first) for f in g.fields))
        for g in groups
    )


PASSPHRASE = "sync_passphrase"  # not a setting: entered here, used, never kept


def _passphrase(settings: Settings, value_of, refused, labels) -> Field:
    """The sync passphrase's field, write-only: what is typed derives the keys and is gone."""
    error = refused.get(PASSPHRASE)
    return Field(
        key=PASSPHRASE,
        label="Sync passphrase",
        about="The same on each of your machines. It makes the key that encrypts what goes"
        " into the folder; only the key is kept here, never the passphrase. Once per machine"
        " (or antidrift sync join).",
        value="",
        source="default",
        variable="",
        accepted="",
        invalid=PASSPHRASE in refused,
        error=said_beside(error, PASSPHRASE, labels) if error else None,
        applies=PASSPHRASE in refused or bool(value_of("sync_folder")),
        secret=True,
    )


def _text(value: object) -> str:
    """A value as a field holds it: 75, not 75.0."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "" if value is None else str(value)


def live() -> LiveSettings:
    """The running server's settings holder."""
    return current_app.extensions["antidrift.runtime"].settings


def changes_from(data: Mapping[str, object], settings: Settings, *, form: bool) -> dict:
    """The keys that change. A form sends every field: the ones left as shown are no change
    (so a default stays a default, and a locked field is not a 409)."""
    changes = {}
    table = settings.table
    for key, raw in data.items():
        if key not in table.by_key:
            if form:
                continue  # a form's own fields (none today) are not settings
            changes[key] = raw  # the holder names the unknown key in its refusal
            continue
        unchanged = key in table.page_keys and _text(raw).strip() == _text(settings.shown(key))
        if unchanged and (form or settings.source(key) == "environment"):
            continue
        changes[key] = raw
    return changes


def _page(**context: object) -> str:
    labels = {**live().current().table.labels(), PASSPHRASE: "Sync passphrase"}
    context = {"message": None, "refused": (), "labels": labels, **context}
    return renderer().template("settings.html", **context)


@bp.get("/settings")
def settings_page():
    saved = request.args.get("saved") == "1"
    return _page(groups=build(live().current()), saved=saved)


@bp.get("/settings.json")
def settings_json():
    return jsonify(live().describe())


@bp.post("/settings/group")
def settings_group():
    """One group again, as the choices being made in it (not yet saved) say: a field a
    choice needs is shown, one it leaves unused is folded away. Nothing is saved."""
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
        settings = live().current()
        keys = (*settings.table.page_keys, PASSPHRASE)
        typed = {k: v for k, v in data.items() if k in keys}
        beside = {p.key: p.message for p in exc.each if p.key in keys}
        elsewhere = " ".join(p.message for p in exc.each if p.key not in keys) or None
        groups = build(settings, typed, beside)
        refused = tuple(f.key for g in groups for f in g.fields if f.error)
        return _page(groups=groups, refused=refused, message=elsewhere, saved=False)

    return shown
