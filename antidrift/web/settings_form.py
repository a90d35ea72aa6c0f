"""The Settings page's fields: each setting as the page shows it, in its group, and the
keys a save changes (web/settings_page.py, its routes). Loaded with the page (issue 40: the
footprint)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass

from antidrift.settings import TABLE, Settings
from antidrift.settings.kinds import Choice, Flag, Number

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
