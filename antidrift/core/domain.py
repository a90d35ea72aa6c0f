"""The commitment loop's pure core: states, commitments, validation, evidence maths.

Nothing here touches Flask, SQLite, threads or the clock: callers pass times in.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import StrEnum

# The domain's refusals live beside the one error base; importable from here as ever.
from antidrift.core.errors import (  # noqa: F401
    DomainError,
    IllegalTransitionError,
    NotFound,
    NotPlanning,
    ValidationError,
    every_check,
)
from antidrift.core.plaintext import first_control

MAX_TEXT = 500
MAX_NOTE = 2000
MAX_INTENT = 2000
MIN_MINUTES = 1
MAX_MINUTES = 480
MAX_EXTEND_MINUTES = 120
STALE_AFTER = timedelta(seconds=30)
# A gap longer than this between two samples is not counted as time on the older window:
# the watcher was probably asleep (laptop lid, crashed sampler).
MAX_SAMPLE_SPAN = timedelta(seconds=60)
EXCLUDED_TITLE = "(excluded)"
# An absence's start among the samples (no window has an empty app and title): no window's.
AWAY_MARK = ("", "")


class RuntimeState(StrEnum):
    LOCKED = "locked"
    PLANNING = "planning"
    ACTIVE = "active"
    REVIEW = "review"


class Outcome(StrEnum):
    MET = "met"
    MISSED = "missed"
    DISCARDED = "discarded"  # dropped while it ran: in the history, never counted


COUNTED = (Outcome.MET, Outcome.MISSED)  # what the figures count (never a discarded one)


class Health(StrEnum):
    HEALTHY = "healthy"
    STALE = "stale"
    UNAVAILABLE = "unavailable"


_WHERE_YOU_ARE = {
    RuntimeState.LOCKED: "there is no commitment yet",
    RuntimeState.PLANNING: "you are planning",
    RuntimeState.ACTIVE: "a commitment is running",
    RuntimeState.REVIEW: "the last commitment is waiting for its review",
}


def describe(state: RuntimeState) -> str:
    """The state in words, for a refusal ("You can't finish now: you are planning.")."""
    return _WHERE_YOU_ARE[state]


@dataclass(frozen=True)
class TaskRef:
    """A task in the user's own task list: its source (taskwarrior, github, markdown,
    todotxt), its id there, its title (private, like a window title), and `url`, where it can
    be opened when it has a page."""

    source: str
    id: str
    title: str
    url: str | None = None

    @property
    def key(self) -> str:
        """`<source>:<id>`, the form value that picks this task."""
        return f"{self.source}:{self.id}"


@dataclass(frozen=True)
class Commitment:
    """What the user committed to, and how it ended."""

    id: str
    next_action: str
    success_condition: str
    timebox_secs: int
    started_at: datetime
    deadline: datetime
    ended_at: datetime | None = None
    outcome: Outcome | None = None
    note: str = ""
    # Time added after the start (extend); timebox_secs stays what was planned.
    extended_secs: int = 0
    # The teeth: "minimize" puts a window away after an ignored nudge; "off" never does.
    enforce: str = "off"
    task: TaskRef | None = None  # picked from the user's task list while planning
    # Pauses: the one in progress (since when) and the whole seconds of those that ended.
    # A pause moves the deadline by its length when it ends; the clock stands still meanwhile.
    paused_at: datetime | None = None
    paused_secs: int = 0
    # What the one write-back to its task recorded ("note" or "done"); None before it.
    written_back: str | None = None
    # Whole seconds with no input for the away_after setting's minutes, on the clock (an
    # absence counted as a pause is paused_secs instead).
    away_secs: int = 0
    # The machine it was made on, when another one (sync): its random id and its name.
    device_id: str | None = None
    device: str | None = None
    # The day's queue item it was started from (Plan it), if any.
    day_item_id: str | None = None

    @classmethod
    def begin(
        cls, cid: str, plan: Plan, at: datetime, task: TaskRef | None, enforce: str = "off"
    ) -> Commitment:
        """A commitment to a plan, starting at `at` (its deadline one timebox later)."""
        return cls(
            id=cid,
            next_action=plan.next_action,
            success_condition=plan.success_condition,
            timebox_secs=plan.timebox_secs,
            started_at=at,
            deadline=at + timedelta(seconds=plan.timebox_secs),
            task=task,
            enforce=enforce,
        )

    def ended(self, at: datetime, outcome: Outcome, note: str) -> Commitment:
        return replace(self, ended_at=at, outcome=outcome, note=note)

    def stopped(self, at: datetime) -> Commitment:
        """The commitment as it stands when it moves to review (early finish or deadline;
        a pause in progress was ended first: timing.resumed)."""
        return replace(self, ended_at=min(max(at, self.started_at), self.deadline))

    @property
    def paused(self) -> bool:
        return self.paused_at is not None

    @property
    def actual_secs(self) -> int:
        """Time taken, whole seconds: start to end (unended: to the deadline) less the pauses.
        An extended or paused commitment's deadline has moved: its end holds the extra time."""
        end = self.ended_at if self.ended_at is not None else self.deadline
        return max(0, whole_secs(self.started_at, end) - self.paused_secs)

    @property
    def total_secs(self) -> int:
        """The timebox as it stands: planned plus extended."""
        return self.timebox_secs + self.extended_secs

    def seconds_left(self, now: datetime) -> int:
        """Never negative, never more than the timebox, whatever `now` says; while paused,
        what was left when the pause began."""
        left = math.ceil((self.deadline - (self.paused_at or now)).total_seconds())
        return min(self.total_secs, max(0, left))

    @property
    def ran_out(self) -> bool:
        """Stopped by its deadline rather than finished by hand."""
        return self.ended_at is not None and self.ended_at >= self.deadline

    def extend(self, minutes: int, now: datetime) -> Commitment:
        """More time: a running deadline moves; a timebox that ran out restarts from now."""
        total = (self.timebox_secs + self.extended_secs) // 60 + minutes
        if total > MAX_MINUTES:
            raise ValidationError(
                f"That would make {total} minutes in all; a commitment runs at most {MAX_MINUTES}.",
                "minutes",
            )
        step = timedelta(minutes=minutes)
        running = self.ended_at is None and self.deadline > (self.paused_at or now)
        return replace(
            self,
            deadline=(self.deadline if running else now) + step,
            ended_at=None,
            extended_secs=self.extended_secs + minutes * 60,
        )


