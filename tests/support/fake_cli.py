"""Fake AI CLIs: small Python scripts written into a folder that tests put first on PATH.

One fake `claude` (or any name) for every role: it answers the coach's prompt with its
configured answer, and, given `off` words, judges a drift prompt (NEXT_ACTION: … APP: …
TITLE: …) off task when its APP or TITLE line contains one of them. Every prompt it reads
on stdin is logged, so tests can prove what reached an AI (`calls`, `judge_prompts`).
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

DEFAULT_PROPOSAL = {
    "next_action": "Draft the executive summary",
    "success_condition": "Three paragraphs: revenue, risks, outlook",
    "timebox_minutes": 40,
}

# The fake reads its behaviour from a JSON file beside it at every call, so a test can
# change it while the server runs: {"delay": s, "answer": "...", "exit": n, "stderr": "...",
# "pidfile": path, "count_file": path, "wait_for": path (answers once that file exists),
# "off": [words] (judges drift prompts; None: answers them like any other), "unclear":
# [words] (with "off": a window holding one is unclear), "log": path}.
_SCRIPT = r"""#!{python}
import json, os, sys, time
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "{name}.json")) as f:
    cfg = json.load(f)
prompt = sys.stdin.read()
with open(cfg["log"], "a") as f:
    f.write(json.dumps({{"argv": sys.argv[1:], "stdin": prompt, "pid": os.getpid()}}) + "\n")
if cfg.get("pidfile"):
    with open(cfg["pidfile"], "a") as f:
        f.write(f"{{os.getpid()}}\n")
if cfg.get("log_argv"):
    with open(cfg["log_argv"], "a") as f:
        f.write(json.dumps(sys.argv[1:]) + "\n")
deadline = time.monotonic() + float(cfg.get("delay", 0))
while time.monotonic() < deadline:
    time.sleep(0.02)
while cfg.get("wait_for") and not os.path.exists(cfg["wait_for"]):
    time.sleep(0.02)
if cfg.get("count_file"):
    with open(cfg["count_file"], "a") as f:
        f.write("done\n")
if cfg.get("off") is not None and "NEXT_ACTION:" in prompt:
    window = " ".join(l for l in prompt.splitlines() if l.startswith(("APP:", "TITLE:")))
    off = [w for w in cfg["off"] if w.lower() in window.lower()]
    unclear = [w for w in cfg.get("unclear") or [] if w.lower() in window.lower()]
    reason = f"{{off[0]}} is not the work" if off else "this can serve the work"
    if unclear:  # the three-answer form; the others answer in 0.3's, which is still read
        said = {{"verdict": "unclear", "reason": f"cannot tell from {{unclear[0]}}"}}
    else:
        said = {{"on_task": not off, "reason": reason, "confidence": 0.9}}
    sys.stdout.write(json.dumps(said))
else:
    sys.stdout.write(cfg.get("answer", ""))
sys.stdout.flush()
if cfg.get("stderr"):
    sys.stderr.write(cfg["stderr"])
sys.exit(int(cfg.get("exit", 0)))
"""


class FakeCLI:
    """A fake `claude` (or any name) whose behaviour a test sets with `configure`; with
    `off` words it is also the drift judge (the words a window must not contain)."""

    def __init__(
        self, folder: Path, name: str = "claude", *, off: tuple[str, ...] | None = None
    ) -> None:
        self.folder = Path(folder)
        self.name = name
        self.off = off
        self.folder.mkdir(parents=True, exist_ok=True)
        self.log = self.folder / f"{name}.prompts"
        self.path = self.folder / name
        self.path.write_text(_SCRIPT.format(python=sys.executable, name=name))
        self.path.chmod(self.path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        self.configure()

    def configure(
        self,
        *,
        answer: str | dict | None = None,
        delay: float = 0.0,
        exit: int = 0,
        stderr: str = "",
        off: tuple[str, ...] | None = None,
        **extra: object,
    ) -> None:
        if answer is None:
            answer = DEFAULT_PROPOSAL
        if isinstance(answer, dict):
            answer = json.dumps(answer)
        off = self.off if off is None else off
        cfg = {"answer": answer, "delay": delay, "exit": exit, "stderr": stderr, **extra}
        cfg |= {"off": None if off is None else list(off), "log": str(self.log)}
        tmp = self.folder / f".{self.name}.json.tmp"
        tmp.write_text(json.dumps(cfg))
        os.replace(tmp, self.folder / f"{self.name}.json")

    def calls(self) -> list[dict]:
        """Every call so far: {"argv", "stdin", "pid"}."""
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines() if line]

    def judge_prompts(self) -> list[str]:
        """What each drift judge call read on stdin."""
        return [c["stdin"] for c in self.calls() if "NEXT_ACTION:" in c["stdin"]]

    def logged_out(self) -> None:
        """What claude 2.1.197 does logged out: a sentence on stdout, exit 1."""
        self.configure(answer="Not logged in · Please run /login\n", exit=1)


def path_with(folder: Path) -> str:
    """PATH with `folder` first, so the fake shadows any real CLI."""
    return f"{folder}{os.pathsep}{os.environ.get('PATH', '')}"
