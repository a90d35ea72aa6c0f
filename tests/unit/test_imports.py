"""Importing a layer loads nothing above it: each import runs in a fresh interpreter and
the test reads its sys.modules. And no module under antidrift/ grows past 450 lines."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
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


def test_the_layers_contract_catches_an_upward_import(tmp_path):
    """The same contract over a copy where core imports the server: broken, and named."""
    shutil.copytree(PACKAGE, tmp_path / "antidrift", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    clock = tmp_path / "antidrift" / "core" / "clock.py"
    clock.write_text(clock.read_text() + "\nimport antidrift.server.app  # noqa: E402\n")
    result = lint_imports(tmp_path)
    assert result.returncode != 0
    assert "antidrift.core.clock -> antidrift.server.app" in result.stdout


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