def whole_secs(since: datetime, until: datetime) -> int:
    """Whole seconds from `since` to `until`, never negative."""
    return max(0, round((until - since).total_seconds()))


def times_up(commitment: Commitment) -> tuple[str, str]:
    """The notification when a timebox runs out: it names the next action."""
    return (
        "Time's up · AntiDrift",
        f"{commitment.next_action}\nDone when: {commitment.success_condition}",
    )


@dataclass(frozen=True)
class WindowSample:
    """One observation of which window had focus."""

    app: str
    title: str
    at: datetime
    # AntiDrift's own page, known from the title before it was redacted (a pattern may hide
    # the words that tell). Not stored: a sample read back from the store is not.
    own: bool = False
    # The browser's active tab, when a source knew it (core/sites.py): never incognito, None
    # when the window is private (an exclude pattern matched its title, app, site or URL).
    url: str | None = None
    site: str | None = None


@dataclass(frozen=True)
class Share:
    """Time spent on one app/title during a commitment."""

    app: str
    title: str
    seconds: float
    fraction: float


# -- validation -------------------------------------------------------------------------------


def _text(value: object, field: str, label: str, limit: int = MAX_TEXT) -> str:
    if value is None:
        raise ValidationError(f"{label} is required.", field)
    if not isinstance(value, str):
        raise ValidationError(f"{label} must be text.", field)
    if "\x00" in value:
        raise ValidationError(f"{label} contains a NUL character.", field)
    text = value.strip()
    if not text:
        raise ValidationError(f"{label} is required.", field)
    if len(text) > limit:
        raise ValidationError(
            f"{label} is too long ({len(text)} characters; at most {limit}).", field
        )
    return text


