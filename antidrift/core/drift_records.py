"""The drift guard's records, as the store keeps them and the persistence port names them
(pure): a focused window as keyed, a verdict on it and who decided it (with what was sent
when the judge did), a standing rule, and a drift episode with the user's answer.

The drift wing decides with them (drift/policy.py, drift/verdicts.py, drift/window_key.py);
they live here, below every wing, so that core/ports.py names them without importing upward.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from antidrift.core.domain import EXCLUDED_TITLE
from antidrift.core.sites import on_site


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


class Answer(StrEnum):
    """The user's answer to a drift banner."""

    BACK = "back"
    ON_TASK = "on_task"


@dataclass(frozen=True)
class Window:
    """A focused window as stored (an excluded title is already the placeholder). `site`: a
    browser tab's host (core/sites.py), "" for none; it rides along with the key and is not
    part of it (a verdict is kept per app and title), so churn and rules can ask for it."""

    app: str
    title: str
    site: str = field(default="", compare=False)


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

    id: str  # random text, made once: one rule on every machine (sync)
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


@dataclass(frozen=True)
class Episode:
    """A drift episode: from the switch away to focus back on the task (or an answer)."""

    number: int
    started_at: datetime
    nudged_at: datetime
    app: str
    title: str
    reason: str
    ended_at: datetime | None = None
    answer: Answer | None = None
    enforced_at: datetime | None = None  # the teeth put its window away then
    enforce_note: str | None = None  # how (or, enforced_at None, why they could not)
    site: str = ""  # the page's site, for the banner's rule (not stored)

    def seconds(self, now: datetime) -> float:
        return max(0.0, ((self.ended_at or now) - self.started_at).total_seconds())
