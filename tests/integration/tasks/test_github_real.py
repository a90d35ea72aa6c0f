"""The real `gh` (Debian gh 2.23.0) against a loopback stand-in of the GitHub REST API: the
listing, the comment, and what a logged-out, refused, hanging or flooding GitHub looks like.
No request leaves the machine: every proxy variable points at a refused loopback port."""

from __future__ import annotations

import time

import pytest

from antidrift.tasks import Board, SourceError, Task
from antidrift.tasks.github import GitHubSource
from tests.support.github_standin import TOKEN, issue
from tests.support.real_cli import isolated_env
from tests.support.timing import assert_within


def test_assigned_open_issues_become_tasks_and_pull_requests_do_not(github):
    github.behaviour.issues = [
        issue(7, "Fix the login page"),
        issue(8, "A pull request", pull_request={"url": "x"}),
        issue(9, "Write the docs", repo="octo/site"),
    ]
    tasks = GitHubSource(github.env).tasks()
    assert [(t.id, t.title, t.url) for t in tasks] == [
        ("octo/app#7", "Fix the login page", "https://github.example/octo/app/issues/7"),
        ("octo/site#9", "Write the docs", "https://github.example/octo/site/issues/9"),
    ]
    (request,) = github.requests
    assert request.method == "GET"
    assert request.path.startswith("/api/v3/issues?")
    assert {"filter=assigned", "state=open"} <= set(request.path.split("?")[1].split("&"))
    assert request.authorization == f"token {TOKEN}"


def test_a_comment_is_posted_to_the_issue_with_the_text_as_it_is(github):
    text = '@/etc/passwd AntiDrift: met — fix {owner} "quoted" (25 min)'
    said = GitHubSource(github.env).write_back(Task("github", "octo/app#7", "x"), text, False)
    (request,) = github.requests
    assert (request.method, request.path) == ("POST", "/api/v3/repos/octo/app/issues/7/comments")
    assert request.body == {"body": text}
    assert said == "Added a comment to the issue on GitHub."


def test_closing_an_issue_is_not_offered(github):
    source = GitHubSource(github.env)
    assert source.actions == frozenset({"note"})
    with pytest.raises(SourceError, match="does not close GitHub issues"):
        source.write_back(Task("github", "octo/app#7", "x"), "met", True)
    assert github.requests == []


def test_a_revoked_login_is_one_sentence(github):
    github.behaviour.status = 401
    with pytest.raises(SourceError, match="^GitHub refused gh's login: run gh auth login"):
        GitHubSource(github.env).tasks()


def test_an_http_error_names_githubs_message(github):
    github.behaviour.status = 404
    with pytest.raises(SourceError, match=r"^GitHub: Not Found \(HTTP 404\)$"):
        GitHubSource(github.env).write_back(Task("github", "octo/gone#1", "x"), "met", False)


def test_no_login_at_all_is_one_sentence_before_any_request(tmp_path, github):
    # github.com with no token: gh stops before it sends anything (exit 4); the proxy
    # variables point at a refused port, so even a request would not leave the machine.
    env = isolated_env(tmp_path / "nobody", github.dead_port)
    for name in ("GH_HOST", "GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN"):
        env.pop(name, None)
    env["GH_CONFIG_DIR"] = str(tmp_path / "nobody" / "gh")
    with pytest.raises(SourceError, match="^GitHub CLI is not logged in: run gh auth login"):
        GitHubSource(env).tasks()


def test_a_github_that_never_answers_is_one_line_within_the_deadline(github):
    github.behaviour.hang = True
    board = Board(lambda: [GitHubSource(github.env, timeout=1.0)], deadline=2.0)
    started = time.monotonic()
    listing = board.listing()
    assert listing.tasks == ()
    assert listing.problems == ("GitHub did not answer within 1 s.",)
    assert_within(time.monotonic() - started, 2.0, "the listing")


def test_a_flood_is_cut_off(github):
    github.behaviour.flood = 1500  # gh's --jq projection then prints 1.5 MiB
    with pytest.raises(SourceError, match="^GitHub printed more than 1024 KiB"):
        GitHubSource(github.env).tasks()
