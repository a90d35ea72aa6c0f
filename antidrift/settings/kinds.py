"""What one setting accepts: parse a text (an environment value, a form field) or say so.

Each kind has `accepted` (the words a refusal ends with), `parse(text)` (the typed value, or
ValueError) and `show(value)` (the JSON the Settings page and the saved file hold).
"""

from __future__ import annotations

import logging
import math
import re
import shlex
from dataclasses import dataclass
from datetime import time
from pathlib import Path
from urllib.parse import urlsplit

from antidrift import calendar, tasks
from antidrift.core.loopback import is_loopback

log = logging.getLogger("antidrift")
ON = ("1", "on", "yes", "true")
_DECIMAL = re.compile(r"(?:[0-9]{1,30}(?:\.[0-9]{0,30})?|\.[0-9]{1,30})(?:[eE][+-]?[0-9]{1,3})?")
OFF = ("0", "off", "no", "false")


@dataclass(frozen=True)
class Choice:
    """One name of a closed set (case and surrounding spaces do not matter)."""

    names: tuple[str, ...]

    @property
    def accepted(self) -> str:
        return "one of " + ", ".join(self.names)

    def parse(self, text: str) -> str:
        value = text.strip().lower()
        if value not in self.names:
            raise ValueError(self.accepted)
        return value

    def show(self, value: str) -> str:
        return value


@dataclass(frozen=True)
class Number:
    """A number within low..high: whole, or seconds (finite; `above` makes low exclusive)."""

    low: float
    high: float
    whole: bool = False
    above: bool = False

    @property
    def accepted(self) -> str:
        if self.whole:
            return f"a whole number from {self.low:g} to {self.high:g}"
        if self.above:
            return f"a number of seconds more than {self.low:g}, at most {self.high:g}"
        return f"a number of seconds from {self.low:g} to {self.high:g}"

    def parse(self, text: str) -> int | float:
        text = text.strip()
        if self.whole:
            # ASCII digits only: int() takes "٣" and "²" is a digit to str.isdigit().
            if not re.fullmatch(r"[0-9]{1,9}", text):
                raise ValueError(self.accepted)
            value: float = int(text)
        else:
            # ASCII too: float() takes "١٢" and "1_0"; what the page and the log show must be
            # the number that runs.
            if not _DECIMAL.fullmatch(text):
                raise ValueError(self.accepted)
            value = float(text)
        if not math.isfinite(value) or not self.low <= value <= self.high:
            raise ValueError(self.accepted)
        if self.above and value <= self.low:
            raise ValueError(self.accepted)
        return value

    def show(self, value: int | float) -> int | float:
        return value


@dataclass(frozen=True)
class TimeOfDay:
    """A time of day, HH:MM on the 24-hour clock (09:30, 18:00)."""

    accepted = "a time of day as HH:MM, e.g. 18:00"

    def parse(self, text: str) -> time:
        match = re.fullmatch(r"([01][0-9]|2[0-3]):([0-5][0-9])", text.strip())
        if match is None:
            raise ValueError(self.accepted)
        return time(int(match[1]), int(match[2]))

    def show(self, value: time) -> str:
        return f"{value.hour:02d}:{value.minute:02d}"


@dataclass(frozen=True)
class Flag:
    """On or off."""

    accepted = "on or off (1/0, yes/no, true/false also do)"

    def parse(self, text: str) -> bool:
        value = text.strip().lower()
        if value not in ON + OFF:
            raise ValueError(self.accepted)
        return value in ON

    def show(self, value: bool) -> bool:
        return value


@dataclass(frozen=True)
class Text:
    """Free text, or text that must match `pattern` (empty always allowed)."""

    accepted: str = "any text"
    pattern: str | None = None

    def parse(self, text: str) -> str:
        value = text.strip()
        if value and self.pattern and not re.fullmatch(self.pattern, value):
            raise ValueError(self.accepted)
        return value

    def show(self, value: str) -> str:
        return value


