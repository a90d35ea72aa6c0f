"""A fake AI CLI that answers both roles: the coach's proposal and the drift judge's verdict.

It records every prompt it receives on stdin (one JSON line each), so tests can prove what
reached an AI, and judges a window off task when its APP or TITLE line contains a word from
its `off` list. Behaviour is read from a JSON file beside it at each call, as FakeCLI does.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

from tests.support.fake_cli import DEFAULT_PROPOSAL, path_with
from tests.support.fake_notify import FakeNotifier
from tests.support.server import RunningServer

_SCRIPT = r"""#!{python}
import json, os, sys, time
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "{name}.json")) as f:
    cfg = json.load(f)
prompt = sys.stdin.read()
with open(cfg["log"], "a") as f:
    f.write(json.dumps({{"argv": sys.argv[1:], "stdin": prompt, "pid": os.getpid()}}) + "\n")
time.sleep(float(cfg.get("delay", 0)))
if "NEXT_ACTION:" in prompt:
    window = " ".join(l for l in prompt.splitlines() if l.startswith(("APP:", "TITLE:")))
    off = [w for w in cfg.get("off", []) if w.lower() in window.lower()]
    reason = f"{{off[0]}} is not the work" if off else "this can serve the work"
    sys.stdout.write(json.dumps({{"on_task": not off, "reason": reason, "confidence": 0.9}}))
else:
    sys.stdout.write(json.dumps(cfg["proposal"]))
"""


class FakeJudgeCLI:
    """A fake `claude` for both roles; `prompts()` is what each call read on stdin."""

    def __init__(self, folder: Path, name: str = "claude") -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.path = self.folder / name
        self.log = self.folder / f"{name}.prompts"
        self.path.write_text(_SCRIPT.format(python=sys.executable, name=name))
        self.path.chmod(self.path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        self.configure()

    def configure(self, *, off: tuple[str, ...] = ("youtube",), delay: float = 0.0) -> None:
        cfg = {"off": list(off), "delay": delay, "log": str(self.log), "proposal": DEFAULT_PROPOSAL}
        tmp = self.folder / f".{self.name}.json.tmp"
        tmp.write_text(json.dumps(cfg))
        os.replace(tmp, self.folder / f"{self.name}.json")

    def calls(self) -> list[dict]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines() if line]

    def judge_prompts(self) -> list[str]:
        return [c["stdin"] for c in self.calls() if "NEXT_ACTION:" in c["stdin"]]


def drift_server(folder: Path, **env: str) -> tuple[RunningServer, FakeJudgeCLI, FakeNotifier]:
    """A real server (not started) with this fake claude and a fake notify-send first on its
    PATH, the drift guard on (whatever the caller's environment says), and `env` on top."""
    judge = FakeJudgeCLI(folder / "bin")
    notifier = FakeNotifier(folder / "bin")
    base = {"PATH": path_with(folder / "bin"), "ANTIDRIFT_AI_BACKEND": "claude"}
    base["ANTIDRIFT_NOTIFY"] = "auto"
    server = RunningServer(folder / "data", env={**base, **env})
    server.env.pop("ANTIDRIFT_CLAUDE_BIN", None)  # a binary named there would bypass the fake
    server.env.pop("ANTIDRIFT_DRIFT", None)
    return server, judge, notifier