def _plan_text(value: object, field: str, label: str) -> str:
    text = _text(value, field, label)
    if code := first_control(text):
        raise ValidationError(f"{label} has a control character ({code}): use plain text.", field)
    return text


def whole_number(text: str, low: int, high: int, digits: int) -> int | None:
    """text as a whole number of at most `digits` digits within low..high; None otherwise.
    ASCII digits only: str.isdigit() also takes "²", which int() then refuses (a traceback)."""
    if not re.fullmatch(f"[0-9]{{1,{digits}}}", text) or not low <= int(text) <= high:
        return None
    return int(text)


def parse_minutes(value: object) -> int:
    """Minutes from a form string or a JSON number, within 1..480."""
    field, message = (
        "timebox_minutes",
        f"Minutes must be a whole number from {MIN_MINUTES} to {MAX_MINUTES}.",
    )
    if isinstance(value, bool) or value is None:
        raise ValidationError(message, field)
    if isinstance(value, str):
        minutes = whole_number(value.strip(), MIN_MINUTES, MAX_MINUTES, 4)
        if minutes is None:
            raise ValidationError(message, field)
    elif isinstance(value, int):
        minutes = value
    elif isinstance(value, float) and value.is_integer():
        minutes = int(value)
    else:
        raise ValidationError(message, field)
    if not MIN_MINUTES <= minutes <= MAX_MINUTES:
        raise ValidationError(message, field)
    return minutes


def parse_extend_minutes(value: object) -> int:
    """Minutes to add to a commitment: a whole number within 1..120."""
    try:
        minutes = parse_minutes(value)
    except ValidationError:
        minutes = 0
    if not MIN_MINUTES <= minutes <= MAX_EXTEND_MINUTES:
        raise ValidationError(
            f"Add a whole number of minutes from {MIN_MINUTES} to {MAX_EXTEND_MINUTES}.",
            "minutes",
        )
    return minutes


@dataclass(frozen=True)
class Plan:
    """A validated plan, ready to become a commitment."""

    next_action: str
    success_condition: str
    timebox_secs: int


SUCCESS_LABEL = "Done when"  # the page's label: the words people read, never "success condition"


def validate_plan(next_action: object, success_condition: object, timebox_minutes: object) -> Plan:
    """A plan, or one ValidationError naming every field at fault at once."""
    checks = (
        lambda: _plan_text(next_action, "next_action", "Next action"),
        lambda: _plan_text(success_condition, "success_condition", SUCCESS_LABEL),
        lambda: parse_minutes(timebox_minutes) * 60,
    )
    return Plan(*every_check(checks))


def validate_next_action(next_action: object) -> str:
    """A running commitment's new next action: the rules it had at planning."""
    return _plan_text(next_action, "next_action", "Next action")


def validate_success_condition(success_condition: object) -> str:
    """A done-when by the planning rules (a day's item may leave it empty: its caller says)."""
    return _plan_text(success_condition, "success_condition", SUCCESS_LABEL)


def validate_intent(intent: object, label: str = "Your rough intent") -> str:
    """A rough intent in the user's words (Sharpen's, or the day's: `label` names it)."""
    return _text(intent, "intent", label, MAX_INTENT)