@dataclass(frozen=True)
class Model:
    """A model name: one argv word (a leading dash could read as a flag), or `default`."""

    accepted = "a model name (letters, digits and . _ : / @ -), or default"

    def parse(self, text: str) -> str:
        value = text.strip()
        if value.lower() == "default":
            return "default"
        if value and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._:/@\[\]-]{0,99}", value):
            raise ValueError(self.accepted)
        return value

    def show(self, value: str) -> str:
        return value


@dataclass(frozen=True)
class Command:
    """A command line, split like a shell would (never run through one)."""

    example: str

    @property
    def accepted(self) -> str:
        return f"a command line whose quotes are balanced, e.g. {self.example}"

    def parse(self, text: str) -> str:
        # A NUL cannot be in an argument (exec refuses it: a failed notification, not a
        # sentence); other control characters only hide what runs.
        if any(c != "\t" and (c < " " or c == "\x7f") for c in text.strip()):
            raise ValueError(f"{self.accepted}, and no control characters")
        try:
            shlex.split(text)
        except ValueError:
            raise ValueError(self.accepted) from None
        return text.strip()

    def show(self, value: str) -> str:
        return value


# One search of the private-title pattern may take this long; a title it has not decided by
# then is taken as private. A sample is searched at most three times (app, title, the judge's
# key): the controller's lock waits 0.15 s at worst, not the 4.7 s `(a+)+$` took.
MATCH_SECONDS = 0.05
MAX_ALTERNATIVES = 500


class PrivatePattern:
    """The private-title pattern, compiled by `regex` so that every search is bounded in
    time: a pattern that backtracks (`(a+)+$`) on a crafted title cannot freeze the app.
    `search(text)` is true when the text is private (it matched, or could not be decided)."""

    __slots__ = ("_compiled", "_said", "pattern")

    def __init__(self, pattern: str) -> None:
        import regex  # here, not at every start: most users set no pattern (issue 33: memory)

        self.pattern = pattern
        self._compiled = regex.compile(pattern, regex.IGNORECASE | regex.VERSION0)
        self._said = False

    def search(self, text: str) -> bool:
        try:
            # concurrent: the search lets go of the GIL, so the server's other threads run on.
            found = self._compiled.search(text, timeout=MATCH_SECONDS, concurrent=True)
            return found is not None
        except TimeoutError:
            if not self._said:  # said once: the same title comes back every few seconds
                self._said = True
                log.warning(
                    "the private-title pattern took over %.2f s on a window title, which was"
                    " taken as private; a simpler pattern decides every title",
                    MATCH_SECONDS,
                )
            return True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PrivatePattern) and other.pattern == self.pattern

    def __hash__(self) -> int:
        return hash(self.pattern)

    def __repr__(self) -> str:
        return f"PrivatePattern({self.pattern!r})"


@dataclass(frozen=True)
class Pattern:
    """A regular expression (case-insensitive), at most MAX_ALTERNATIVES; empty means none."""

    accepted = "a valid regular expression, e.g. bank|private"

    def parse(self, text: str) -> PrivatePattern | None:
        if not text.strip():
            return None
        if text.count("|") >= MAX_ALTERNATIVES:
            raise ValueError(f"{self.accepted} (at most {MAX_ALTERNATIVES} alternatives)")
        import regex

        try:
            return PrivatePattern(text)
        except (regex.error, RecursionError, OverflowError, ValueError) as exc:
            raise ValueError(f"{self.accepted} ({exc})") from None

    def show(self, value: PrivatePattern | None) -> str:
        return value.pattern if value is not None else ""


@dataclass(frozen=True)
class Url:
    """An http(s) URL with no login and no query; `loopback` also requires a loopback host."""

    example: str
    loopback: bool = False

    @property
    def accepted(self) -> str:
        where = "on this machine (localhost or 127.0.0.1) " if self.loopback else ""
        return f"an http URL {where}with no user, password, query or fragment, e.g. {self.example}"

    def parse(self, text: str) -> str:
        url = text.strip().rstrip("/")
        if not url:
            return ""
        # urlsplit quietly drops tabs and newlines and keeps spaces; http.client refuses all
        # of them at the first request: a worker that fails to boot, not a sentence.
        if not url.isprintable() or any(c.isspace() for c in url):
            raise ValueError(self.accepted)
        try:
            parts = urlsplit(url)
            parts.port  # noqa: B018 — a port that is no number raises here
        except ValueError:
            raise ValueError(self.accepted) from None
        # No login: a password in this URL would reach the log.
        if parts.username is not None or parts.password is not None:
            raise ValueError(self.accepted)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.query:
            raise ValueError(self.accepted)
        if "#" in url:  # a fragment is never sent: the URL in force would not be the one shown
            raise ValueError(self.accepted)
        if self.loopback and not is_loopback(parts.hostname):
            raise ValueError(self.accepted)
        return url

    def show(self, value: str) -> str:
        return value


