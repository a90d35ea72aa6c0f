"""The evidence package's shape, checked: probes never import the sampler, and the package
needs nothing of the app but the one subprocess seam (and three stdlib-only leaves of core:
the loopback test, the ISO time reader and the one error base)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[3] / "antidrift" / "evidence"


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def test_no_probe_imports_the_sampler():
    probes = [p for p in PACKAGE.glob("*.py") if p.name not in ("sampler.py", "__init__.py")]
    assert len(probes) >= 9
    offenders = {
        p.name: sorted(n for n in imported(p) if n.startswith("antidrift.evidence.sampler"))
        for p in probes
    }
    assert {name: found for name, found in offenders.items() if found} == {}


def test_the_package_uses_nothing_of_the_app_but_the_subprocess_seam():
    app_imports = {
        p.name: sorted(
            n
            for n in imported(p)
            if n.startswith("antidrift")
            # loopback, isotime, outside, errors and choices: stdlib-only leaves, the one
            # test of "this machine", the one reader of a time's ISO text, the one reader of
            # outside data, the one error base and the words the settings take from here
            and not n.startswith(
                (
                    "antidrift.evidence",
                    "antidrift.process",
                    "antidrift.core.choices",
                    "antidrift.core.loopback",
                    "antidrift.core.isotime",
                    "antidrift.core.outside",
                    "antidrift.core.errors",
                )
            )
            and n != "antidrift"
        )
        for p in PACKAGE.glob("*.py")
    }
    assert {name: found for name, found in app_imports.items() if found} == {}


def test_the_check_sees_an_import_of_the_sampler(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("from antidrift.evidence.sampler import WindowSampler\n")
    assert "antidrift.evidence.sampler" in imported(module)
