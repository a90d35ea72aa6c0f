"""The AI roles (coach, drift judge): import nothing of the app but its subprocess seam."""

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
from .judge import (
    Judge,
    JudgeError,
    JudgeService,
    Verdict,
    build_judge_prompt,
    parse_verdict,
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
    "Judge",
    "JudgeError",
    "JudgeService",
    "NoJSON",
    "OutputTooLarge",
    "Proposal",
    "Service",
    "UnknownBackend",
    "Verdict",
    "build_judge_prompt",
    "build_prompt",
    "extract_json",
    "new_backend",
    "parse_proposal",
    "parse_verdict",
    "run_cli",
]
