"""The README stays true: it leads with what a user needs (a picture of the real page,
install, the first commitment, where the data lives), the commands it tells a reader to type
exist after the two set-up commands, and docs/DEVELOPING.md's module map names every module
that exists and nothing that does not."""

from __future__ import annotations

import os
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()
DEVELOPING = (REPO / "docs" / "DEVELOPING.md").read_text()
PACKAGE = REPO / "antidrift"


def module_map() -> str:
    section = DEVELOPING.split("## The module map", 1)[1]
    return section.split("```", 2)[1]


def test_the_readme_leads_with_what_a_user_needs():
    """Its first screen: what it is, the active view (light and dark, both files made by
    scripts/screenshots from the real page), install, the first commitment, the data."""
    first = README.split("## The loop", 1)[0]
    for heading in ("## Install", "## Your first commitment", "## Where your data lives"):
        assert heading in first, heading
    pictures = re.findall(r'(?:srcset|src)="(docs/img/[\w.-]+\.png)"', first)
    assert sorted(pictures) == ["docs/img/active-dark.png", "docs/img/active-light.png"]
    for picture in pictures:
        assert (REPO / picture).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", picture
    assert len(first.splitlines()) <= 45, "the first screen grew: move detail further down"
    # Tests, CI, benchmarks and the module map live in docs/DEVELOPING.md.
    for developer_only in ("## For developers", "## Benchmarks", "## Two commands"):
        assert developer_only not in README, developer_only
    assert "docs/DEVELOPING.md" in README and "scripts/test" in README


def test_every_path_in_the_module_map_exists():
    paths = re.findall(r"^([\w./-]+/?)", module_map(), flags=re.M)
    paths += re.findall(r"^[\w./-]+, ([\w./-]+/?)", module_map(), flags=re.M)
    assert paths, "no module map found"
    missing = [p for p in paths if not (REPO / p).exists()]
    assert missing == [], f"docs/DEVELOPING.md's module map names what does not exist: {missing}"


def test_every_module_and_package_is_in_the_module_map():
    """Every wing is a line of the map, and every module in a wing is named in it."""
    text = module_map()
    wings = [p for p in sorted(PACKAGE.iterdir()) if (p / "__init__.py").is_file()]
    unmapped = [
        p.relative_to(REPO).as_posix() + "/"
        for p in wings
        if not re.search(rf"^{p.relative_to(REPO).as_posix()}/ ", text, flags=re.M)
    ]
    modules = [p for p in sorted(PACKAGE.rglob("*.py")) if "__pycache__" not in p.parts]
    for module in modules:
        if module.name == "__init__.py":
            continue
        named = module.name in text or (module.parent != PACKAGE and module.stem in text)
        if not named:
            unmapped.append(module.relative_to(REPO).as_posix())
    assert unmapped == [], f"add these to docs/DEVELOPING.md's module map: {unmapped}"


def test_the_commands_a_reader_is_told_to_run_exist_in_a_checkout():
    """`antidrift …` is not on PATH after scripts/run; `scripts/run …` is."""
    told = re.findall(r"`([\w./-]+) doctor\b[^`]*`", README)
    assert told, "the README names no doctor command"
    outside_venv = [c for c in told if c == "antidrift"]
    assert outside_venv == [], "say `scripts/run doctor`: `antidrift` is only in .venv/bin"
    for command in set(told):
        path = REPO / command
        assert path.is_file() and os.access(path, os.X_OK), command


def test_the_settings_table_is_the_one_in_the_code():
    from antidrift.settings.report import markdown_table

    assert markdown_table() in README, (
        "the README's settings table is stale: replace it with the output of"
        " `.venv/bin/python -c 'from antidrift.settings.report import markdown_table as t;"
        " print(t())'`"
    )
