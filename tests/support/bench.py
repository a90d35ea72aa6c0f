"""Runs scripts/bench.py in its quick mode for some figures and reads what it wrote."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# The figures, in the groups the suite's quick-bench tests run, one run each so the suite's
# workers can share them (a test holds that together they are every figure the benchmark has).
SERVER = ("P1", "P2", "P3", "P4", "P5", "P6", "P7")
DRIFT, REFLECTION, BACKUP = ("D1",), ("R1", "R2", "R3"), ("B1", "B2")
CALENDAR = ("E1", "E2")
SYNC = ("S1", "S2", "S3", "S4", "S5", "S6")
DAY = ("Q1",)
HISTORY = DRIFT + REFLECTION + BACKUP + CALENDAR + SYNC + DAY
COLD_CLAUDE, WARM_CLAUDE = ("C1",), ("C2",)
REAL = COLD_CLAUDE + WARM_CLAUDE
FOOTPRINT = ("P8",)  # beside a real aw-server


def goals() -> set[str]:
    """Every figure scripts/bench.py knows."""
    spec = importlib.util.spec_from_file_location("bench", REPO / "scripts" / "bench.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench", module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return set(module.GOALS)


def quick(tmp_path: Path, *figures: str) -> tuple[str, dict]:
    """The printed table and the written result of `bench.py --quick --only FIGURES`."""
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "bench.py"), "--quick", "--out", str(out)]
        + ["--only", ",".join(figures)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    result = json.loads(out.read_text())
    assert result["mode"] == "quick"
    assert result["machine"]["nproc"] >= 1 and result["machine"]["python"]
    for key, figure in result["figures"].items():
        assert key in done.stdout
        assert figure["goal"] and isinstance(figure["met"], bool), key
    return done.stdout, result["figures"]
