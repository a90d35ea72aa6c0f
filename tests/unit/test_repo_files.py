"""What the repository holds: no links into one machine's directories. The shared caches
(.cache, .venv-aw) are often symlinks in a checkout; they stay out of git even then."""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1].parent


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout


def test_the_caches_are_ignored_even_as_symlinks():
    # --no-index: asks the patterns, whatever is tracked; a trailing "/" would only match
    # a directory, and a link to a shared cache is not one.
    ignored = _git("check-ignore", "--no-index", ".cache", ".venv-aw").split()
    assert ignored == [".cache", ".venv-aw"]


def test_no_tracked_symlink_points_at_an_absolute_path():
    # "<mode> <blob> <stage>\t<path>"; a symlink's blob is the path it points at.
    links = [line.split(maxsplit=3) for line in _git("ls-files", "-s").splitlines()]
    targets = {
        path: _git("cat-file", "-p", blob) for mode, blob, _, path in links if mode == "120000"
    }
    assert {path: to for path, to in targets.items() if to.startswith("/")} == {}
