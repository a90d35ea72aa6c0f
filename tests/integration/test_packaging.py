"""The wheel carries templates/, static/ and judge-eval's corpus inside the package; a wheel
install serves the page.

The second test is the one-command install in miniature: the wheel installed into a fresh
venv outside the repository (its dependencies taken from the test venv's site-packages, so
nothing is downloaded), and that venv's `antidrift serve` serves the page and its assets.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import urllib.request
import zipfile
from pathlib import Path

import pytest

from tests.fakes import wait_until
from tests.support import procs
from tests.support.server import free_port

REPO = Path(__file__).resolve().parents[2]
VERSION = re.search(r'^version = "(.+)"', (REPO / "pyproject.toml").read_text(), re.M)[1]
ASSETS = (
    "/static/style.css",
    "/sheets/style+loop+day+insights+settings.css",  # every area sheet is in the wheel
    "/static/vendor/htmx-2.0.11.min.js",
    "/static/vendor/ws-2.0.4.min.js",
    "/static/favicon.svg",
    "/static/icons/icon-192.png",
    "/static/icons/icon-512.png",
    "/static/icons/maskable-512.png",
    "/manifest.webmanifest",
)

CHECK = """
import os, sys, antidrift
from antidrift.server.app import create_app
assert antidrift.__file__.startswith(sys.argv[1]), antidrift.__file__
client = create_app().test_client()
page = client.get("/")
assert page.status_code == 200 and b'id="view"' in page.data, page.status_code
for path in sys.argv[2:]:
    assert client.get(path).status_code == 200, path
from antidrift.cli.judge_eval import load_cases, shipped_corpus
assert str(shipped_corpus()).startswith(sys.argv[1]), shipped_corpus()
assert len(load_cases(shipped_corpus())) >= 200
print("served from", os.path.dirname(antidrift.__file__))
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), str(REPO)],
        check=True,
        capture_output=True,
    )
    return next(out.glob("antidrift-*.whl"))


def test_wheel_contains_templates_and_static_inside_the_package(wheel, tmp_path):
    assert wheel.name.startswith(f"antidrift-{VERSION}-")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "antidrift/templates/base.html" in names
    assert "antidrift/templates/_coach.html" in names
    assert "antidrift/static/style.css" in names
    assert "antidrift/cli/judge_corpus.jsonl" in names  # judge-eval's labelled cases
    assert any(n.startswith("antidrift/static/vendor/htmx-") for n in names)
    assert {f"antidrift/static/icons/{n}" for n in ("icon-192.png", "maskable-512.png")} <= names

    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target),
         str(wheel)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    result = subprocess.run(
        [sys.executable, "-c", CHECK, str(target), *ASSETS],
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


def test_a_fresh_venv_outside_the_repository_serves_the_page_from_the_wheel(wheel, tmp_path):
    venv = tmp_path / "venv"
    # No pip of its own (ensurepip takes seconds): the test venv's pip installs into it.
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True
    )
    python = venv / "bin" / "python"
    site = Path(
        subprocess.check_output(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
        ).strip()
    )
    # Flask, gunicorn and the rest from the test venv, behind the venv's own site-packages
    # (a plain path: the test venv's editable antidrift, a .pth finder, is not taken along).
    (site / "zz-test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],  # fmt: skip
        check=True,
        capture_output=True,
    )
    env = {
        "PATH": f"{venv / 'bin'}:/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "ANTIDRIFT_WINDOW_SOURCE": "off",
    }
    antidrift = venv / "bin" / "antidrift"
    version = subprocess.run(
        [antidrift, "--version"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert version.stdout == f"antidrift {VERSION}\n", version.stderr
    where = subprocess.check_output(
        [python, "-c", "import antidrift; print(antidrift.__file__)"], cwd=tmp_path, env=env
    )
    assert Path(where.decode().strip()).is_relative_to(site)

    port = free_port()
    server = subprocess.Popen(
        [antidrift, "serve", "--port", str(port), "--data-dir", str(tmp_path / "data")],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:

        def page() -> bytes | None:
            try:
                with urllib.request.urlopen(base + "/", timeout=2) as response:
                    return response.read()
            except OSError:
                assert server.poll() is None, server.stderr.read().decode()
                return None

        html = wait_until(page, timeout=30, message="the installed server's page").decode()
        assert 'id="view"' in html and f"AntiDrift {VERSION}" in html
        for path in ASSETS:
            with urllib.request.urlopen(base + path, timeout=5) as response:
                assert response.status == 200 and response.read(), path
        status = subprocess.run(
            [antidrift, "status", "--data-dir", str(tmp_path / "data")],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
        )
        assert (status.returncode, status.stdout) == (0, "No commitment\n"), status.stderr
    finally:
        procs.stop(server)
    assert not os.path.exists(tmp_path / "home" / ".local" / "share" / "antidrift")
