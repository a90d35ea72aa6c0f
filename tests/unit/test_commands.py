"""The `antidrift` command table: one row per subcommand, `--version`, serve by default."""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from antidrift.server import commands

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())


def test_version_prints_the_version_pyproject_gives():
    result = subprocess.run(
        [sys.executable, "-m", "antidrift", "--version"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"antidrift {PYPROJECT['project']['version']}"


def test_the_release_is_0_6_on_its_way():
    assert PYPROJECT["project"]["version"] == "0.6.0.dev0"  # CHANGELOG.md: 0.6.0, unreleased
    assert PYPROJECT["project"]["scripts"]["antidrift"] == "antidrift.server.commands:main"


@pytest.mark.parametrize("command", commands.COMMANDS, ids=lambda c: c.name)
def test_every_row_sets_up_a_command_that_runs(command):
    parser = argparse.ArgumentParser(prog=f"antidrift {command.name}")
    run = command.setup(parser)
    assert callable(run), f"{command.setup.__name__} must return the function that runs it"


def test_names_are_unique_and_help_fits_one_line():
    names = [c.name for c in commands.COMMANDS]
    assert len(names) == len(set(names))
    assert all("\n" not in c.help and len(c.help) <= 60 for c in commands.COMMANDS)


def test_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as exit_:
        commands.main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    for command in commands.COMMANDS:
        assert command.name in out and command.help in out


def test_an_unknown_first_word_is_taken_as_serve_flags(capsys):
    # `antidrift --port 1 --host 0.0.0.0` is serve's; a stray word is serve's error, not ours.
    with pytest.raises(SystemExit) as exit_:
        commands.main(["bogus"])
    assert exit_.value.code == 2
    assert "unrecognized arguments: bogus" in capsys.readouterr().err


def test_each_command_is_one_line_of_the_table():
    """So a new command is a row (and its setup function) that merges cleanly beside the
    others."""
    source = Path(commands.__file__).read_text().splitlines()
    rows = [line for line in source if line.startswith("    CliCommand(")]
    assert len(rows) == len(commands.COMMANDS)
    assert all(line.endswith("),") for line in rows), rows


def test_the_command_line_for_hotkeys_and_bars_loads_no_server():
    """`antidrift back` on a hotkey and `antidrift status` in a bar start fast: the table
    imports only the chosen command's module, and that one needs no Flask or gunicorn."""
    probe = (
        "import sys; from antidrift.server import commands\n"
        "code = commands.main(['status', '--url', 'http://127.0.0.1:9/'])\n"
        "heavy = sorted(m for m in ('flask', 'gunicorn', 'antidrift.session.controller',"
        " 'antidrift.server.app', 'antidrift.server.serve') if m in sys.modules)\n"
        "print(code, heavy)\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.stdout.strip() == "1 []", result.stdout + result.stderr


def test_the_table_itself_imports_no_command():
    """The rows name their setups, and each setup imports its module inside it: loading the
    table loads no wing but core (and the server package, which is only its docstring)."""
    probe = (
        "import json, sys, antidrift.server.commands\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('antidrift.'))))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    loaded = json.loads(result.stdout)
    assert set(loaded) - {"antidrift.server", "antidrift.server.commands"} == {
        m for m in loaded if m.startswith("antidrift.core")
    }, loaded


@pytest.mark.parametrize("command", commands.COMMANDS, ids=lambda c: c.name)
def test_each_setup_imports_its_module_inside_itself(command):
    """A setup is `from antidrift.<wing>.<module> import <function>` and a call: one import,
    function-local and static, so lint-imports sees it and only a chosen command loads it."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(command.setup)))
    imports = [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
    assert len(imports) == 1, command.name
    assert isinstance(imports[0], ast.ImportFrom) and imports[0].module.startswith("antidrift.")
