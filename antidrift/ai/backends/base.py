"""What every backend is: the Backend protocol, the tuning it asks for, and the settings
it is built from. Backends do blocking I/O (a subprocess, an HTTP request) on the caller's
thread; the caller bounds it with a timeout and may cut it short with a CancelScope."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from antidrift.process import CancelScope

DEFAULT_EFFORT = "low"
MAX_ANSWER = 1 << 20  # bytes read of an answer (a CLI's stdout, codex's -o file, an HTTP body)


@dataclass(frozen=True)
class BackendTuning:
    """The model and reasoning effort a coach call asks for; None leaves the CLI's choice."""

    model: str | None = None
    effort: str | None = DEFAULT_EFFORT

    def __str__(self) -> str:
        model = self.model or "default model"
        effort = f"{self.effort} effort" if self.effort else "default effort"
        return f"{model}, {effort}"


def tuning_for(model: str, effort: str, default_model: str | None) -> BackendTuning:
    """The tuning for settings already validated: an empty model is the backend's usual one,
    `default` (model or effort) leaves the CLI its own choice."""
    chosen = default_model if not model else None if model == "default" else model
    return BackendTuning(chosen, None if effort == "default" else effort or DEFAULT_EFFORT)


class Backend(Protocol):
    """One way to reach an LLM: prompt in, raw answer text out."""

    name: str
    env_var: str  # the setting a person changes to point it elsewhere (named in hints)
    tuning: (
        BackendTuning | None
    )  # the model and effort asked for; None where there are no such knobs

    def run(
        self,
        prompt: str,
        *,
        timeout: float,
        scope: CancelScope | None = None,
        schema: Mapping[str, object] | None = None,
    ) -> str:
        """Send prompt, return the raw answer; raise a CoachError on failure, within timeout
        seconds. `schema`: the JSON schema the answer must follow, for a backend that can
        hold the model to one (claude --json-schema, an HTTP API's format); others ignore
        it. A cancelled `scope` ends the call as Cancelled: a process is attached to it (the
        seam does that), other work registers with scope.stopping()."""
        ...

    def binary(self) -> str | None:
        """Where it is reached: the resolved executable (an HTTP backend: its URL); None when
        it is not there. Cheap: the page asks it."""
        ...

    def version(self) -> str | None:
        """Its version (`<bin> --version`, a server's version call), or None."""
        ...


@dataclass(frozen=True)
class Call:
    """One Backend.run as a backend here takes it: the prompt, the seconds it may take, the
    scope that may cut it short, the JSON schema the answer must follow (None: any)."""

    prompt: str
    timeout: float
    scope: CancelScope | None = None
    schema: Mapping[str, object] | None = None


class Asking:
    """What the backends here share: Backend.run, which hands its arguments to `ask` as one
    Call. A backend writes `ask` (a fake in a test may write `run` alone)."""

    def run(
        self,
        prompt: str,
        *,
        timeout: float,
        scope: CancelScope | None = None,
        schema: Mapping[str, object] | None = None,
    ) -> str:
        return self.ask(Call(prompt, timeout, scope, schema))

    def ask(self, call: Call) -> str:
        """The answer to one call (Backend.run says the rest)."""
        raise NotImplementedError


@dataclass(frozen=True)
class Options:
    """The settings backends are built from, named as antidrift.settings names them; each
    backend reads only its own. A backend that needs another setting adds its field here."""

    ai_model: str = ""
    ai_effort: str = DEFAULT_EFFORT
    ai_command: str = ""
    ai_warm: bool = False
    claude_bin: str = ""
    codex_bin: str = ""
    ai_url: str = ""
    ai_key: str = field(default="", repr=False)

    @classmethod
    def of(cls, settings: object) -> Options:
        """The backends' settings out of the app's Settings (any object with these names)."""
        return cls(**{f.name: getattr(settings, f.name) for f in dataclasses.fields(cls)})


def schema_text(schema: Mapping[str, object]) -> str:
    """A JSON schema as one compact argv word (or file)."""
    return json.dumps(schema, separators=(",", ":"), ensure_ascii=False)
