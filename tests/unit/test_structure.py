"""The shape of the package, checked: one module starts processes."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "antidrift"
SEAM = PACKAGE / "process" / "__init__.py"  # the seam; process/warm.py goes through it
SPAWNING_MODULES = {"subprocess", "pty", "multiprocessing", "concurrent.futures.process"}
SPAWNING_OS_CALLS = {"system", "popen", "fork", "forkpty", "posix_spawn", "posix_spawnp"}
SPAWNING_OS_PREFIXES = ("spawn", "exec")


def _spawns(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name in SPAWNING_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module in SPAWNING_MODULES:
            found.append(node.module)
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [
                f"os.{a.name}"
                for a in node.names
                if a.name in SPAWNING_OS_CALLS or a.name.startswith(SPAWNING_OS_PREFIXES)
            ]
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
            and (node.attr in SPAWNING_OS_CALLS or node.attr.startswith(SPAWNING_OS_PREFIXES))
        ):
            found.append(f"os.{node.attr}")
        elif isinstance(node, ast.Attribute) and node.attr == "create_subprocess_exec":
            found.append(node.attr)
    return found


def test_exactly_one_module_starts_processes():
    offenders = {
        str(path.relative_to(PACKAGE.parent)): spawns
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != SEAM and (spawns := _spawns(ast.parse(path.read_text(), str(path))))
    }
    assert offenders == {}, "start processes through antidrift/process/ only"
    assert "subprocess" in _spawns(ast.parse(SEAM.read_text()))


def test_the_check_sees_a_module_that_starts_a_process():
    assert _spawns(ast.parse("import subprocess\nsubprocess.run(['x'])")) == ["subprocess"]
    assert _spawns(ast.parse("import os\nos.execvp('x', ['x'])")) == ["os.execvp"]
    assert _spawns(ast.parse("from os import system")) == ["os.system"]


# -- one settings reader ---------------------------------------------------------------------

SETTINGS_READER = PACKAGE / "settings" / "reader.py"
ENV_NAMES = {"environ", "env", "getenv", "environment"}


def _reads_antidrift_variables(tree: ast.AST) -> list[str]:
    """`environ["ANTIDRIFT_…"]`, `….get("ANTIDRIFT_…")`, `getenv("ANTIDRIFT_…")`, `"ANTIDRIFT_…"
    in environ`: a variable read outside the settings reader."""

    def named(node: ast.AST) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value if node.value.startswith("ANTIDRIFT_") else None
        return None

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and (name := named(node.slice)):
            found.append(name)
        elif isinstance(node, ast.Call) and node.args and (name := named(node.args[0])):
            func = node.func
            attr = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if attr in {"get", "getenv", "pop", "setdefault", "__getitem__"}:
                found.append(name)
        elif (
            isinstance(node, ast.Compare)
            and (name := named(node.left))
            and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops)
        ):
            found.append(name)
    return found


def test_only_the_settings_reader_reads_antidrift_variables():
    sources = [*sorted(PACKAGE.rglob("*.py")), PACKAGE.parent / "gunicorn.conf.py"]
    offenders = {
        str(path.relative_to(PACKAGE.parent)): reads
        for path in sources
        if path != SETTINGS_READER
        and (reads := _reads_antidrift_variables(ast.parse(path.read_text(), str(path))))
    }
    assert offenders == {}, "read ANTIDRIFT_* settings through antidrift.settings only"


def test_the_check_sees_a_module_that_reads_a_variable():
    for code in (
        "import os\nos.environ.get('ANTIDRIFT_DRIFT', 'ai')",
        "import os\nos.environ['ANTIDRIFT_PORT']",
        "import os\nos.getenv('ANTIDRIFT_HOST')",
        "env.get('ANTIDRIFT_AI_KEY')",
        "'ANTIDRIFT_NOTIFY' in os.environ",
    ):
        assert _reads_antidrift_variables(ast.parse(code)), code
    # Naming a variable in a sentence is not reading it.
    assert _reads_antidrift_variables(ast.parse("x = 'set ANTIDRIFT_CLAUDE_BIN'")) == []