@dataclass(frozen=True)
class Names:
    """A comma list of host names."""

    accepted = "host names separated by commas, e.g. antidrift.local,laptop"

    def parse(self, text: str) -> tuple[str, ...]:
        names = tuple(n.strip().lower() for n in text.split(",") if n.strip())
        if any(not re.fullmatch(r"[a-z0-9._:\[\]-]{1,253}", n) for n in names):
            raise ValueError(self.accepted)
        return names

    def show(self, value: tuple[str, ...]) -> str:
        return ",".join(value)


@dataclass(frozen=True)
class Tasks:
    """A comma list of task sources (antidrift/tasks/registry.py, the one list of them and
    the one reader of their syntax): taskwarrior, github, markdown:<path>, todotxt:<path>."""

    @property
    def accepted(self) -> str:
        return f"task sources separated by commas: {', '.join(tasks.forms())}"

    def parse(self, text: str) -> tuple[str, ...]:
        try:
            return tuple(str(spec) for spec in tasks.parse(text))
        except ValueError as exc:
            raise ValueError(f"{self.accepted} ({exc})") from None

    def show(self, value: tuple[str, ...]) -> str:
        return ",".join(value)


@dataclass(frozen=True)
class Calendars:
    """A comma list of calendars (antidrift/calendar/sources.py reads the syntax): .ics
    files and https:// addresses."""

    @property
    def accepted(self) -> str:
        return f"calendars separated by commas: {' or '.join(calendar.FORMS)}"

    def parse(self, text: str) -> tuple[str, ...]:
        try:
            return tuple(str(source) for source in calendar.parse(text))
        except ValueError as exc:
            raise ValueError(f"{self.accepted} ({exc})") from None

    def show(self, value: tuple[str, ...]) -> str:
        return ",".join(value)

    def told(self, value: tuple[str, ...]) -> str:
        """As a report prints it (doctor): an address by its host alone, never its path,
        where a secret iCal address carries its key."""
        return ",".join(calendar.named(item) for item in value)

    def quoted(self, raw: object) -> str:
        """A refused value as a message quotes it, its addresses by their hosts alone (a
        settings.json may hold a list of them)."""
        parts = raw.split(",") if isinstance(raw, str) else raw
        if not isinstance(parts, list):
            return repr(raw) if isinstance(raw, bool | int | float | None) else "(a value)"
        named = (calendar.named(p.strip()) if isinstance(p, str) else "(a value)" for p in parts)
        return repr(",".join(named))


@dataclass(frozen=True)
class Folder:
    """A directory path (~ expanded); `optional`: empty is None (the setting is off)."""

    optional: bool = False

    @property
    def accepted(self) -> str:
        return "a directory path, or nothing" if self.optional else "a directory path"

    def parse(self, text: str) -> Path | None:
        if self.optional and not text.strip():
            return None
        if not text.strip() or "\0" in text:
            raise ValueError(self.accepted)
        try:
            return Path(text.strip()).expanduser()
        except RuntimeError:  # "~someone" who is no user here
            raise ValueError(self.accepted) from None

    def show(self, value: Path | None) -> str:
        return "" if value is None else str(value)


def as_text(value: object, kind: object = None) -> str:
    """A JSON or form value as the text `kind` parses; TypeError for objects, null, and lists
    for a kind that is no list."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, int | float):
        return repr(value)
    many = isinstance(kind, Names | Tasks | Calendars)
    if many and isinstance(value, list) and all(isinstance(v, str) for v in value):
        return ",".join(value)  # a list setting (tasks, hosts) sent as a JSON list
    raise TypeError("a text, a number or true/false")
