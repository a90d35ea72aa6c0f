"""`antidrift <command>`: the table of subcommands, the topmost layer (it may import every wing).

To add a command, add a setup function that imports its module inside it (a plain import,
never a name in a string: lint-imports sees it) and a row to COMMANDS naming it. The setup
takes the command's argparse parser, adds the command's arguments, and returns the function
that runs it (`(argparse.Namespace) -> int`, the exit code). Only the chosen command's setup
runs, so only its module is imported: `antidrift status` in a status bar never loads the server.

A refusal (antidrift.core.errors.Error) that leaves a command is mapped here, once: its
sentence on stderr, and exit 2 when the error is the user's to fix (a 4xx), 3 when AntiDrift
could not (a 5xx), or the error's own `exit_code` (the client's 1: no server runs).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from antidrift.core.errors import Error
from antidrift.core.release import version
from antidrift.core.terminal import say

Run = Callable[[argparse.Namespace], int]
Setup = Callable[[argparse.ArgumentParser], Run]


@dataclass(frozen=True)
class CliCommand:
    """One subcommand: its name, the function that sets it up, its one-line help."""

    name: str
    setup: Setup
    help: str


# Each setup imports its own module when (and only when) its command was chosen.
def _serve(parser: argparse.ArgumentParser) -> Run:
    from antidrift.server.serve import serve_command

    return serve_command(parser)


def _doctor(parser: argparse.ArgumentParser) -> Run:
    from antidrift.server.serve import doctor_command

    return doctor_command(parser)


def _backup(parser: argparse.ArgumentParser) -> Run:
    from antidrift.store.backup import backup_command

    return backup_command(parser)


def _restore(parser: argparse.ArgumentParser) -> Run:
    from antidrift.store.restore import restore_command

    return restore_command(parser)


def _service(parser: argparse.ArgumentParser) -> Run:
    from antidrift.server.service import service_command

    return service_command(parser)


def _sync(parser: argparse.ArgumentParser) -> Run:
    from antidrift.cli.sync import sync_command

    return sync_command(parser)


def _status(parser: argparse.ArgumentParser) -> Run:
    from antidrift.cli.remote import status_command

    return status_command(parser)


def _start(parser: argparse.ArgumentParser) -> Run:
    from antidrift.cli.remote import start_command

    return start_command(parser)


def _finish(parser: argparse.ArgumentParser) -> Run:
    from antidrift.cli.remote import finish_command

    return finish_command(parser)


def _extend(parser: argparse.ArgumentParser) -> Run:
    from antidrift.cli.remote import extend_command

    return extend_command(parser)


def _end(parser: argparse.ArgumentParser) -> Run:
    from antidrift.cli.remote import end_command

    return end_command(parser)


def _pause(parser: argparse.ArgumentParser) -> Run:
    from antidrift.cli.remote import pause_command

    return pause_command(parser)


def _resume(parser: argparse.ArgumentParser) -> Run:
    from antidrift.cli.remote import resume_command

    return resume_command(parser)


def _back(parser: argparse.ArgumentParser) -> Run:
    from antidrift.cli.remote import back_command

    return back_command(parser)


def _on_task(parser: argparse.ArgumentParser) -> Run:
    from antidrift.cli.remote import on_task_command

    return on_task_command(parser)


def _day(parser: argparse.ArgumentParser) -> Run:
    from antidrift.cli.remote import day_command

    return day_command(parser)


def _judge_eval(parser: argparse.ArgumentParser) -> Run:
    from antidrift.cli.judge_eval import setup

    return setup(parser)


COMMANDS: tuple[CliCommand, ...] = (
    CliCommand("serve", _serve, "run the server (the default)"),
    CliCommand("doctor", _doctor, "check settings, AI CLIs, window source"),
    CliCommand("backup", _backup, "copy the database into backups/"),
    CliCommand("restore", _restore, "put a backup in the database's place"),
    CliCommand("service", _service, "start AntiDrift at login (or not)"),
    CliCommand("status", _status, "the commitment in one line (or --follow)"),
    CliCommand("start", _start, 'commit: start "ACTION" --done … --minutes N'),
    CliCommand("finish", _finish, "finish the running commitment now"),
    CliCommand("extend", _extend, "give the commitment N more minutes"),
    CliCommand("end", _end, "record the review: end met|missed [--note TEXT]"),
    CliCommand("pause", _pause, "pause the running commitment"),
    CliCommand("resume", _resume, "resume a paused commitment"),
    CliCommand("back", _back, "answer a drift nudge: back to it"),
    CliCommand("on-task", _on_task, "answer a drift nudge: this is on task"),
    CliCommand("day", _day, 'the day\'s queue; day add "ACTION" --done … --minutes N'),
    CliCommand("judge-eval", _judge_eval, "how often the drift judge is right"),
    CliCommand("sync", _sync, "the sync folder: join (the passphrase), new-id, status"),
)

DEFAULT = "serve"  # `antidrift [flags]` is `antidrift serve [flags]`


class _Version(argparse.Action):
    """`--version`, the installed distribution's asked only then: not at every start (it reads
    the installed packages' metadata, in the arbiter the worker is forked from)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        say(f"antidrift {version()}")
        parser.exit()


def parser(chosen: str | None = None) -> tuple[argparse.ArgumentParser, Run | None]:
    """The top-level parser; only the chosen command's own arguments are set up."""
    top = argparse.ArgumentParser(prog="antidrift", description="AntiDrift: one thing, on purpose.")
    top.add_argument("--version", action=_Version, help="show program's version number and exit")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run: Run | None = None
    for command in COMMANDS:
        sub_parser = sub.add_parser(command.name, help=command.help, description=command.help)
        if command.name == chosen:
            run = command.setup(sub_parser)
    return top, run


def main(argv: Sequence[str] | None = None) -> int:
    """The `antidrift` console script (and `python -m antidrift`)."""
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
