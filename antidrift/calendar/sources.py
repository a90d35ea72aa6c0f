"""The `calendar` setting: a comma list of .ics files and https:// URLs (the one reader of
its syntax; settings/kinds.py and the keeper both use it)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

FORMS = ("a path to an .ics file", "an https:// address")


@dataclass(frozen=True)
class CalendarSource:
    """One calendar: a local file (`path`) or an address fetched over https (`url`)."""

    text: str  # as the setting spells it
    url: str = ""
    path: Path | None = None

    @property
    def label(self) -> str:
        """How a message names it: the file's name, or the address's host (never its path:
        a secret iCal address carries its key there)."""
        if self.path is not None:
            return self.path.name
        return urlsplit(self.url).hostname or "?"

    def __str__(self) -> str:
        return self.text


def named(item: str) -> str:
    """A calendar as a message or a report may name it: an address by its scheme and host
    alone (a secret iCal address carries its key in the path; a refusal, a log line or a
    pasted doctor report must not hand it out), a file by its path."""
    if "://" not in item and not item.lower().startswith(("http:", "https:", "webcal:")):
        return item
    try:  # "https:/host/key…" (a slash short) is an address too, with no host to name
        parts = urlsplit(item)
        host = parts.hostname
    except ValueError:
        host = None
    return f"{parts.scheme}://{host}/…" if host else "(an address)"


def parse(text: str) -> tuple[CalendarSource, ...]:
    """Each calendar the setting names, in order; ValueError with the reason for one that
    is neither."""
    found: list[CalendarSource] = []
    for part in text.split(","):
        item = part.strip()
        if not item:
            continue
        if "\0" in item or not item.isprintable():
            raise ValueError(f"{named(item)!r} has characters no path or address has")
        if "://" in item or item.lower().startswith(("http:", "https:", "webcal:")):
            found.append(_url(item))
        else:
            path = Path(item).expanduser()
            if path.suffix.lower() != ".ics":
                raise ValueError(f"{item} is not an .ics file")
            found.append(CalendarSource(item, path=path))
    if len({s.text for s in found}) != len(found):
        raise ValueError("a calendar is named twice")
    return tuple(found)


def _url(item: str) -> CalendarSource:
    try:
        parts = urlsplit(item)
        parts.port  # noqa: B018 — a port that is no number raises here
    except ValueError:
        raise ValueError(f"{named(item)} is not an address") from None
    if parts.scheme.lower() != "https":
        raise ValueError("only https:// addresses are fetched (not http:// or webcal://)")
    if not parts.hostname or any(c.isspace() for c in item):
        raise ValueError("an https:// address needs a host and no spaces")
    if parts.username is not None or parts.password is not None:
        raise ValueError("an address with a user or password in it would reach the log")
    return CalendarSource(item, url=item)
