"""What the user types while planning, kept on the server as they type: a reload, a restart or
a coach's proposal never loses it.

A plan field the user changed is theirs until a proposal or Use puts the coach's text in it:
a proposal that lands leaves it as it is, whenever the edit was made (before a Sharpen, while
the coach thinks, after an earlier proposal), and offers its own text beside it (the page's
Use button). Shaped like
`Corrections`: each change is one unit of work of the session; methods marked "under the
lock" are called inside one.

Two tabs share the one draft. Each saved change of the plan moves its `version` on by one
(the intent and a picked task do not: nothing is weighed by them), and a page
sends the version it shows with Start: a Start from a page showing another version, with a
plan other than the saved one, is refused (`ChangedElsewhere`, 409) with the saved text, so
what another tab typed is never dropped unseen.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from antidrift.core.day import DayItem
from antidrift.core.domain import (
    MAX_INTENT,
    MAX_MINUTES,
    MAX_TEXT,
    MIN_MINUTES,
    IllegalTransitionError,
    Plan,
    RuntimeState,
    TaskRef,
    ValidationError,
    whole_number,
)
from antidrift.core.transitions import Move
from antidrift.session.state import Session
from antidrift.session.unit_of_work import UnitOfWork

PLAN_FIELDS = ("next_action", "success_condition", "timebox_minutes")
DRAFT_FIELDS = ("intent", *PLAN_FIELDS)
DEFAULT_MINUTES = "25"
MAX_ID = 100  # characters of a day item's id kept with a draft (ours are 36)
TEXT_LIMITS = {"intent": MAX_INTENT, "next_action": MAX_TEXT, "success_condition": MAX_TEXT}
_LABELS = {
    "intent": "Your rough intent",
    "next_action": "Next action",
    "success_condition": "Done when",
    "timebox_minutes": "Minutes",
}


@dataclass(frozen=True)
class Draft:
    """The planning form as last typed (text as typed, not trimmed: it is still being typed)."""

    intent: str = ""
    next_action: str = ""
    success_condition: str = ""
    timebox_minutes: str = DEFAULT_MINUTES
    edited: frozenset[str] = field(default_factory=frozenset)  # plan fields the user typed
    task: TaskRef | None = None  # picked from the user's task list: the commitment serves it
    version: int = 0  # one more with each saved change of the plan (/state's draft_version)
    day_item: str | None = None  # Plan it: the day's item it was opened for (Start takes it)

    def value(self, name: str) -> str:
        return getattr(self, name)

    def to_json(self) -> str:
        body: dict[str, object] = {f: self.value(f) for f in DRAFT_FIELDS}
        body["edited"] = sorted(self.edited)
        t = self.task
        body["task"] = [t.source, t.id, t.title, t.url] if t else None
        body["version"] = self.version
        if self.day_item is not None:
            body["day_item"] = self.day_item
        return json.dumps(body)

    @classmethod
    def from_json(cls, text: str | None) -> Draft:
        """The stored draft; a missing or unreadable one is an empty draft (never a crash)."""
        try:
            body = json.loads(text) if text else {}
            values = validate_draft(body) if isinstance(body, dict) else {}
            edited = frozenset(f for f in body.get("edited", ()) if f in PLAN_FIELDS)
            task = _task(body.get("task"))
            version = body.get("version", 0)  # a draft kept before versions: 0
            if not isinstance(version, int) or isinstance(version, bool) or version < 0:
                version = 0
            day_item = body.get("day_item")
            if not (isinstance(day_item, str) and 0 < len(day_item) <= MAX_ID):
                day_item = None
        except (ValueError, ValidationError, TypeError, AttributeError):
            return cls()
        return replace(
            cls(), **values, edited=edited, task=task, version=version, day_item=day_item
        )

    def same_plan(self, typed: Mapping[str, object]) -> bool:
        """Whether `typed` (a Start's fields) holds this draft's plan, spaces aside."""

        def text(value: object) -> str:
            return str(value).strip() if isinstance(value, str | int) else ""

        return all(text(typed.get(n)) == self.value(n).strip() for n in PLAN_FIELDS)

    @classmethod
    def of_plan(cls, plan: Plan, task: TaskRef | None = None) -> Draft:
        """A draft holding a plan (Again: the same commitment once more, for the same task)."""
        return cls(
            next_action=plan.next_action,
            success_condition=plan.success_condition,
            timebox_minutes=str(plan.timebox_secs // 60),
            task=task,
        )

    @classmethod
    def of_item(cls, item: DayItem) -> Draft:
        """Plan it: a draft holding a day's item (its minutes, else the default), for it."""
        return cls(
            next_action=item.next_action,
            success_condition=item.success_condition,
            timebox_minutes=str(item.timebox_minutes or DEFAULT_MINUTES),
            day_item=item.id,
        )

    @classmethod
    def for_task(cls, task: TaskRef) -> Draft:
        """Planning opened by picking a task: its title is the rough intent."""
        return cls(intent=task.title, task=task)


def _task(stored: object) -> TaskRef | None:
    """A stored draft's task as written by to_json; anything else is no task (the url is a
    link on the page: only a web address is taken)."""
    if stored is None:
        return None
    source, task_id, title, url = stored  # ValueError/TypeError: not what to_json wrote
    texts = (source, task_id, title)
    if not all(isinstance(t, str) and 0 < len(t) <= MAX_INTENT for t in texts):
        return None
    if not (url is None or (isinstance(url, str) and url.startswith(("https://", "http://")))):
        url = None
    return TaskRef(source, task_id, title, url)


def proposed_value(plan: Plan, name: str) -> str:
    """A proposal's value for a plan field, as the field's input holds it."""
    if name == "timebox_minutes":
        return str(plan.timebox_secs // 60)
    return getattr(plan, name)


def validate_draft(data: Mapping[str, object]) -> dict[str, str]:
    """The draft fields present in data (unknown keys ignored), each within the plan's
    bounds; an empty Minutes is allowed (it is being typed). One ValidationError otherwise."""
    values: dict[str, str] = {}
    for name in DRAFT_FIELDS:
        if name not in data:
            continue
        value = data[name]
        label = _LABELS[name]
        if name == "timebox_minutes":
            if isinstance(value, int) and not isinstance(value, bool):
                value = str(value)
            if not isinstance(value, str) or (
                value.strip() and whole_number(value.strip(), MIN_MINUTES, MAX_MINUTES, 4) is None
            ):
                raise ValidationError(
                    f"Minutes must be a whole number from {MIN_MINUTES} to {MAX_MINUTES}.", name
                )
            values[name] = value.strip()
            continue
        if not isinstance(value, str) or "\x00" in value:
            raise ValidationError(f"{label} must be plain text.", name)
        if len(value.strip()) > (limit := TEXT_LIMITS[name]):
            raise ValidationError(
                f"{label} is too long ({len(value.strip())} characters; at most {limit}).", name
            )
        values[name] = value
    if not values:
        raise ValidationError("Send at least one of: " + ", ".join(DRAFT_FIELDS) + ".")
    return values


class ChangedElsewhere(IllegalTransitionError):
    """Start from a page that shows an older draft than the saved one, with another plan: the
    saved one was typed in another tab (409, nothing started). `draft`: the saved draft."""

    def __init__(self, draft: Draft) -> None:
        super().__init__(f"Changed in another tab: {plan_words(draft)}.")
        self.draft = draft


def plan_words(draft: Draft) -> str:
    """The draft's plan in a sentence: next action, done when, minutes."""
    action, done = draft.next_action.strip(), draft.success_condition.strip()
    minutes = draft.timebox_minutes.strip()
    return ", ".join(
        (
            f"next action “{action}”" if action else "no next action",
            f"done when “{done}”" if done else "no done-when",
            f"{minutes} min" if minutes else "no minutes",
        )
    )


def shown_version(value: object) -> int | None:
    """The draft version a Start says its page shows (None: it says none, today's contract)."""
    if value is None or value == "":
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    text = value.strip() if isinstance(value, str) else ""
    if text.isascii() and text.isdigit() and len(text) <= 18:
        return int(text)
    raise ValidationError("draft_version must be a whole number.", "draft_version")


class Drafts:
    """The one draft, persisted with every change; exists while planning."""

    def __init__(self, store, work: UnitOfWork, session: Session) -> None:
        self._store = store
        self._work, self._s = work, session

    @property
    def draft(self) -> Draft:
        """Under the lock: the draft (kept in the session's aggregate; empty unless planning)."""
        return self._s.focus.draft or Draft()

    @draft.setter
    def draft(self, draft: Draft) -> None:
        self._s.focus.draft = draft

    def _planning(self) -> bool:
        return self._s.state is RuntimeState.PLANNING

    def resume(self) -> None:
        """At construction: a restart in planning takes up the saved draft."""
        with self._work:
            if self._planning():
                self._s.take_up(Draft.from_json(self._store.load_draft()))

    def _put(self, draft: Draft) -> None:
        """Keep `draft` (made from the current one by replace); a change of its plan (next
        action, done when, minutes) moves its version. The intent and the task do not: a
        Start is weighed by the plan it starts, and a page that picked a task or sharpened
        an intent must not lag behind a version no push or answer brought it."""
        if any(draft.value(n) != self.draft.value(n) for n in PLAN_FIELDS):
            draft = replace(draft, version=self.draft.version + 1)
        self.draft = draft
        self._s.persist(self._store)

    def check_shown(self, shown: object, typed: Mapping[str, object]) -> None:
        """Under the lock (Start): refuse a Start from a page that shows another version of
        the draft than the saved one, unless it starts the saved plan anyway. No version
        (the command line, JSON clients): nothing to check."""
        version = shown_version(shown)
        draft = self.draft
        if version is None or version == draft.version or draft.same_plan(typed):
            return
        raise ChangedElsewhere(draft)

    def pick(self, task: TaskRef | None) -> Draft:
        """POST /planning task=…: the draft serves this task (None: no task) and its title
        becomes the rough intent; the plan fields the user typed stay as they are."""
        with self._work as work:
            self._s.check(Move.PICK_TASK)
            intent = task.title if task is not None else self.draft.intent
            self._put(replace(self.draft, intent=intent, task=task))
            work.changed()
            return self.draft

    def save(self, data: Mapping[str, object]) -> Draft:
        """POST /planning/draft: keep what was typed; a changed plan field becomes the user's."""
        return self.save_after(data)[0]

    def save_after(self, data: Mapping[str, object]) -> tuple[Draft, int]:
        """save(), and the version the draft had before it: the page's answer claims the new
        version only if the page showed that one (else it would claim another tab's change
        it has not taken, and a Start from it would pass for up to date)."""
        with self._work as work:
            self._s.check(Move.DRAFT)
            before = self.draft.version
            values = validate_draft(data)
            changed = {n for n, v in values.items() if v != self.draft.value(n)}
            if not changed:
                return self.draft, before
            edited = self.draft.edited | (changed & set(PLAN_FIELDS))
            self._put(replace(self.draft, **values, edited=edited))
            work.changed()
            return self.draft, before

    def use(self, name: object, plan: Plan | None) -> Draft:
        """Coaching.use (POST /coach/use): the ready proposal's (`plan`) value goes into one
        field the user had edited; it holds the coach's text now, open to the next proposal."""
        with self._work as work:
            self._s.check(Move.USE_PROPOSAL)
            if name not in PLAN_FIELDS:
                raise ValidationError("Say which field: " + ", ".join(PLAN_FIELDS) + ".", "field")
            if plan is None:
                raise IllegalTransitionError("There is no proposal to use.")
            value, edited = proposed_value(plan, name), self.draft.edited - {name}
            self._put(replace(self.draft, **{name: value}, edited=edited))
            work.changed()
            return self.draft

    def sharpened(self, intent: str) -> None:
        """Under the lock (POST /coach): the intent asked about. The fields the user edited
        stay theirs: a new Sharpen never writes over them."""
        self._put(replace(self.draft, intent=intent))

    def proposed(self, plan: Plan) -> tuple[str, ...]:
        """Under the lock, as a proposal lands: the fields the user left alone (or emptied)
        take it and are open to the next one; those the user typed in are kept (returned)
        when they differ from it."""
        d = self.draft
        kept = tuple(
            n
            for n in PLAN_FIELDS
            if n in d.edited and d.value(n).strip() and d.value(n) != proposed_value(plan, n)
        )
        filled = {n: proposed_value(plan, n) for n in PLAN_FIELDS if n not in kept}
        self._put(replace(d, **filled, edited=d.edited & frozenset(kept)))
        return kept
