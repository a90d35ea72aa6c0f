"""The ai package is a leaf: it imports nothing of the app but the subprocess seam (and the
one error base and the settings' words, stdlib-only leaves), so the coach, the judge and
their backends can be read, tested and replaced on their own."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
AI = REPO / "antidrift" / "ai"
ALLOWED = ("antidrift.ai", "antidrift.process", "antidrift.core.errors", "antidrift.core.choices")


def app_imports(path: Path) -> set[str]:
    """The antidrift modules a file imports (relative imports stay inside ai/)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "antidrift"}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "antidrift":
            found |= {f"antidrift.{a.name}" for a in node.names}  # from antidrift import process
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found |= {node.module} if node.module.split(".")[0] == "antidrift" else set()
    return found


def outside(names: set[str]) -> list[str]:
    return sorted(n for n in names if not any(n == a or n.startswith(a + ".") for a in ALLOWED))


def test_no_module_of_ai_imports_the_app_beyond_the_seam():
    offenders = {
        str(p.relative_to(REPO)): found
        for p in sorted(AI.rglob("*.py"))
        if (found := outside(app_imports(p)))
    }
    assert offenders == {}


def test_the_check_sees_an_import_of_the_app(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("from antidrift.core.domain import Commitment\nimport antidrift.store\n")
    assert outside(app_imports(module)) == ["antidrift.core.domain", "antidrift.store"]


def test_importing_ai_loads_no_other_part_of_the_app_and_no_flask():
    # The package's own __init__ is left out (an empty package stands in for it): what
    # `import antidrift` loads is tests/unit/test_imports.py's business; this is ai's.
    code = (
        "import json, sys, types\n"
        f"package = types.ModuleType('antidrift'); package.__path__ = [{str(AI.parent)!r}]\n"
        "sys.modules['antidrift'] = package\n"
        "import importlib, pkgutil, antidrift.ai\n"
        # Its names load their modules at first use (PEP 562): every module of the wing.
        "for name in antidrift.ai.__all__: getattr(antidrift.ai, name)\n"
        "for found in pkgutil.walk_packages(antidrift.ai.__path__, 'antidrift.ai.'):\n"
        "    importlib.import_module(found.name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout))
    assert "antidrift.ai.backends.claude" in loaded  # the check looked at a real import
    # The packages themselves (antidrift, antidrift.core) are only docstrings.
    app = {m for m in loaded if m.split(".")[0] == "antidrift"} - {"antidrift", "antidrift.core"}
    assert outside(app) == []
    assert sorted(m for m in loaded if m.split(".")[0] in ("flask", "werkzeug", "jinja2")) == []
