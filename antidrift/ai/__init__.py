"""The AI planning coach: a leaf package that imports nothing else of the app."""

from .backend import (
    BACKEND_NAMES,
    CLAUDE_ARGS,
    CODEX_ARGS,
    Backend,
    ClaudeBackend,
    CodexBackend,
    CommandBackend,
    new_backend,
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
from .process import CancelScope, CLIResult, kill_all_running, run_cli

__all__ = [
    "BACKEND_NAMES",
    "CLAUDE_ARGS",
    "CODEX_ARGS",
    "Backend",
    "CLIFailed",
    "CLINotFound",
    "CLINotLoggedIn",
    "CLIResult",
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
    "kill_all_running",
    "new_backend",
    "parse_proposal",
    "run_cli",
]
