"""What the drift guard decides about a window, who decided it, and what was sent (pure).

A verdict is one of three answers: a judge that cannot tell says `unclear`, and that is kept
apart from a real verdict (it never opens an episode; the review counts it on its own).
Every verdict carries its source — the judge, the user's answer on the banner, a standing
rule, or title churn (a new title in an app already found off task) — and, when the judge
decided, exactly what went to which backend and what came back, so the review can show it.
The records themselves (Verdict, Source, Exchange, Judgement, Rule) are core/drift_records.py's:
here are the rules' matching and checking, the judge's kept answer and the review's figures.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from antidrift.core.domain import ValidationError
from antidrift.core.drift_records import Judgement, Rule, Verdict
from antidrift.core.sites import site_of

MAX_RULE_APP = 200  # characters of a rule's app name (as a window source reports it)
MAX_RULE_TEXT = 200  # characters of a rule's "title contains" text
MAX_ANSWER_KEPT = 2000  # characters of a judge's raw answer kept for the review
K = TypeVar("K", bound=Hashable)  # a window, however the caller keys it


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
    judged_secs: float = 0.0  # on and off task: what the share is of


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
    return Figures(on / (on + off) if on + off > 0 else None, unclear, on + off)
