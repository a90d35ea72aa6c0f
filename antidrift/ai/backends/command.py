"""command: any CLI named in ANTIDRIFT_AI_COMMAND (llm, `ollama run …`), split like a shell
and never run by one; the prompt on stdin, the answer on stdout."""

from __future__ import annotations

import shlex
import shutil

from ..errors import CLINotFound, UnknownBackend
from .base import MAX_ANSWER, Asking, Call, Options
from .diagnose import check
from .runner import run_cli, version_of


class CommandBackend(Asking):
    """Any CLI named in ANTIDRIFT_AI_COMMAND: split like a shell, never run by one."""

    name = "command"
    env_var = "ANTIDRIFT_AI_COMMAND"
    tuning = None  # the command names its own model, if any

    def __init__(self, command: str) -> None:
        self.command = command
        self.argv = shlex.split(command)
        if not self.argv or not self.argv[0]:
            raise UnknownBackend(
                "ANTIDRIFT_AI_COMMAND is empty — set it, e.g. to llm -m gpt-4o-mini"
            )

    def args(self, binary: str) -> list[str]:
        """The argv for one call: the resolved program, then the command's own arguments."""
        return [binary, *self.argv[1:]]

    def binary(self) -> str | None:
        """The command's program resolved on the current PATH."""
        return shutil.which(self.argv[0])

    def version(self) -> str | None:
        """`<program> --version`, or None when that fails."""
        return version_of(self.binary(), self.argv[0])

    def ask(self, call: Call) -> str:
        """Run the command with the prompt on stdin; its stdout is the answer (no schema: any
        command may be named, so the prompt alone asks for the JSON)."""
        program = self.argv[0]
        binary = self.binary()
        if binary is None:
            raise CLINotFound(program, "fix ANTIDRIFT_AI_COMMAND")
        result = run_cli(
            self.args(binary),
            call.prompt,
            timeout=call.timeout,
            scope=call.scope,
            max_output=MAX_ANSWER,
            name=program,
        )
        check(program, result, f"log {program} in")
        return result.stdout.strip()


def build(options: Options) -> CommandBackend:
    """The command the settings name; UnknownBackend when there is none or it cannot be split."""
    command = options.ai_command.strip()
    if not command:
        raise UnknownBackend(
            "ANTIDRIFT_AI_BACKEND=command needs ANTIDRIFT_AI_COMMAND, "
            'e.g. ANTIDRIFT_AI_COMMAND="llm -m gpt-4o-mini"'
        )
    try:
        return CommandBackend(command)
    except UnknownBackend:
        raise
    except ValueError as err:  # shlex: unbalanced quotes
        raise UnknownBackend(f"ANTIDRIFT_AI_COMMAND cannot be split: {err}") from err
