"""pyproject.toml names every package and every resource file the wheel must carry: its
package list is explicit (templates/ and static/ are mapped into the package), so a new
package directory or a new kind of static file would be left out of an install silently."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SETUPTOOLS = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_package_directory_is_in_the_wheels_package_list():
    on_disk = {
        ".".join(d.relative_to(REPO).parts)
        for d in [REPO / "antidrift", *(REPO / "antidrift").rglob("*")]
        if d.is_dir() and d.name != "__pycache__" and any(d.glob("*.py"))
    }
    missing = sorted(on_disk - set(SETUPTOOLS["packages"]))
    assert missing == [], f"add to [tool.setuptools] packages in pyproject.toml: {missing}"


def test_every_template_and_static_file_is_package_data():
    dirs = {name: REPO / path for name, path in SETUPTOOLS["package-dir"].items()}
    data = SETUPTOOLS["package-data"]
    left_out = []
    for top in ("templates", "static"):
        for path in sorted((REPO / top).rglob("*")):
            if path.is_dir():
                continue
            package = f"antidrift.{'.'.join(path.parent.relative_to(REPO).parts)}"
            patterns = data.get(package, [])
            if package not in SETUPTOOLS["packages"] or not any(
                fnmatch.fnmatch(path.name, p) for p in patterns
            ):
                left_out.append(str(path.relative_to(REPO)))
    assert dirs  # templates/ and static/ are mapped into the package
    assert left_out == [], f"the wheel would leave out: {left_out}"
