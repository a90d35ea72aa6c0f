"""`antidrift <command>`: the table of subcommands. Each is one line; its module does the rest.

To add a command, add a row to COMMANDS naming `wing.module:function` (under antidrift/).
That function takes the command's argparse parser, adds the command's arguments, and
returns the function that runs it (`(argparse.Namespace) -> int`, the exit code). Only the
chosen command's module is imported, so `antidrift status` in a status bar never loads the server.

A refusal (antidrift.core.errors.Error) that leaves a command is mapped here, once: its
sentence on stderr, and exit 2 when the error is the user's to fix (a 4xx), 3 when AntiDrift
could not (a 5xx), or the error's own `exit_code` (the client's 1: no server runs).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata

from antidrift.core.errors import Error
from antidrift.core.terminal import say

Run = Callable[[argparse.Namespace], int]
Setup = Callable[[argparse.ArgumentParser], Run]


@dataclass(frozen=True)
class CliCommand:
    """One subcommand: its name, `module:function` that sets it up, its one-line help."""

    name: str
    target: str
    help: str

    def setup(self, parser: argparse.ArgumentParser) -> Run:
        module, _, function = self.target.partition(":")
        return getattr(importlib.import_module(f"antidrift.{module}"), function)(parser)


COMMANDS: tuple[CliCommand, ...] = (
    CliCommand("serve", "server.serve:serve_command", "run the server (the default)"),
    CliCommand("doctor", "server.serve:doctor_command", "check settings, AI CLIs, window source"),
    CliCommand("backup", "store.backup:backup_command", "copy the database into backups/"),
    CliCommand("restore", "store.restore:restore_command", "put a backup in the database's place"),
    CliCommand("service", "server.service:service_command", "start AntiDrift at login (or not)"),
    CliCommand("status", "cli.remote:status_command", "the commitment in one line (or --follow)"),
    CliCommand("start", "cli.remote:start_command", 'commit: start "ACTION" --done … --minutes N'),
    CliCommand("finish", "cli.remote:finish_command", "finish the running commitment now"),
    CliCommand("extend", "cli.remote:extend_command", "give the commitment N more minutes"),
    CliCommand("end", "cli.remote:end_command", "record the review: end met|missed [--note TEXT]"),
    CliCommand("pause", "cli.remote:pause_command", "pause the running commitment"),
    CliCommand("resume", "cli.remote:resume_command", "resume a paused commitment"),
    CliCommand("back", "cli.remote:back_command", "answer a drift nudge: back to it"),
    CliCommand("on-task", "cli.remote:on_task_command", "answer a drift nudge: this is on task"),
    CliCommand("judge-eval", "cli.judge_eval:setup", "how often the drift judge is right"),
)

DEFAULT = "serve"  # `antidrift [flags]` is `antidrift serve [flags]`


def version() -> str:
    """The installed distribution's version (pyproject's), or 'unknown' from a bare tree."""
    try:
        return metadata.version("antidrift")
    except metadata.PackageNotFoundError:
        return "unknown"


def parser(chosen: str | None = None) -> tuple[argparse.ArgumentParser, Run | None]:
    """The top-level parser; only the chosen command's own arguments are set up."""
    top = argparse.ArgumentParser(prog="antidrift", description="AntiDrift: one thing, on purpose.")
    top.add_argument("--version", action="version", version=f"antidrift {version()}")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run: Run | None = None
    for command in COMMANDS:
        sub_parser = sub.add_parser(command.name, help=command.help, description=command.help)
        if command.name == chosen:
            run = command.setup(sub_parser)
    return top, run


def main(argv: Sequence[str] | None = None) -> int:
    """The `antidrift` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    names = {command.name for command in COMMANDS}
    if not argv or argv[0] not in (*names, "-h", "--help", "--version"):
        argv.insert(0, DEFAULT)
    top, run = parser(argv[0] if argv[0] in names else None)
    args = top.parse_args(argv)
    assert run is not None  # parse_args exits for --help, --version and unknown commands
    try:
        return run(args)
    except Error as exc:
        say(f"antidrift: {exc.message}", err=True)  # escaped: a server's sentence may hold text
        return exit_code(exc)


def exit_code(exc: Error) -> int:
    """The shell's word for a refusal: its own, else 2 (yours to fix) or 3 (ours)."""
    own = getattr(exc, "exit_code", None)
    if isinstance(own, int):
        return own
    return 3 if exc.status >= 500 else 2
