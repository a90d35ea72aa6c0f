"""The AI roles (the planning coach): imports nothing of the app but its subprocess seam."""

from antidrift.process import CancelScope

from .backend import (
    BACKEND_NAMES,
    CLAUDE_ARGS,
    CODEX_ARGS,
    Backend,
    ClaudeBackend,
    CodexBackend,
    CommandBackend,
    new_backend,
    run_cli,
)
from .coach import Coach, Proposal, Service, build_prompt, extract_json, parse_proposal
from .errors import (
    Cancelled,
    CLIFailed,
    CLINotFound,
    CLINotLoggedIn,
    CLITimeout,
    CoachError,
    EmptyResponse,
    InvalidProposal,
    NoJSON,
    OutputTooLarge,
    UnknownBackend,
)

__all__ = [
    "BACKEND_NAMES",
    "CLAUDE_ARGS",
    "CODEX_ARGS",
    "Backend",
    "CLIFailed",
    "CLINotFound",
    "CLINotLoggedIn",
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
    "NoJSON",
    "OutputTooLarge",
    "Proposal",
    "Service",
    "UnknownBackend",
    "build_prompt",
    "extract_json",
    "new_backend",
    "parse_proposal",
    "run_cli",
]
