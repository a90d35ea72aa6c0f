"""The AI roles (coach, drift judge) and their backends (backends/: one module each and one
table): import nothing of the app but its subprocess seam."""

from antidrift.process import CancelScope

from . import warm
from .backends import BACKENDS, Backend, BackendTuning, Options, new_backend, served, tuning_for
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
