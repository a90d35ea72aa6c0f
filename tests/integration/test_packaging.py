"""The wheel carries templates/ and static/ inside the package; a wheel install serves the page."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

CHECK = """
import os, sys, antidrift
from antidrift.app import create_app
assert antidrift.__file__.startswith(sys.argv[1]), antidrift.__file__
client = create_app().test_client()
page = client.get("/")
assert page.status_code == 200 and b'id="view"' in page.data, page.status_code
for path in ("/static/style.css", "/static/vendor/htmx-2.0.11.min.js",
             "/static/vendor/ws-2.0.4.min.js"):
    assert client.get(path).status_code == 200, path
print("served from", os.path.dirname(antidrift.__file__))
"""


def test_wheel_contains_templates_and_static_inside_the_package(tmp_path):
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "-w",
            str(tmp_path),
            str(REPO),
        ],
        check=True,
        capture_output=True,
    )
    wheel = next(tmp_path.glob("antidrift-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "antidrift/templates/base.html" in names
    assert "antidrift/templates/_coach.html" in names
    assert "antidrift/static/style.css" in names
    assert any(n.startswith("antidrift/static/vendor/htmx-") for n in names)

    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    result = subprocess.run(
        [sys.executable, "-c", CHECK, str(target)],
        cwd=tmp_path,
        env={
            "PYTHONPATH": str(target),
            "ANTIDRIFT_DATA_DIR": str(tmp_path / "data"),
            "ANTIDRIFT_WINDOW_SOURCE": "off",
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
        },
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert str(target) in result.stdout
