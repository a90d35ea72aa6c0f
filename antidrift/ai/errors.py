"""Coach errors: each message is a short sentence a person can act on, never raw CLI output."""

from __future__ import annotations

from antidrift.core.errors import Error


class CoachError(Error):
    """A coach failure whose message is fit to show on the page (503: the coach could not)."""

    status = 503
    default_message = "the coach failed"

    def __init__(self, message: str | None = None) -> None:
        self.message = message or self.default_message
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


class EmptyResponse(CoachError):
    """The CLI answered with nothing."""

    default_message = "the coach returned an empty answer — try again"


class NoJSON(CoachError):
    """The answer held no JSON object."""

    default_message = "the coach's answer held no proposal — try again"


class InvalidProposal(CoachError):
    """The JSON object is not a usable proposal."""

    default_message = "the coach's answer is not a usable proposal — try again"


class CLINotFound(CoachError):
    """The CLI binary is not installed (or the override points nowhere)."""

    def __init__(self, cli: str = "claude", fix: str | None = None) -> None:
        self.cli = cli
        fix = fix or f"set ANTIDRIFT_{cli.upper()}_BIN"
        super().__init__(f"{cli} is not installed — install it, or {fix}")


class CLINotLoggedIn(CoachError):
    """The CLI runs but has no login."""

    def __init__(self, cli: str = "claude", fix: str | None = None) -> None:
        self.cli = cli
        fix = fix or f"run {cli} once in a terminal"
        super().__init__(f"{cli} is not logged in — {fix}")


class CLIOffline(CoachError):
    """The CLI runs but cannot reach its service (no network, DNS, a firewall)."""

    def __init__(self, cli: str = "claude") -> None:
        self.cli = cli
        super().__init__(f"{cli} can't reach its service — check your connection")


class CLINoKey(CoachError):
    """The CLI has no API key to call its model with (llm: "No key found")."""

    def __init__(self, cli: str = "llm", provider: str | None = None) -> None:
        self.cli = cli
        if provider:
            how = f"set one by running: llm keys set {provider}"
        elif cli == "llm":
            how = "set one by running, e.g.: llm keys set openai"
        else:
            how = f"set the key {cli} needs"
        super().__init__(f"{cli} has no API key — {how}")


def _seconds(seconds: float) -> str:
    return f"{seconds:g} s"


class CLITimeout(CoachError):
    """The CLI did not finish within the timeout; its process group was killed."""

    def __init__(self, seconds: float = 60.0) -> None:
        self.seconds = seconds
        super().__init__(f"the coach took longer than {_seconds(seconds)}")


class CLIFailed(CoachError):
    """The CLI exited non-zero (or could not be started); raw stderr goes to the log only."""

    def __init__(self, cli: str = "cli", returncode: int | None = None) -> None:
        self.cli = cli
        self.returncode = returncode
        if returncode is None:
            message = f"{cli} could not be started"
        elif returncode < 0:
            message = f"{cli} was killed by signal {-returncode}"
        else:
            message = f"{cli} failed (exit code {returncode})"
        super().__init__(message)


class OutputTooLarge(CoachError):
    """The CLI wrote more than the byte cap; its process group was killed."""

    def __init__(self, cli: str = "cli", limit: int = 1 << 20) -> None:
        self.cli = cli
        self.limit = limit
        super().__init__(f"{cli} wrote more than {_size(limit)} — its answer was dropped")


def _size(n: int) -> str:
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return f"{n >> 10} KiB"
    return f"{n} bytes"


class ServiceDown(CoachError):
    """Nothing answers at a model server's address (an HTTP backend)."""

    def __init__(self, name: str = "server", url: str = "") -> None:
        self.name, self.url = name, url
        super().__init__(f"{name} is not answering{' at ' + url if url else ''} — is it running?")


class ServiceFailed(CoachError):
    """A model server answered with an error status, or with no JSON; the body goes to the
    log only. `upstream` is the model server's HTTP status; `status` stays ours (503)."""

    def __init__(self, name: str = "server", status: int | None = None) -> None:
        self.name, self.upstream = name, status
        what = f"an error (HTTP {status})" if status is not None else "something that is not JSON"
        super().__init__(f"{name} answered {what}")


class Cancelled(CoachError):
    """The call was cancelled (superseded, abandoned or server shutdown)."""

    default_message = "the coach was cancelled"


class UnknownBackend(Error, ValueError):
    """ANTIDRIFT_AI_BACKEND names no backend, or the command backend has no command."""
