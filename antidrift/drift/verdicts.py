"""What the drift guard decides about a window, who decided it, and what was sent (pure).

A verdict is one of three answers: a judge that cannot tell says `unclear`, and that is kept
apart from a real verdict (it never opens an episode; the review counts it on its own).
Every verdict carries its source — the judge, the user's answer on the banner, a standing
rule, or title churn (a new title in an app already found off task) — and, when the judge
decided, exactly what went to which backend and what came back, so the review can show it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

from antidrift.core.domain import EXCLUDED_TITLE, ValidationError
from antidrift.core.sites import on_site, site_of

MAX_RULE_APP = 200  # characters of a rule's app name (as a window source reports it)
MAX_RULE_TEXT = 200  # characters of a rule's "title contains" text
MAX_ANSWER_KEPT = 2000  # characters of a judge's raw answer kept for the review
K = TypeVar("K", bound=Hashable)  # a window, however the caller keys it


class Verdict(StrEnum):
    ON_TASK = "on_task"
    OFF_TASK = "off_task"
    UNCLEAR = "unclear"


class Source(StrEnum):
    """Who decided: the judge, the user (banner), a standing rule, or title churn."""

    JUDGE = "judge"
    YOU = "you"
    RULE = "rule"
    CHURN = "churn"


@dataclass(frozen=True)
class Exchange:
    """One judge call as it went out and came back: the review's "what was sent"."""

    backend: str  # e.g. "ollama (llama3.2)", "claude"
    app: str
    title: str | None  # None: the title is private and was not sent (the app alone was)
    answer: str | None  # the backend's answer text, as received (bounded); None: none came
    site: str | None = None  # the page's host, when one was sent (never its path)


@dataclass(frozen=True)
class Judgement:
    """A verdict on one window for one commitment, its reason, who decided, what was sent."""

    verdict: Verdict
    reason: str
    source: Source = Source.JUDGE
    exchange: Exchange | None = None  # set when a judge call decided it

    @property
    def on_task(self) -> bool:
        return self.verdict is Verdict.ON_TASK

    @property
    def off_task(self) -> bool:
        return self.verdict is Verdict.OFF_TASK


@dataclass(frozen=True)
class Rule:
    """A standing rule: windows of `app` (whose title contains the text, if any), or pages on
    `site` and its subdomains, are always on or off task, in every commitment, with no judge
    call."""

    id: int
    app: str  # "" with a site: every browser
    title_contains: str
    verdict: Verdict
    site: str = ""

    def matches(self, app: str, title: str, site: str | None = None) -> bool:
        """App names match whole and without case; the text anywhere in the title, without
        case; a site itself or any of its subdomains. A private title (already the
        placeholder) never matches a text rule."""
        if self.site and not on_site(site, self.site):
            return False
        if self.app and app.casefold() != self.app.casefold():
            return False
        if not self.title_contains:
            return True
        if title == EXCLUDED_TITLE:
            return False
        return self.title_contains.casefold() in title.casefold()

    @property
    def specificity(self) -> tuple[int, int, int, int]:
        # A rule about some titles beats one about a site (the deeper the subdomain, the
        # more specific), which beats one about the whole app; the newer wins a tie.
        depth = self.site.count(".") + 1 if self.site else 0
        return (1 if self.title_contains else 0, depth, len(self.title_contains), self.id)

    def describe(self) -> str:
        """How the page and the review name the rule: "firefox is always on task"."""
        what = " on ".join(part for part in (self.app, self.site) if part)
        if self.title_contains:
            what = f"{what} «{self.title_contains}»"
        return f"{what} is always {self.verdict.value.replace('_', ' ')}"

    def judgement(self) -> Judgement:
        return Judgement(self.verdict, f"your rule: {self.describe()}", Source.RULE)


def matching_rule(
    rules: tuple[Rule, ...], app: str, title: str, site: str | None = None
) -> Rule | None:
    """The most specific rule that matches the window, or None."""
    found = [r for r in rules if r.matches(app, title, site)]
    return max(found, key=lambda r: r.specificity) if found else None


def validate_rule(
    app: object, title_contains: object, verdict: object, site: object = None
) -> tuple[str, str, Verdict, str]:
    """A rule as posted: an app or a site (or both), text optional, verdict on_task or
    off_task. A site may be given as a URL: only its host is kept."""
    problems: list[tuple[str, str]] = []
    app_text = app.strip() if isinstance(app, str) else ""
    site_text = _rule_site(site, problems)
    if not app_text and not site_text and not any(p[0] == "site" for p in problems):
        problems.append(("app", "Name the app or the site the rule is about."))
    elif len(app_text) > MAX_RULE_APP or not app_text.isprintable():
        problems.append(
            ("app", f"The app name must be at most {MAX_RULE_APP} printable characters.")
        )
    if title_contains is None:
        text = ""
    elif isinstance(title_contains, str):
        text = title_contains.strip()
        if len(text) > MAX_RULE_TEXT or not text.isprintable():
            problems.append(
                (
                    "title_contains",
                    f"The title text must be at most {MAX_RULE_TEXT} printable characters.",
                )
            )
    else:
        text = ""
        problems.append(("title_contains", "The title text must be text."))
    if verdict not in (Verdict.ON_TASK.value, Verdict.OFF_TASK.value):
        problems.append(("verdict", "A rule says on_task or off_task."))
    if problems:
        message = " ".join(p[1] for p in problems)
        raise ValidationError(message, problems[0][0], tuple(p[0] for p in problems))
    return app_text, text, Verdict(verdict), site_text


# Dot-separated labels of letters, digits, '-' and '_': a host a page can be on ("*.x.com"
# or "x.com," would be kept as a rule that never matches).
_HOST = re.compile(r"[\w-]+(?:\.[\w-]+)+")


def _rule_site(site: object, problems: list[tuple[str, str]]) -> str:
    """A rule's site: "YouTube.com", "www.youtube.com" and "https://youtube.com/x" are all
    "youtube.com"; "" when none was given."""
    if site is None or (isinstance(site, str) and not site.strip()):
        return ""
    text = site.strip() if isinstance(site, str) else ""
    host = site_of(text if "://" in text else f"https://{text}") if text else None
    if host is None or len(host) > MAX_RULE_APP or not _HOST.fullmatch(host):
        problems.append(
            ("site", "The site must be a host name, e.g. youtube.com (its subdomains count too).")
        )
        return ""
    return host


def kept_answer(text: str) -> str:
    """A judge's raw answer as stored for the review: bounded, one string."""
    return text if len(text) <= MAX_ANSWER_KEPT else text[: MAX_ANSWER_KEPT - 1] + "…"


@dataclass(frozen=True)
class Figures:
    """A commitment's judged time: the on-task share of on/off time, and unclear time apart."""

    on_task_share: float | None  # 0–1, None without time judged on or off task
    unclear_secs: float


def figures(
    seconds_by_window: Mapping[K, float], decide: Callable[[K], Judgement | None]
) -> Figures:
    """The review's figures from each window's time and what decided it."""
    on = off = unclear = 0.0
    for window, seconds in seconds_by_window.items():
        decided = decide(window)
        if decided is None:
            continue
        if decided.verdict is Verdict.ON_TASK:
            on += seconds
        elif decided.verdict is Verdict.OFF_TASK:
            off += seconds
        else:
            unclear += seconds
    return Figures(on / (on + off) if on + off > 0 else None, unclear)
