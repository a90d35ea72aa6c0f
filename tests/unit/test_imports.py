"""Importing a layer loads nothing above it: each import runs in a fresh interpreter and
the test reads its sys.modules. And no module under antidrift/ grows past 450 lines."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "antidrift"
MAX_LINES = 450

# Loaded by whatever imports them: the web framework, the controller, the web layer.
ABOVE = (
    "flask",
    "werkzeug",
    "jinja2",
    "flask_sock",
    "antidrift.session.controller",
    "antidrift.web",
    "antidrift.server.app",
)


def loaded_by(module: str) -> list[str]:
    """The modules a fresh interpreter has after `import <module>`."""
    code = f"import json, sys, {module}; print(json.dumps(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def above(modules: list[str]) -> list[str]:
    return [m for m in modules if any(m == a or m.startswith(a + ".") for a in ABOVE)]


@pytest.mark.parametrize(
    "module",
    [
        "antidrift",
        "antidrift.core.domain",
        "antidrift.drift.policy",
        "antidrift.drift.guard",
        "antidrift.ai",
        "antidrift.core.insights",
        "antidrift.session.snapshot",
        "antidrift.store.sqlite",
    ],
)
def test_the_core_loads_no_flask_no_controller_and_no_web_module(module):
    assert above(loaded_by(module)) == []


def test_the_controller_and_its_parts_load_no_flask_and_no_web_module():
    modules = loaded_by(
        "antidrift.session.controller, antidrift.session.readmodel, antidrift.server.bootstrap"
    )
    assert [m for m in above(modules) if m != "antidrift.session.controller"] == []


def test_the_check_sees_an_import_of_flask():
    """The subprocess really reports what is loaded: the app factory brings Flask."""
    modules = loaded_by("antidrift.server.app")
    assert "flask" in modules and "antidrift.web.routes" in modules
    assert "flask" in above(modules)


def test_antidrift_still_offers_the_one_app_factory():
    import antidrift
    from antidrift.server.app import create_app

    assert antidrift.create_app is create_app
    with pytest.raises(AttributeError):
        _ = antidrift.serving_app


def test_no_module_is_over_450_lines():
    long = {
        path.relative_to(REPO).as_posix(): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if (lines := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}, f"split these modules (at most {MAX_LINES} lines): {long}"


LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=root, capture_output=True, text=True, timeout=60
    )


def test_the_wings_keep_their_layers():
    """import-linter's layers contract in pyproject.toml: no wing imports a wing above it."""
    result = lint_imports(REPO)
    assert result.returncode == 0, result.stdout + result.stderr


UPWARD = {
    "plain": "\nimport antidrift.server.app  # noqa: E402\n",
    "type-checking": (
        "\nfrom typing import TYPE_CHECKING  # noqa: E402\n"
        "if TYPE_CHECKING:\n    import antidrift.server.app\n"
    ),
}


@pytest.mark.parametrize("how", UPWARD)
def test_the_layers_contract_catches_an_upward_import(tmp_path, how):
    """The same contract over a copy where core imports the server (under TYPE_CHECKING too,
    which counts like any import): broken, and named."""
    shutil.copytree(PACKAGE, tmp_path / "antidrift", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    clock = tmp_path / "antidrift" / "core" / "clock.py"
    clock.write_text(clock.read_text() + UPWARD[how])
    result = lint_imports(tmp_path)
    assert result.returncode != 0
    assert "antidrift.core.clock -> antidrift.server.app" in result.stdout


def test_the_layers_contract_has_no_exemptions():
    """Imports under TYPE_CHECKING count (import-linter's default) and no import is ignored:
    a port names a record the wing below it defines, never one above it."""
    section = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
    assert section.get("exclude_type_checking_imports", False) is False
    assert "ignore_imports" not in section
    for contract in section["contracts"]:
        assert "ignore_imports" not in contract, contract["name"]
        assert "exhaustive_ignores" not in contract, contract["name"]
    wings = [layer for contract in section["contracts"] for layer in contract.get("layers", ())]
    assert wings[0] == "server", "the composition root (and its command table) is the top layer"


# The ways to import a module named at run time: a wing that loads another so is an import
# lint-imports cannot see.
DYNAMIC = {"import_module", "__import__", "run_module", "run_path", "spec_from_file_location"}


def dynamic_imports(source: str) -> list[tuple[int, str]]:
    """Calls that import a module by a name in a string, unless the string is a literal
    naming a module outside antidrift (an optional dependency): (line, what is called)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name not in DYNAMIC:
            continue
        first = node.args[0] if node.args else None
        literal = isinstance(first, ast.Constant) and isinstance(first.value, str)
        if literal and first.value.split(".")[0] not in ("antidrift", ""):
            continue
        found.append((node.lineno, name))
    return found


def test_no_wing_loads_a_module_by_a_name_in_a_string():
    """A module of ours is imported by an import statement, where lint-imports sees it
    (issue 40: the command table used to name `server.serve:serve_command` in a string)."""
    found = {
        path.relative_to(REPO).as_posix(): calls
        for path in sorted(PACKAGE.rglob("*.py"))
        if (calls := dynamic_imports(path.read_text()))
    }
    assert found == {}


def test_the_check_sees_a_module_named_in_a_string():
    source = (
        "import importlib\nfrom importlib import import_module\n"
        "importlib.import_module(f'antidrift.{wing}')\n"
        "import_module('antidrift.server.app')\n"
        "__import__(name)\n"
        "importlib.import_module('.serve', 'antidrift.server')\n"
        "importlib.import_module('jeepney')\n"  # a dependency named outright: not ours
    )
    assert dynamic_imports(source) == [
        (3, "import_module"),
        (4, "import_module"),
        (5, "__import__"),
        (6, "import_module"),
    ]


def _class_names(root: Path) -> dict[str, list[str]]:
    """Every class defined under `root`, by name: where each is."""
    found: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append(str(path.relative_to(root)))
    return found


def test_no_two_classes_in_the_package_share_a_name():
    """A name says one thing (issue 40: 16 names were defined twice, Tuning, Verdict, …)."""
    twice = {name: where for name, where in _class_names(PACKAGE).items() if len(where) > 1}
    assert twice == {}


def test_the_check_sees_a_class_name_defined_twice(tmp_path):
    (tmp_path / "a.py").write_text("class Tick:\n    pass\n")
    (tmp_path / "b.py").write_text("def f():\n    class Tick:\n        pass\n")
    assert _class_names(tmp_path)["Tick"] == ["a.py", "b.py"]
