"""The suite's own house rules: what tests share lives in tests/support/ (and tests/fakes.py,
the ports' fakes), never in another test module or a conftest that a test imports."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
SHARED = ("tests.support", "tests.fakes")


def imported_modules(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
    return found


def test_no_test_imports_another_test_module():
    wrong = []
    for path in sorted(TESTS.rglob("*.py")):
        if "support" in path.relative_to(TESTS).parts[:1]:
            continue
        for module in imported_modules(path):
            shared = module in SHARED or module.startswith(tuple(f"{s}." for s in SHARED))
            if module.startswith("tests.") and not shared:
                wrong.append(f"{path.relative_to(TESTS.parent)} imports {module}")
    assert not wrong, "move what is shared to tests/support/:\n" + "\n".join(wrong)


def test_support_modules_import_no_test_module():
    wrong = [
        f"{path.relative_to(TESTS.parent)} imports {module}"
        for path in sorted((TESTS / "support").rglob("*.py"))
        for module in imported_modules(path)
        if module.startswith("tests.") and not module.startswith(SHARED)
    ]
    assert not wrong, "\n".join(wrong)
