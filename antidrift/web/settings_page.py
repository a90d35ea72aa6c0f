"""The Settings page: what the environment variables set, in words, changed and saved here.

`GET /settings` (the page), `POST /settings` (form or JSON, any subset of the page's keys),
`GET /settings.json`. The holder (`antidrift.settings.LiveSettings`) validates, saves and tells
the runtime; this module only shapes the page and the answers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from flask import Blueprint, current_app, jsonify, redirect, request

from antidrift import ai
from antidrift.settings import BY_KEY, PAGE_KEYS, LiveSettings, Settings, SettingsError
from antidrift.settings.kinds import Choice, Flag, Number
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
            ("ai_url", "Address of the AI server"),
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
            ("evidence_exclude", "Private window titles"),
        ),
    ),
    (
        "Breaks",
        (
            ("break_minutes", "Break, in minutes"),
            ("long_break_minutes", "Long break, in minutes"),
            ("long_break_every", "Long break after"),
            ("auto_break", "Start breaks by themselves"),
        ),
    ),
    ("Tasks", (("tasks", "Task lists to plan from"),)),
    (
        "The calendar",
        (
            ("calendar", "Calendars to plan around"),
            ("calendar_email", "Your address in them"),
        ),
    ),
)

LABELS: dict[str, str] = {key: label for _, rows in GROUPS for key, label in rows}

_KEYS = re.compile(r"\b(?:" + "|".join(sorted(LABELS, key=len, reverse=True)) + r")\b")

# The line under a field where the table's own (written for the environment's variables)
# would say its label again: what the label does not say, and an example where one helps.
ABOUT = {
    "ai_backend": "Coaches your plans, judges drift and reflects on a review.",
    "ai_model": "Empty: the backend's usual one (claude: haiku); default: the CLI's own choice.",
    "ai_url": "Ollama or an OpenAI-compatible server, e.g. http://127.0.0.1:11434 for ollama.",
    "drift_grace": "A short look elsewhere is no drift; 0 nudges at once.",
    "enforce": "Put away: the off-task window is minimized.",
    "enforce_after": "Counted from a nudge left unanswered.",
    "notify": "For a nudge, and when the time is up.",
    "notify_command": "The title and text are added at its end, e.g. notify-send -a AntiDrift --",
    "window_source": "Auto finds your desktop's.",
    "evidence_exclude": "A pattern, e.g. bank|Passwords: a matching title or app is never"
    " stored or sent.",
    "tasks": "Separated by commas, e.g. markdown:/home/you/notes/todo.md, taskwarrior, github"
    " (also todotxt:<path>).",
    "calendar": ".ics files or https:// addresses, separated by commas; fetched every 15 min.",
    "calendar_email": "Events you declined there are left out.",
}

# Whether a field applies, from the values in force: one that does not is folded away.
APPLIES = {
    "ai_url": lambda v: v("ai_backend") in ai.served(),
    "drift_grace": lambda v: v("drift") == "ai",
    "enforce": lambda v: v("drift") == "ai",
    "enforce_after": lambda v: v("drift") == "ai" and v("enforce") == "minimize",
    "notify_command": lambda v: v("notify") == "command",
    "calendar_email": lambda v: bool(v("calendar")),
}

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
    error: str | None = None  # the refusal, in words, beside the field
    applies: bool = True  # False: folded away (e.g. the AI server's address for a CLI)

    @property
    def locked(self) -> bool:
        """Set by the environment: the page shows it and cannot change it."""
        return self.source == "environment"


@dataclass(frozen=True)
class Group:
    title: str
    fields: tuple[Field, ...]

    @property
    def shown(self) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if f.applies)

    @property
    def folded(self) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if not f.applies)


def said_beside(message: str, key: str) -> str:
    """A refusal as the field says it: its label, not its key ("drift_grace: …"); another
    setting it names, by its label too."""
    label = LABELS.get(key, key.replace("_", " ").capitalize())
    rest = message.removeprefix(f"{key}: ")
    if rest != message:
        return f"{label}: {rest}"
    return _KEYS.sub(lambda m: f"“{LABELS[m.group(0)]}”", message)


def build(
    settings: Settings,
    typed: Mapping[str, object] | None = None,
    invalid: str | None = None,
    error: str | None = None,
) -> tuple[Group, ...]:
    """The page's groups from the Settings in force (and, after a refusal, what was typed
    and the refusal's sentence beside its field)."""

    def value_of(key: str) -> str:
        if typed and key in typed:
            return _text(typed[key]).strip().lower()
        return _text(settings.shown(key)).strip().lower()

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
            elif isinstance(kind, Flag):  # on or off: a drop-down, never "False" to type over
                choices = (("off", "Off"), ("on", "On"))
                if not (typed and key in typed):
                    value = "on" if shown else "off"
            fields.append(
                Field(
                    key=key,
                    label=label,
                    about=ABOUT.get(key, setting.about),
                    value=_text(value),
                    source=settings.source(key),
                    variable=setting.variable,
                    accepted=setting.accepted,
                    choices=choices,
                    number=isinstance(kind, Number),
                    invalid=key == invalid,
                    error=said_beside(error, key) if error and key == invalid else None,
                    applies=key == invalid or APPLIES.get(key, lambda v: True)(value_of),
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
    context = {"message": None, "refused": None, "labels": LABELS, **context}
    return env.get_template("settings.html").render(**context), status, HTML


@bp.get("/settings")
def settings_page():
    saved = request.args.get("saved") == "1"
    return _render(groups=build(live().current()), saved=saved)


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
        beside = exc.key in PAGE_KEYS
        groups = build(holder.current(), typed, exc.key, exc.message if beside else None)
        if beside:  # said beside its field; the top only says nothing was saved, and where
            return _render(exc.status, groups=groups, saved=False, refused=exc.key)
        return _render(exc.status, groups=groups, saved=False, message=exc.message)
    if from_htmx():  # the page loads afresh, its confirmation focused
        return "", 200, {"HX-Redirect": "/settings?saved=1", **HTML}
    if page:
        return redirect("/settings?saved=1", 303)
    return jsonify(holder.describe())
