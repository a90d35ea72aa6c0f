"""What a CLI's output means when it failed: offline, no key, logged out, or just failed.
Raw output goes to the log (trimmed), never to the page: each outcome is a CoachError whose
sentence a person can act on."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from antidrift.process import Result

from ..errors import CLIFailed, CLINoKey, CLINotLoggedIn, CLIOffline

log = logging.getLogger("antidrift.ai")

_LOG_LIMIT = 4000  # raw output in the log is trimmed; it is for diagnosis, not archiving

# What a CLI prints when it cannot reach its service (claude 2.1.332, on stdout): DNS failing
# ("… check your internet or DNS (EAI_AGAIN)") or the connection refused ("… (ECONNREFUSED)").
_OFFLINE_MARKERS = ("api error: can't reach the api server", "api error: connection refused")
# llm 0.36 without a key: "Error: No key found - add one using 'llm keys set openai' or set
# the OPENAI_API_KEY environment variable" on stderr, exit 1.
_NO_KEY_MARKER = "no key found"
_LLM_KEYS_SET = re.compile(r"llm keys set ([A-Za-z0-9][A-Za-z0-9._-]{0,40})")

# What logged-out (or de-authorised) CLIs print; matched only when the exit code is non-zero.
_LOGGED_OUT_MARKERS = (
    "not logged in",
    "please run /login",
    "invalid api key",
    "oauth token revoked",
    "oauth token has expired",
    "failed to authenticate",
    "401 unauthorized",
    "missing bearer",
)


def trim(text: str) -> str:
    """Raw output cut to a size fit for one log line."""
    return text if len(text) <= _LOG_LIMIT else text[:_LOG_LIMIT] + "…[trimmed]"


def check(
    name: str, result: Result, login_fix: str, probe: Callable[[], bool] | None = None
) -> None:
    """Raise for a non-zero exit (even with text on stdout), logging the raw output.
    `probe`: asked last, whether the CLI is logged out when its output does not say so."""
    if result.returncode == 0:
        log.debug("%s: ok. stdout: %s stderr: %s", name, trim(result.stdout), trim(result.stderr))
        return
    log.warning(
        "%s: exit code %d. stdout: %s stderr: %s",
        name,
        result.returncode,
        trim(result.stdout),
        trim(result.stderr),
    )
    text = f"{result.stdout}\n{result.stderr}".lower()
    if any(marker in text for marker in _OFFLINE_MARKERS):
        raise CLIOffline(name)
    if _NO_KEY_MARKER in text:
        found = _LLM_KEYS_SET.search(f"{result.stdout}\n{result.stderr}")
        raise CLINoKey(name, found.group(1) if found else None)
    if any(marker in text for marker in _LOGGED_OUT_MARKERS) or (probe is not None and probe()):
        raise CLINotLoggedIn(name, login_fix)
    raise CLIFailed(name, result.returncode)
