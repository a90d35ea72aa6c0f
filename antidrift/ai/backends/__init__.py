"""AI backends: one module each, and BACKENDS below, the one table that lists them.

A backend's module holds a class that follows base.Backend and a `build(options)` that makes
it from the settings (base.Options), raising UnknownBackend when a setting it needs is
missing. Adding one is that module, its builder here (which imports it) and one line in
BACKENDS: the settings' accepted ANTIDRIFT_AI_BACKEND words, new_backend and `doctor` read
this table. A backend here is a base.Asking (it writes `ask`); a CLI backend runs through
runner.run_cli (the subprocess seam) and diagnose.check; an HTTP backend is an
http.HttpBackend (through http.post_json)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import UnknownBackend
from .base import (
    DEFAULT_EFFORT,
    MAX_ANSWER,
    Backend,
    BackendTuning,
    Options,
    schema_text,
    tuning_for,
)


def installed(backend: Backend) -> bool:
    """Whether its program is on PATH (or its server's address is set): cheap, no call."""
    return backend.binary() is not None


def answers(backend: Backend) -> bool:
    """Whether its server tells its version (one bounded request to this machine's server)."""
    return backend.version() is not None


@dataclass(frozen=True)
class BackendEntry:
    """One backend in the table: how it is built, and whether it can answer on this machine
    (doctor asks; it may look for a program or ask a local server, never a model)."""

    build: Callable[[Options], Backend]
    available: Callable[[Backend], bool] = installed
    served: bool = False  # asks a model server at ai_url (else it runs a program)


# Each backend's module is imported when a backend is built, not with the table: the
# settings check at every start reads only the names, and a server loads the one backend its
# settings name (issue 40: the footprint).
def _claude(options: Options) -> Backend:
    from . import claude

    return claude.build(options)


def _codex(options: Options) -> Backend:
    from . import codex

    return codex.build(options)


def _command(options: Options) -> Backend:
    from . import command

    return command.build(options)


def _ollama(options: Options) -> Backend:
    from . import ollama

    return ollama.build(options)


def _openai(options: Options) -> Backend:
    from . import openai

    return openai.build(options)


BACKENDS: dict[str, BackendEntry] = {
    "claude": BackendEntry(_claude, installed),
    "codex": BackendEntry(_codex, installed),
    "command": BackendEntry(_command, installed),
    "ollama": BackendEntry(_ollama, answers, served=True),
    "openai": BackendEntry(_openai, installed, served=True),
}
DEFAULT = "claude"  # what an empty ANTIDRIFT_AI_BACKEND means


def names() -> tuple[str, ...]:
    """The accepted backend names, in the table's order."""
    return tuple(BACKENDS)


def served() -> tuple[str, ...]:
    """The backends that ask a model server at ai_url: where that setting applies."""
    return tuple(name for name, entry in BACKENDS.items() if entry.served)


def new_backend(name: str, options: Options | None = None) -> Backend:
    """The backend `name` names ("" means the default), built from the settings; UnknownBackend
    for a name with no backend, or one whose settings lack what it needs."""
    key = (name or "").strip().lower() or DEFAULT
    entry = BACKENDS.get(key)
    if entry is None:
        raise UnknownBackend(
            f"unknown ANTIDRIFT_AI_BACKEND {name!r} — use one of: {', '.join(names())}"
        )
    return entry.build(options or Options())


__all__ = [
    "BACKENDS",
    "DEFAULT",
    "DEFAULT_EFFORT",
    "MAX_ANSWER",
    "Backend",
    "BackendEntry",
    "Options",
    "BackendTuning",
    "installed",
    "names",
    "new_backend",
    "schema_text",
    "tuning_for",
]
