"""Sites (pure): what of a URL is kept, what the judge is sent, the exclude pattern on a
site, standing rules for a site and its subdomains, and churn keyed by site in a browser."""

from __future__ import annotations

import re
import time

import pytest

from antidrift.ai.judge import build_judge_prompt
from antidrift.core.domain import EXCLUDED_TITLE, ValidationError
from antidrift.core.drift_records import Rule, Source, Verdict
from antidrift.core.sites import kept_url, redact_page, site_of, validate_url
from antidrift.drift.policy import DriftStatus
from antidrift.drift.verdicts import validate_rule
from antidrift.settings.kinds import PrivatePattern
from tests.support.drift_policy import Harness, ScriptedAnswers

VIDEO = "https://www.YouTube.com/watch?v=dQw4w9WgXcQ&t=42#comments"


def test_the_site_is_the_host_lower_case_without_www():
    assert site_of(VIDEO) == "youtube.com"
    assert site_of("http://user:pw@Docs.Python.org:8080/3/") == "docs.python.org"
    assert site_of("https://wwwhat.example/") == "wwwhat.example"
    for none in ("about:blank", "file:///home/me/notes.html", "javascript:alert(1)", "", None):
        assert site_of(none) is None


def test_a_kept_url_has_no_password_fragment_or_unknown_scheme():
    # No user info, fragment or query: a query carries tokens and searches (issue 41).
    assert kept_url("https://me:secret@example.org/a?b=1#frag") == "https://example.org/a"
    assert kept_url("https://example.org/reset?token=s3cr3t") == "https://example.org/reset"
    assert kept_url("data:text/html,hello") is None
    assert validate_url("") is None
    with pytest.raises(ValidationError, match="url must be text"):
        validate_url(["https://example.org/"])


def test_the_exclude_pattern_matches_the_site_and_hides_the_page():
    private = PrivatePattern(r"bank\.example|secret")
    shown = redact_page("firefox", "Accounts", "https://my.bank.example/acc?id=9", private)
    assert shown == ("firefox", EXCLUDED_TITLE, None, None)
    # A private title hides its page's URL and site with it.
    shown = redact_page("firefox", "my secret plan", "https://docs.example/x", private)
    assert shown == ("firefox", EXCLUDED_TITLE, None, None)
    # A private path hides the page too (the pattern sees the URL as kept).
    shown = redact_page("firefox", "Notes", "https://docs.example/secret/1", private)
    assert shown == ("firefox", EXCLUDED_TITLE, None, None)
    shown = redact_page("firefox", "Docs", "https://docs.example/x", private)
    assert shown == ("firefox", "Docs", "https://docs.example/x", "docs.example")


def test_the_judge_is_sent_the_site_and_never_a_path_query_or_fragment():
    prompt = build_judge_prompt("Fix the bug", "tests pass", "firefox", "A video", "youtube.com")
    assert 'SITE: "youtube.com"' in prompt
    # Whatever a caller lets through, the prompt holds the host alone.
    leaky = build_judge_prompt("x", "y", "firefox", "t", "https://u:p@youtube.com/watch?v=1#c")
    assert 'SITE: "youtube.com"' in leaky
    assert not any(part in leaky for part in ("watch", "v=1", "#c", "u:p"))
    assert "SITE" not in build_judge_prompt("x", "y", "code", "main.py")


def test_a_site_rule_is_validated_and_keeps_the_host_alone():
    assert validate_rule(None, None, "off_task", "https://www.YouTube.com/watch?v=1") == (
        "",
        "",
        Verdict.OFF_TASK,
        "youtube.com",
    )
    assert validate_rule("firefox", "", "on_task", "docs.python.org")[3] == "docs.python.org"
    with pytest.raises(ValidationError) as caught:
        validate_rule(None, None, "off_task", "not a host")
    assert caught.value.fields == ("site",)
    with pytest.raises(ValidationError) as caught:
        validate_rule(None, None, "off_task", None)
    assert caught.value.fields == ("app",)


def test_a_site_rule_decides_the_site_and_its_subdomains_with_no_judge_call():
    off = Rule(1, "", "", Verdict.OFF_TASK, "youtube.com")
    assert off.matches("firefox", "x", "m.youtube.com") and off.matches(
        "chrome", "y", "youtube.com"
    )
    assert not off.matches("firefox", "x", "notyoutube.com")
    assert not off.matches("firefox", "x", None)
    assert off.describe() == "youtube.com is always off task"
    h = Harness(ScriptedAnswers({}, auto=False), rules=[off])
    h.focus(("firefox", "Any video", "m.youtube.com"))
    assert h.judge.calls == [] and h.status is DriftStatus.DRIFTING
    assert h.policy.decision(h.policy.current).source is Source.RULE
    h.focus(("firefox", "A video", "notyoutube.com"))
    assert len(h.judge.calls) == 1  # not the rule's site: the judge is asked
    assert h.judge.calls[0].site == "notyoutube.com"


def test_a_site_rule_beats_a_rule_for_the_whole_browser():
    browser = Rule(1, "firefox", "", Verdict.ON_TASK)
    site = Rule(2, "", "", Verdict.OFF_TASK, "youtube.com")
    h = Harness(ScriptedAnswers({}, auto=False), rules=[site, browser])
    h.focus(("firefox", "A video", "youtube.com"))
    assert h.status is DriftStatus.DRIFTING
    h.focus(("firefox", "Docs", "docs.python.org"))
    assert h.status is DriftStatus.ON_TASK