def validate_review(outcome: object, note: object) -> tuple[Outcome, str]:
    if outcome not in (Outcome.MET.value, Outcome.MISSED.value):
        raise ValidationError("Choose met or missed.", "outcome")
    if note is None:
        note = ""
    if not isinstance(note, str) or "\x00" in note:
        raise ValidationError("The note must be plain text.", "note")
    note = note.strip()
    if code := first_control(note):  # it reaches the CSV, a task file and `antidrift` lines
        raise ValidationError(f"The note has a control character ({code}): use plain text.", "note")
    if len(note) > MAX_NOTE:
        raise ValidationError(f"The note is too long (at most {MAX_NOTE} characters).", "note")
    return Outcome(outcome), note


def validate_window(app: object, title: object) -> tuple[str, str]:
    """An ingested sample: app required and bounded, title may be empty.

    The title is not cut here: ANTIDRIFT_EVIDENCE_EXCLUDE must see all of it (a private part
    past the cut would let the rest through in clear); the controller redacts, then bounds it.
    """
    app_text = _text(app, "app", "app")
    if title is None:
        title = ""
    if not isinstance(title, str) or "\x00" in title:
        raise ValidationError("title must be text.", "title")
    return app_text, title.strip()


# -- evidence ---------------------------------------------------------------------------------


def valid_text(text: str) -> str:
    """Lone surrogates (a probe's JSON can spell "\\ud800") made U+FFFD: no UTF-8 page, push
    or database can hold them."""
    if text.isascii():
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def redact(title: str, exclude: re.Pattern[str] | None) -> str:
    """Window titles leak private data: a matching title is never stored or sent in clear.

    The one place ANTIDRIFT_EVIDENCE_EXCLUDE is applied (samples, the judge's prompt)."""
    if exclude is not None and exclude.search(title):
        return EXCLUDED_TITLE
    return title


def redact_window(app: str, title: str, exclude: re.Pattern[str] | None) -> tuple[str, str]:
    """A sample's (app, title) as it may be kept or sent: a matching title is hidden, and so
    is a matching app, on its own, with its window's title (a private app's windows are
    private; X11 also names a window without WM_CLASS after its title)."""
    if exclude is not None and exclude.search(app):
        return EXCLUDED_TITLE, EXCLUDED_TITLE
    return app, redact(title, exclude)


def evidence_health(
    last_at: datetime | None, now: datetime, *, sampler_running: bool, since: datetime | None
) -> Health:
    """Healthy: a sample at most 30 s old. Stale: older. Unavailable: none and no sampler."""
    if last_at is not None:
        return Health.HEALTHY if now - last_at <= STALE_AFTER else Health.STALE
    if not sampler_running:
        return Health.UNAVAILABLE
    # The sampler runs but has not reported yet: give it the same grace as a sample.
    if since is not None and now - since <= STALE_AFTER:
        return Health.HEALTHY
    return Health.STALE


def time_shares(samples: Iterable[WindowSample], until: datetime) -> list[Share]:
    """Time per (app, title): each sample counts until the next one, at most a minute."""
    ordered = sorted(samples, key=lambda s: s.at)
    totals: dict[tuple[str, str], float] = {}
    for index, current in enumerate(ordered):
        end = ordered[index + 1].at if index + 1 < len(ordered) else until
        span = min(max(end - current.at, timedelta(0)), MAX_SAMPLE_SPAN)
        if (key := (current.app, current.title)) != AWAY_MARK:  # time away is no window's
            totals[key] = totals.get(key, 0.0) + span.total_seconds()
    whole = sum(totals.values())
    shares = [
        Share(app, title, secs, secs / whole if whole else 0.0)
        for (app, title), secs in totals.items()
    ]
    return sorted(shares, key=lambda s: (-s.seconds, s.app, s.title))


def app_shares(shares: Iterable[Share]) -> list[Share]:
    """The same time, summed per app (title left empty)."""
    per_app: dict[str, float] = {}
    for share in shares:
        per_app[share.app] = per_app.get(share.app, 0.0) + share.seconds
    whole = sum(per_app.values())
    result = [Share(app, "", secs, secs / whole if whole else 0.0) for app, secs in per_app.items()]
    return sorted(result, key=lambda s: (-s.seconds, s.app))
