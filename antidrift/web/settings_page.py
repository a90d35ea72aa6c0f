"""The Settings page: what the environment variables set, in words, changed and saved here.

`GET /settings` (the page), `POST /settings` (form or JSON, any subset of the page's keys),
`GET /settings.json`. The holder (`antidrift.settings.LiveSettings`) validates, saves and tells
the runtime; this module only shapes the page and the answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from flask import Blueprint, current_app, jsonify, redirect, request

from antidrift.settings import BY_KEY, PAGE_KEYS, LiveSettings, Settings, SettingsError
from antidrift.settings.kinds import Choice, Number
from antidrift.web.requests import HTML, from_htmx, payload, wants_html

bp = Blueprint("settings_page", __name__)

# The page's groups, in order, each setting under a label in words.
GROUPS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (
        "The AI",
        (
            ("ai_backend", "Which AI"),
            ("ai_model", "Model"),
            ("ai_effort", "Effort"),
            ("ai_url", "Address of the AI server (ollama, OpenAI-compatible)"),
        ),
    ),
    (
        "The drift guard",
        (
            ("drift", "Drift guard"),
            ("drift_grace", "Seconds off task before a nudge"),
            ("enforce", "After an unanswered nudge"),
            ("enforce_after", "Seconds before the window is put away"),
        ),
    ),
    (
        "Notifications",
        (
            ("notify", "Notifications"),
            ("notify_command", "Notification command"),
        ),
    ),
    (
        "Windows and privacy",
        (
            ("window_source", "Where the focused window is read from"),
            (
                "evidence_exclude",
                "Private window titles (a pattern; matching titles are never stored or sent)",
            ),
            ("away_after", "Minutes without input before you count as away (0: never)"),
        ),
    ),
    ("Tasks", (("tasks", "Task lists to plan from"),)),
    (
        "The calendar",
        (
            ("calendar", "Calendars to plan around (.ics files or https:// addresses)"),
            ("calendar_email", "Your address in them (events you declined are left out)"),
        ),
    ),
)

# Choice values as words in the drop-downs (the value sent is the name itself).
WORDS = {
    # Short: a drop-down cannot wrap, and its about line already says what "On" does.
    "drift": {"ai": "On", "off": "Off"},
    "enforce": {"off": "Leave it", "minimize": "Put the window away"},
    "notify": {"auto": "The desktop's own", "off": "None", "command": "My command"},
}


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

    @property
    def locked(self) -> bool:
        """Set by the environment: the page shows it and cannot change it."""
        return self.source == "environment"


@dataclass(frozen=True)
class Group:
    title: str
    fields: tuple[Field, ...]


def build(
    settings: Settings,
    typed: Mapping[str, object] | None = None,
    invalid: str | None = None,
) -> tuple[Group, ...]:
    """The page's groups from the Settings in force (and, after a refusal, what was typed)."""
    listed = {key for _, rows in GROUPS for key, _ in rows}
    rows = [*GROUPS]
    rest = tuple((k, k.replace("_", " ").capitalize()) for k in PAGE_KEYS if k not in listed)
    if rest:  # a page key added to the table later still shows up
        rows.append(("More", rest))
    groups = []
    for title, keys in rows:
        fields = []
        for key, label in keys:
            setting = BY_KEY[key]
            shown = settings.shown(key)
            value = typed.get(key) if typed and key in typed else shown
            kind = setting.kind
            choices: tuple[tuple[str, str], ...] = ()
            if isinstance(kind, Choice):
                words = WORDS.get(key, {})
                choices = tuple((n, words.get(n, n)) for n in kind.names)
            fields.append(
                Field(
                    key=key,
                    label=label,
                    about=setting.about,
                    value=_text(value),
                    source=settings.source(key),
                    variable=setting.variable,
                    accepted=setting.accepted,
                    choices=choices,
                    number=isinstance(kind, Number),
                    invalid=key == invalid,
                )
            )
        groups.append(Group(title, tuple(fields)))
    return tuple(groups)


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
    for key, raw in data.items():
        if key not in BY_KEY:
            if form:
                continue  # a form's own fields (none today) are not settings
            changes[key] = raw  # the holder names the unknown key in its refusal
            continue
        unchanged = key in PAGE_KEYS and _text(raw).strip() == _text(settings.shown(key))
        if unchanged and (form or settings.source(key) == "environment"):
            continue
        changes[key] = raw
    return changes


def _render(status: int = 200, **context: object):
    env = current_app.extensions["antidrift.renderer"].env
    return env.get_template("settings.html").render(**context), status, HTML


@bp.get("/settings")
def settings_page():
    saved = request.args.get("saved") == "1"
    return _render(groups=build(live().current()), saved=saved, message=None)


@bp.get("/settings.json")
def settings_json():
    return jsonify(live().describe())


@bp.post("/settings")
def change_settings():
    holder = live()
    as_json = request.mimetype == "application/json"
    data = payload()
    changes = changes_from(data, holder.current(), form=not as_json)
    page = not as_json and (from_htmx() or wants_html())
    try:
        if changes:
            holder.update(changes)
    except SettingsError as exc:
        if not page:
            raise
        typed = {k: v for k, v in data.items() if k in PAGE_KEYS}
        groups = build(holder.current(), typed, exc.key)
        return _render(exc.status, groups=groups, saved=False, message=exc.message)
    if from_htmx():  # the page loads afresh, its confirmation focused
        return "", 200, {"HX-Redirect": "/settings?saved=1", **HTML}
    if page:
        return redirect("/settings?saved=1", 303)
    return jsonify(holder.describe())
