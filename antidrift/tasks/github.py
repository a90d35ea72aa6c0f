"""GitHub issues assigned to the user, through their own logged-in `gh` CLI (AntiDrift holds
no token; gh uses the user's login and GH_HOST).

Verified against Debian's gh 2.23.0 (tests/integration/tasks/test_github_real.py and
docs/CLI-VERIFIED.md), run against a loopback stand-in of the REST API:

* `gh api --method GET /issues -f filter=assigned -f state=open …` sends the fields as a
  query string: `GET /api/v3/issues?filter=assigned&state=open…` on an enterprise host.
  `/issues` lists the authenticated user's assigned issues across every repository (pull
  requests too: they carry a `pull_request` key and are dropped).
* `--jq` runs gh's built-in jq (no jq binary needed) and keeps four fields, so a long list
  of issue bodies never reaches us.
* A comment is `gh api --method POST /repos/O/R/issues/N/comments -f body=TEXT`; `-f` sends
  TEXT as a raw string (a body starting with `@` is not read from a file) as JSON
  `{"body": TEXT}`.
* Not logged in (no token for github.com): exit 4, "To get started with GitHub CLI, please run:
  gh auth login", before any request. A revoked token: exit 1, stderr
  "gh: Bad credentials (HTTP 401)"; any HTTP error is "gh: <message> (HTTP <status>)" on
  stderr (the body goes to stdout and is ignored).
* Pointing gh at a stand-in: `GH_HOST=127.0.0.1:<port>` makes it an enterprise host (REST
  under `https://127.0.0.1:<port>/api/v3/`), `GH_ENTERPRISE_TOKEN` is its token (`GH_TOKEN`
  is only for github.com: the request goes out without one), and `SSL_CERT_FILE` makes Go
  trust a self-signed certificate for 127.0.0.1 (without it: "x509: certificate signed by
  unknown authority").
* `GH_PROMPT_DISABLED=1`, `GH_NO_UPDATE_NOTIFIER=1` and `NO_COLOR=1` are added to the user's
  environment: no prompt, no release check, no colour.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping

from antidrift.tasks.source import (
    CLI_TIMEOUT,
    NOTE,
    Gone,
    SourceError,
    Task,
    clean_title,
    first_line,
    run_cli,
)

LABEL = "GitHub"
LIMIT = 10
NOT_LOGGED_IN = 4  # gh's exit status when it has no login at all
QUIET = {"GH_PROMPT_DISABLED": "1", "GH_NO_UPDATE_NOTIFIER": "1", "NO_COLOR": "1"}
LIST = [
    "api",
    "--method",
    "GET",
    "/issues",
    "-f",
    "filter=assigned",
    "-f",
    "state=open",
    "-f",
    "sort=updated",
    "-f",
    "per_page=30",
    "--jq",
    "[.[] | select(.pull_request == null)"
    " | {number, title, url: .html_url, repo: .repository.full_name}]",
]
# owner/name#number, as GitHub spells them: the id goes into an API path, so nothing else.
_ID = re.compile(r"([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))/([A-Za-z0-9._-]{1,100})#([0-9]{1,12})")


def _failure(result) -> SourceError:
    detail = first_line(result)
    if result.returncode == NOT_LOGGED_IN or "gh auth login" in detail:
        return SourceError("GitHub CLI is not logged in: run gh auth login in a terminal.")
    if "(HTTP 401)" in detail:
        return SourceError("GitHub refused gh's login: run gh auth login in a terminal.")
    return SourceError(f"GitHub: {detail.removeprefix('gh: ')}")


def _valid_id(task_id: str) -> re.Match | None:
    match = _ID.fullmatch(task_id)
    return match if match and match.group(2) not in (".", "..") else None


def parse_issues(text: str, limit: int = LIMIT) -> list[Task]:
    """The --jq projection → tasks, most recently updated first (as GitHub sorted them)."""
    try:
        rows = json.loads(text)
    except (ValueError, RecursionError):
        raise SourceError("GitHub CLI printed something that is not JSON.") from None
    if not isinstance(rows, list):
        raise SourceError("GitHub CLI's answer is not a list of issues.")
    tasks = []
    for row in rows:
        if not isinstance(row, dict):
            continue
        number, repo, url = row.get("number"), row.get("repo"), row.get("url")
        task_id = f"{repo}#{number}"
        title = clean_title(row.get("title"))
        if type(number) is not int or not isinstance(repo, str) or not _valid_id(task_id):
            continue
        if not (isinstance(url, str) and url.startswith(("https://", "http://"))):
            url = None
        if title:
            tasks.append(Task("github", task_id, title, url))
        if len(tasks) == limit:
            break
    return tasks


class GitHubSource:
    """Issues assigned to the user, through `gh` with the user's own login."""

    kind = "github"
    label = LABEL
    actions = frozenset({NOTE})  # a comment; closing an issue is left to the user

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        program: str = "gh",
        timeout: float = CLI_TIMEOUT,
    ) -> None:
        self._env = {**(os.environ if env is None else env), **QUIET}
        self._program = program
        self._timeout = timeout

    def _run(self, *args: str) -> str:
        result = run_cli([self._program, *args], label=LABEL, env=self._env, timeout=self._timeout)
        if result.returncode != 0:
            raise _failure(result)
        return result.stdout

    def tasks(self) -> list[Task]:
        return parse_issues(self._run(*LIST))

    def owns(self, task_id: str) -> bool:
        return _valid_id(task_id) is not None

    def current(self, task: Task) -> Task | None:
        return task  # a look-up would be a network call; a closed issue still takes a comment

    def write_back(self, task: Task, text: str, done: bool) -> str:
        match = _valid_id(task.id)
        if match is None:
            raise Gone("That is not a GitHub issue.")
        if done:
            raise SourceError("AntiDrift does not close GitHub issues: add a comment instead.")
        owner, repo, number = match.groups()
        endpoint = f"/repos/{owner}/{repo}/issues/{number}/comments"
        self._run("api", "--method", "POST", endpoint, "-f", f"body={text}")
        return "Added a comment to the issue on GitHub."