def test_a_private_page_is_judged_by_the_app_alone_and_sends_no_site():
    h = Harness(ScriptedAnswers({}, auto=False), exclude=re.compile("bank", re.I))
    h.focus(("firefox", EXCLUDED_TITLE, None))  # as the controller stores a private page
    assert h.judge.calls[0].title is None and h.judge.calls[0].site is None


@pytest.mark.parametrize(
    ("pattern", "sent"),
    [
        ("mybank", ("firefox", None, None)),  # the site: neither it nor the title goes
        ("Account", ("firefox", None, None)),  # the title: its site goes with it
        ("firefox", (EXCLUDED_TITLE, None, None)),  # the app: not even its name
        ("nothing-here", ("firefox", "Account overview", "mybank.com")),
    ],
)
def test_a_pattern_saved_while_a_page_is_in_focus_applies_to_the_next_call(pattern, sent):
    """The page in focus was recorded under the old pattern (in clear), and the guard asks
    about it again after a pause or a changed next action: the Settings page's promise is
    that a matching page is never sent from the moment the pattern is saved."""
    h = Harness(ScriptedAnswers({}, auto=False), exclude=re.compile(pattern, re.I))
    h.focus(("firefox", "Account overview", "mybank.com"))  # the last sample, as it was kept
    [call] = h.judge.calls
    assert (call.app, call.title, call.site) == sent


ANSWERS = {("firefox", "Video A"): False, ("firefox", "Video B"): False}


def test_a_new_title_on_a_site_found_off_task_counts_off_task_at_once():
    h = Harness(ScriptedAnswers(dict(ANSWERS), auto=False), grace=60)
    h.focus(("firefox", "Video A", "youtube.com"))
    h.release()
    assert h.status is DriftStatus.DRIFTING
    h.wait(10, ("firefox", "Video A", "youtube.com"))
    h.focus(("firefox", "Video B", "youtube.com"))
    decided = h.policy.decision(h.policy.current)
    assert decided.source is Source.CHURN and "a new page on youtube.com" in decided.reason
    assert h.status is DriftStatus.DRIFTING


def test_a_new_site_in_the_same_browser_waits_for_its_verdict():
    # The hourly cap is spent on the video: the docs are never judged. Keyed by the browser,
    # churn would count them off task and nudge; keyed by site they wait, and no one is nudged.
    h = Harness(ScriptedAnswers(dict(ANSWERS)), grace=60, max_calls=1)
    h.focus(("firefox", "Video A", "youtube.com"))
    assert h.status is DriftStatus.DRIFTING
    h.wait(10, ("firefox", "Video A", "youtube.com"))
    h.focus(("firefox", "re — Python docs", "docs.python.org"))
    assert h.policy.decision(h.policy.current) is None
    h.wait(600, ("firefox", "re — Python docs", "docs.python.org"))
    assert h.nudges == [] and h.status is DriftStatus.UNKNOWN


def test_without_a_site_churn_is_keyed_by_the_app_as_before():
    h = Harness(ScriptedAnswers(dict(ANSWERS)), grace=60, max_calls=1)
    h.focus(("firefox", "Video A"))
    h.wait(10, ("firefox", "Video A"))
    h.focus(("firefox", "re — Python docs"))
    assert h.policy.decision(h.policy.current).source is Source.CHURN


def test_a_host_that_mixes_scripts_is_kept_and_shown_as_punycode():
    """A Cyrillic "а" in "apple.com" looks like the real site; a browser shows it as
    punycode, and so does AntiDrift, in the site and the URL alike (issue 41)."""
    assert site_of("https://www.\u0430pple.com/x") == "xn--pple-43d.com"
    assert kept_url("https://\u0430pple.com:8443/x?q=1") == "https://xn--pple-43d.com:8443/x"
    # One script per label, or Latin with Han, Hiragana or Katakana, stays as it is written.
    assert site_of("https://münchen.de/") == "münchen.de"
    assert site_of("https://яндекс.рф/") == "яндекс.рф"
    assert site_of("https://例えtest.jp/") == "例えtest.jp"
    assert site_of("https://xn--80ak6aa92e.com/") == "xn--80ak6aa92e.com"


def test_the_exclude_pattern_sees_the_query_that_is_never_kept():
    """A pattern may name a search (`search\\?q=`): it is matched before the query goes."""
    private = re.compile(r"search\?q=")
    search = "https://www.google.com/search?q=my+diagnosis"
    assert redact_page("firefox", "my diagnosis - Google Search", search, private) == (
        "firefox", "(excluded)", None, None,
    )  # fmt: skip
    kept = redact_page("firefox", "Docs", "https://docs.python.org/x?highlight=1#a", None)
    assert kept == ("firefox", "Docs", "https://docs.python.org/x", "docs.python.org")


def test_a_host_longer_than_dns_allows_is_no_site_and_costs_nothing():
    """A 20,000-character host of two scripts took 67 s of punycode; no host is that long."""
    host = "".join("\u4e00\u0430"[i % 2] for i in range(20_000))
    began = time.monotonic()
    assert validate_url(f"https://{host}.com/") is None and site_of(f"https://{host}/") is None
    assert time.monotonic() - began < 0.5
    assert site_of("https://" + "a" * 64 + ".com/") is None
