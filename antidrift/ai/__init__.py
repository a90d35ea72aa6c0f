"""The AI roles (coach, drift judge) and their backends (backends/: one module each and one
table): import nothing of the app but its subprocess seam."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from antidrift.process import CancelScope

if TYPE_CHECKING:
    from . import warm
    from .backends import (
        BACKENDS,
        Backend,
        BackendTuning,
        Options,
        new_backend,
        served,
        tuning_for,
    )
    from .backends.claude import CLAUDE_ARGS, ClaudeBackend
    from .backends.codex import CODEX_ARGS, CodexBackend
    from .backends.command import CommandBackend
    from .backends.runner import run_cli
    from .coach import (
        NO_PLAN,
        PROPOSAL_SCHEMA,
        Coach,
        PastCommitment,
        Proposal,
        Service,
        build_prompt,
        extract_json,
        parse_proposal,
    )
    from .errors import (
        Cancelled,
        CLIFailed,
        CLINoKey,
        CLINotFound,
        CLINotLoggedIn,
        CLIOffline,
        CLITimeout,
        CoachError,
        EmptyResponse,
        InvalidProposal,
        NoJSON,
        OutputTooLarge,
        ServiceDown,
        ServiceFailed,
        UnknownBackend,
    )
    from .judge import (
        Judge,
        JudgeError,
        JudgeService,
        JudgeVerdict,
        build_judge_prompt,
        parse_verdict,
    )

# The names above are each module's, loaded at their first use (PEP 562): the settings check
# that every start runs reads only the backends' table, never a coach, a judge or a backend
# the settings do not name (issue 40: the footprint).
_REGISTRY = frozenset(
    {"BACKENDS", "Backend", "BackendTuning", "Options", "new_backend", "served", "tuning_for"}
)
_COACH = frozenset(
    {
        "NO_PLAN",
        "PROPOSAL_SCHEMA",
        "Coach",
        "PastCommitment",
        "Proposal",
        "Service",
        "build_prompt",
        "extract_json",
        "parse_proposal",
    }
)
_ERRORS = frozenset(
    {
        "Cancelled",
        "CLIFailed",
        "CLINoKey",
        "CLINotFound",
        "CLINotLoggedIn",
        "CLIOffline",
        "CLITimeout",
        "CoachError",
        "EmptyResponse",
        "InvalidProposal",
        "NoJSON",
        "OutputTooLarge",
        "ServiceDown",
        "ServiceFailed",
        "UnknownBackend",
    }
)
_JUDGE = frozenset(
    {"Judge", "JudgeError", "JudgeService", "JudgeVerdict", "build_judge_prompt", "parse_verdict"}
)


def __getattr__(name: str) -> Any:
    if name == "warm":  # the module itself (imported so, not by `from . import`: that asks here)
        import antidrift.ai.warm as warm_module

        value: Any = warm_module
    else:
        value = getattr(_module_of(name), name)
    globals()[name] = value
    return value


def _module_of(name: str) -> Any:
    if name in _REGISTRY:
        from . import backends as module
    elif name in _COACH:
        from . import coach as module
    elif name in _ERRORS:
        from . import errors as module
    elif name in _JUDGE:
        from . import judge as module
    elif name in ("CLAUDE_ARGS", "ClaudeBackend"):
        from .backends import claude as module
    elif name in ("CODEX_ARGS", "CodexBackend"):
        from .backends import codex as module
    elif name == "CommandBackend":
        from .backends import command as module
    elif name == "run_cli":
        from .backends import runner as module
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return module


__all__ = [
    "BACKENDS",
    "NO_PLAN",
    "CLAUDE_ARGS",
    "CODEX_ARGS",
    "Backend",
    "CLIFailed",
    "CLINoKey",
    "CLINotFound",
    "CLINotLoggedIn",
    "CLIOffline",
    "CLITimeout",
    "CancelScope",
    "Cancelled",
    "ClaudeBackend",
    "Coach",
    "CoachError",
    "CodexBackend",
    "CommandBackend",
    "EmptyResponse",
    "InvalidProposal",
    "Judge",
    "JudgeError",
    "JudgeService",
    "NoJSON",
    "Options",
    "OutputTooLarge",
    "PROPOSAL_SCHEMA",
    "PastCommitment",
    "Proposal",
    "Service",
    "ServiceDown",
    "ServiceFailed",
    "BackendTuning",
    "UnknownBackend",
    "JudgeVerdict",
    "build_judge_prompt",
    "build_prompt",
    "extract_json",
    "new_backend",
    "parse_proposal",
    "parse_verdict",
    "served",
    "run_cli",
    "tuning_for",
    "warm",
]
