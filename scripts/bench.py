#!/usr/bin/env python3
"""AntiDrift benchmarks (issue 6): what the server adds around the coach, P1–P8 in one run.

Starts a real `antidrift serve` (gunicorn, one worker) on an ephemeral port with a fake
`claude` first on PATH, drives it the way the page does (form posts with HX-Request, pages
on /ws that say what they show), and prints a table of medians and p95s; the same figures go
to a JSON file (default bench-results/bench.json).

    .venv/bin/python scripts/bench.py            # full run, about a minute
    .venv/bin/python scripts/bench.py --quick    # a few trials each, seconds (the suite runs it)
    .venv/bin/python scripts/bench.py --py-spy bench-results/profile
                                                 # also sample the worker during P1/P2/P3

The goals are reported, never enforced: this is a benchmark, not a timed test.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import http.client
import json
import os
import platform
import selectors
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import websocket  # noqa: E402  (websocket-client, a test dependency)

from antidrift.ai.backends.claude import CLAUDE_ARGS, CLAUDE_ENV, ClaudeBackend  # noqa: E402
from antidrift.ai.coach import PROPOSAL_SCHEMA, build_prompt  # noqa: E402
from tests.support import aw_server, procs, real_cli  # noqa: E402
from tests.support.fake_cli import FakeCLI, path_with  # noqa: E402
from tests.support.server import RunningServer, free_port  # noqa: E402
from tests.support.stand_in_api import StandInAPI  # noqa: E402

sys.path.insert(0, str(REPO / "scripts"))
import bench_floor  # noqa: E402
from bench_backup import GOALS as GOALS_B  # noqa: E402
from bench_backup import bench_backup  # noqa: E402
from bench_calendar import GOAL as GOAL_E1  # noqa: E402
from bench_calendar import GOAL_E2, bench_e1, bench_e2  # noqa: E402
from bench_day import GOAL as GOAL_Q1  # noqa: E402
from bench_day import bench_q1  # noqa: E402
from bench_drift import GOAL as GOAL_D1  # noqa: E402
from bench_drift import bench_d1  # noqa: E402
from bench_reflection import GOALS as GOALS_R  # noqa: E402
from bench_reflection import bench_history, bench_review  # noqa: E402
from bench_sync import (  # noqa: E402
    GOAL_S1,
    GOAL_S2,
    GOAL_S3,
    GOAL_S4,
    GOAL_S5,
    GOAL_S6,
    bench_live,
    bench_s5,
    bench_sync,
)

from antidrift.server.httpworker import THREADS  # noqa: E402

INTENT = "work on the quarterly report"
PLANNING_QUERY = "view=planning&c=&p="
PENDING = 'data-status="pending"'
READY = 'data-status="ready"'
TABS = 50

GOALS = {
    "P1": "median ≤ 5 ms, p95 ≤ 20 ms",
    "P2": "≤ 1.15",
    "P3": "median ≤ 40 ms",
    "P4": "≤ 80 MiB",
    "P5": "≤ 28 KiB (0.6: each page; tests/web/test_page_weight.py checks every one)",
    "P6": "≤ the stack's floor + 100 ms",
    "P7": "exactly one CLI run completes",
    "P8": "≤ the stack's floor + 5 MiB",
    "D1": GOAL_D1,
    "E1": GOAL_E1,
    "E2": GOAL_E2,
    "Q1": GOAL_Q1,
    **GOALS_R,
    **GOALS_B,
    "C1": "≤ 1.10",
    "C2": "median ≤ 300 ms",
    "S1": GOAL_S1,
    "S2": GOAL_S2,
    "S3": GOAL_S3,
    "S4": GOAL_S4,
    "S5": GOAL_S5,
    "S6": GOAL_S6,
}
# R1–R3: timed GETs per figure (each seeds its own database and server).
REFLECTION_TRIALS = {"full": 30, "quick": 3}


@dataclass(frozen=True)
class Trials:
    warmup: int
    coach: int  # P1/P2: one tab, POST /coach → pending → ready, beside a direct CLI run
    fanout: int  # P3: fifty tabs
    starts: int  # P6
    bursts: int  # P7
    real: int = 20  # C1: Sharpens with the real claude (about a second each)
    settle: float = 5.0  # P8: seconds both servers sit idle before their memory is read
    samples: int = 5  # P8: readings of both trees, a second apart
    typing: float = 3.0  # C2: seconds a person spends typing an intent before each Sharpen


FULL = Trials(warmup=5, coach=300, fanout=60, starts=10, bursts=5, real=20)
# Quick proves the script runs and reports every figure (the suite runs it), not the goals.
QUICK = Trials(
    warmup=2, coach=12, fanout=4, starts=1, bursts=1, real=1, typing=1.0, settle=1.0, samples=1
)


# -- numbers ----------------------------------------------------------------------------------


def summary(values: list[float], digits: int = 2, samples: bool = False) -> dict[str, object]:
    ordered = sorted(values)
    if len(ordered) >= 2:
        p95 = statistics.quantiles(ordered, n=100, method="inclusive")[94]
    else:
        p95 = ordered[0]
    return {
        "n": len(ordered),
        "median": round(statistics.median(ordered), digits),
        "p95": round(p95, digits),
        "min": round(ordered[0], digits),
        "max": round(ordered[-1], digits),
        **({"samples": [round(v, digits) for v in values]} if samples else {}),
    }


def ms(seconds: float) -> float:
    return seconds * 1000.0


# -- the machine ------------------------------------------------------------------------------


def machine() -> dict[str, object]:
    info: dict[str, object] = {
        "nproc": len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else os.cpu_count(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "system": f"{platform.system()} {platform.release()}",
    }
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                info["memory_gib"] = round(int(line.split()[1]) / 1024 / 1024, 1)
                break
    except OSError:
        info.setdefault("cpu", platform.processor() or "unknown")
    return info


# -- processes --------------------------------------------------------------------------------


children = procs.children


def rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    out = subprocess.run(["ps", "-o", "rss=", "-p", str(pid)], capture_output=True, text=True)
    return int(out.stdout.strip()) / 1024


def pss_mib(pid: int) -> float | None:
    """Proportional set size: shared pages (the worker is a fork of the arbiter) counted once
    over both processes; None where /proc/<pid>/smaps_rollup is missing."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def _own_cpu(pid: int) -> float:
    """User + system CPU seconds of pid alone (all its threads), not of its children."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of pid and every process under it so far (Linux)."""
    total, waiting = 0.0, [pid]
    while waiting:
        current = waiting.pop()
        with contextlib.suppress(OSError, ValueError, IndexError):
            stat = Path(f"/proc/{current}/stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        waiting += children(current)
    return total


def tree_pss(pid: int) -> dict[int, float]:
    """PSS in MiB of pid and every process under it (shared pages counted once overall)."""
    found: dict[int, float] = {}
    waiting = [pid]
    while waiting:
        current = waiting.pop()
        pss = pss_mib(current)
        if pss is not None:
            found[current] = pss
        waiting += children(current)
    return found


def worker_pid(server: RunningServer, timeout: float = 10.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        kids = children(server.proc.pid)
        if kids:
            return kids[0]
        time.sleep(0.05)
    raise RuntimeError("no gunicorn worker under the server process")


# -- a page: the browser's HTTP connection and its websocket ----------------------------------


class Browser:
    """One keep-alive HTTP connection sending what htmx sends for a button press."""

    def __init__(self, server: RunningServer) -> None:
        self.origin = server.base
        self.conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)

    def send(self, path: str, form: dict[str, str] | None = None) -> None:
        """Send the request; the answer is read by `answer()` (so a caller can time a push
        that arrives before it)."""
        body = urllib.parse.urlencode(form or {})
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "HX-Request": "true",
            "HX-Current-URL": self.origin + "/",
            "Origin": self.origin,
            "Sec-Fetch-Site": "same-origin",
        }
        try:
            self.conn.request("POST", path, body, headers)
        except (ConnectionError, http.client.HTTPException):
            self.conn.close()  # the server closed an idle keep-alive connection
            self.conn.request("POST", path, body, headers)

    def answer(self) -> int:
        resp = self.conn.getresponse()
        resp.read()
        if resp.getheader("Connection", "").lower() == "close":
            self.conn.close()
        return resp.status

    def post(self, path: str, form: dict[str, str] | None = None) -> int:
        self.send(path, form)
        return self.answer()

    def close(self) -> None:
        self.conn.close()


class Tab:
    """An open page's websocket, in the state the URL says the page shows."""

    def __init__(self, server: RunningServer, query: str = PLANNING_QUERY) -> None:
        self.ws = websocket.create_connection(f"{server.ws_base}/ws?{query}", timeout=10)
        self.ws.sock.setblocking(True)

    def fileno(self) -> int:
        return self.ws.sock.fileno()

    def read(self) -> str | None:
        """One frame: a text message, or None for a control frame (a ping, answered)."""
        opcode, frame = self.ws.recv_data_frame(True)
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            raise ConnectionError("server closed the websocket")
        if opcode in (websocket.ABNF.OPCODE_TEXT, websocket.ABNF.OPCODE_BINARY):
            data = frame.data
            return data.decode() if isinstance(data, bytes) else data
        return None

    def close(self) -> None:
        with contextlib.suppress(OSError, websocket.WebSocketException):
            self.ws.close()


def wait_all(tabs: list[Tab], marker: str, timeout: float = 10.0) -> list[float]:
    """perf_counter() at which each tab received a message containing marker."""
    sel = selectors.DefaultSelector()
    for i, tab in enumerate(tabs):
        sel.register(tab, selectors.EVENT_READ, i)
    arrived: dict[int, float] = {}
    deadline = time.monotonic() + timeout
    try:
        while len(arrived) < len(tabs):
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{len(tabs) - len(arrived)} tab(s) never got {marker}")
            for key, _ in sel.select(left):
                i = key.data
                message = tabs[i].read()
                now = time.perf_counter()
                if message is not None and marker in message and i not in arrived:
                    arrived[i] = now
                    sel.unregister(tabs[i])
    finally:
        sel.close()
    return [arrived[i] for i in range(len(tabs))]


def drain(tabs: list[Tab], quiet: float = 0.05) -> None:
    """Read whatever is queued until every tab has been quiet for `quiet` seconds."""
    sel = selectors.DefaultSelector()
    for tab in tabs:
        sel.register(tab, selectors.EVENT_READ, tab)
    try:
        while events := sel.select(quiet):
            for key, _ in events:
                key.data.read()
    finally:
        sel.close()


# -- the server under test --------------------------------------------------------------------


@dataclass
class Rig:
    root: Path
    fake: FakeCLI
    server: RunningServer
    worker: int


def start_rig(root: Path) -> Rig:
    fake = FakeCLI(root / "bin")
    env = {"PATH": path_with(fake.folder), "ANTIDRIFT_AI_BACKEND": "claude"}
    server = RunningServer(root / "data", env=env)
    server.env.pop("ANTIDRIFT_CLAUDE_BIN", None)  # the fake on PATH, whatever the caller set
    server.start()
    return Rig(root, fake, server, worker_pid(server))


def to_planning(rig: Rig) -> None:
    rig.server.reset()
    status, _ = rig.server.post("/planning")
    if status != 200:
        raise RuntimeError(f"POST /planning: {status}")


# -- P5: the planning page and everything it loads --------------------------------------------


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "script" and a.get("src"):
            self.refs.append(a["src"])
        elif tag == "link" and a.get("href"):
            rel = (a.get("rel") or "").lower().split()
            if {"stylesheet", "icon", "preload", "modulepreload"} & set(rel):
                self.refs.append(a["href"])
        elif tag == "img" and a.get("src"):
            self.refs.append(a["src"])


def fetch(server: RunningServer, path: str) -> tuple[bytes, int]:
    """(body as served, bytes on the wire with gzip): what gzip would send if the server
    does not compress."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request("GET", path, headers={"Accept-Encoding": "gzip"})
        resp = conn.getresponse()
        raw = resp.read()
        if resp.status != 200:
            raise RuntimeError(f"GET {path}: {resp.status}")
        if (resp.getheader("Content-Encoding") or "").lower() == "gzip":
            return gzip.decompress(raw), len(raw)
        return raw, len(gzip.compress(raw, compresslevel=6, mtime=0))
    finally:
        conn.close()


def bench_p5(rig: Rig) -> dict[str, object]:
    to_planning(rig)
    html, html_gz = fetch(rig.server, "/")
    parser = _Refs()
    parser.feed(html.decode())
    files = [{"path": "/", "bytes": len(html), "gzip_bytes": html_gz}]
    for ref in dict.fromkeys(parser.refs):
        path = urllib.parse.urlsplit(ref).path
        body, gz = fetch(rig.server, path)
        files.append({"path": path, "bytes": len(body), "gzip_bytes": gz})
    total = sum(f["gzip_bytes"] for f in files)
    return {
        "name": "planning page + everything it loads, gzip",
        "unit": "KiB",
        "value": round(total / 1024, 1),
        "raw_kib": round(sum(f["bytes"] for f in files) / 1024, 1),
        "files": files,
        "met": total <= 28 * 1024,  # SYSTEM.md 0.6: each page and all it loads
    }


# -- P1 / P2: one tab, POST /coach → pending → ready, beside the CLI run directly -------------


def run_direct(fake: FakeCLI, prompt: bytes) -> float:
    t0 = time.perf_counter()
    done = subprocess.run([str(fake.path), *CLAUDE_ARGS], input=prompt, capture_output=True)
    t1 = time.perf_counter()
    if done.returncode != 0 or b"next_action" not in done.stdout:
        raise RuntimeError(f"the fake CLI failed: {done.returncode} {done.stderr[-500:]!r}")
    return t1 - t0


def sharpen(browser: Browser, tabs: list[Tab]) -> tuple[float, list[float], list[float]]:
    """POST /coach; (t0, when each tab got pending, when each tab got ready)."""
    t0 = time.perf_counter()
    browser.send("/coach", {"intent": INTENT})
    pending = wait_all(tabs, PENDING)
    status = browser.answer()
    if status != 200:
        raise RuntimeError(f"POST /coach: {status}")
    ready = wait_all(tabs, READY)
    return t0, pending, ready


def bench_p1_p2(rig: Rig, trials: Trials) -> tuple[dict, dict]:
    rig.fake.configure(delay=0.0)
    to_planning(rig)
    prompt = build_prompt(INTENT).encode()
    tab = Tab(rig.server)
    browser = Browser(rig.server)
    drain([tab])
    p1, p2_server, p2_direct, ratios, post = [], [], [], [], []
    try:
        for i in range(trials.warmup + trials.coach):
            # Interleaved, so drift (thermal, noisy neighbours) hits both sides alike.
            direct = run_direct(rig.fake, prompt)
            t0, (pending,), (ready,) = sharpen(browser, [tab])
            if i < trials.warmup:
                continue
            p1.append(ms(pending - t0))
            p2_server.append(ms(ready - t0))
            p2_direct.append(ms(direct))
            ratios.append((ready - t0) / direct)
        for _ in range(max(20, trials.coach // 4)):
            t0 = time.perf_counter()
            browser.post("/coach/cancel")
            post.append(ms(time.perf_counter() - t0))
            drain([tab], quiet=0.01)
    finally:
        tab.close()
        browser.close()
    s1 = summary(p1, samples=True)
    server_s, direct_s = summary(p2_server, samples=True), summary(p2_direct, samples=True)
    ratio = server_s["median"] / direct_s["median"]
    return (
        {
            "name": "POST /coach → pending fragment on /ws",
            "unit": "ms",
            **s1,
            "post_round_trip_ms": summary(post),
            "met": s1["median"] <= 5 and s1["p95"] <= 20,
        },
        {
            "name": "POST /coach → ready fragment ÷ the same fake CLI run directly",
            "unit": "ratio",
            "value": round(ratio, 3),
            "paired_ratio": summary(ratios, 3),
            "server_ms": server_s,
            "direct_ms": direct_s,
            # What the server adds, trial by trial (each beside its own direct run).
            "overhead_ms": summary([a - b for a, b in zip(p2_server, p2_direct, strict=True)]),
            "met": ratio <= 1.15,
        },
    )


# -- P3 / P4: fifty tabs ----------------------------------------------------------------------


def bench_p3_p4(rig: Rig, trials: Trials) -> tuple[dict, dict]:
    rig.fake.configure(delay=0.0)
    to_planning(rig)
    rss_idle = rss_mib(rig.worker)
    tabs = [Tab(rig.server) for _ in range(TABS)]
    browser = Browser(rig.server)
    last, first = [], []
    try:
        drain(tabs)
        rss_open = rss_mib(rig.worker)
        for i in range(trials.warmup + trials.fanout):
            if i == trials.warmup:
                cpu0 = _own_cpu(rig.worker)
            t0, pending, _ = sharpen(browser, tabs)
            if i >= trials.warmup:
                last.append(ms(max(pending) - t0))
                first.append(ms(min(pending) - t0))
        # The worker's own CPU per Sharpen (pending and ready to every tab; not the CLI's):
        # what the fan-out costs, whatever else the machine is doing.
        cpu_per_trial = (_own_cpu(rig.worker) - cpu0) / trials.fanout
        drain(tabs)
        rss_after = rss_mib(rig.worker)
        arbiter = rss_mib(rig.server.proc.pid)
        pss = [pss_mib(rig.worker), pss_mib(rig.server.proc.pid)]
    finally:
        for tab in tabs:
            tab.close()
        browser.close()
    s3 = summary(last, samples=True)
    peak = max(rss_open, rss_after)
    return (
        {
            "name": f"{TABS} tabs: POST /coach → the last tab has the pending fragment",
            "unit": "ms",
            **s3,
            "first_tab_ms": summary(first),
            "worker_cpu_ms_per_sharpen": round(ms(cpu_per_trial), 2),
            "met": s3["median"] <= 40,
        },
        {
            "name": f"worker resident memory with {TABS} tabs open",
            "unit": "MiB",
            "value": round(peak, 1),
            "worker_idle_mib": round(rss_idle, 1),
            "worker_tabs_open_mib": round(rss_open, 1),
            "worker_after_pushes_mib": round(rss_after, 1),
            "arbiter_mib": round(arbiter, 1),
            # Both processes together, shared pages counted once (Linux only).
            "server_pss_mib": round(sum(pss), 1) if None not in pss else None,
            "met": peak <= 80,
        },
    )


# -- P7: ten Sharpens in 100 ms ---------------------------------------------------------------


def bench_p7(rig: Rig, trials: Trials) -> dict:
    to_planning(rig)
    runs = []
    tab = Tab(rig.server)
    browser = Browser(rig.server)
    try:
        drain([tab])
        for n in range(trials.bursts):
            pidfile, countfile = rig.root / f"p7-{n}.pids", rig.root / f"p7-{n}.done"
            rig.fake.configure(delay=1.0, pidfile=str(pidfile), count_file=str(countfile))
            t0 = time.perf_counter()
            for i in range(10):
                # Evenly over 90 ms: each one lands while the one before is starting its CLI.
                target = t0 + i * 0.010
                while (pause := target - time.perf_counter()) > 0:
                    time.sleep(pause)
                status = browser.post("/coach", {"intent": f"{INTENT} #{i}"})
                if status != 200:
                    raise RuntimeError(f"POST /coach: {status}")
            span = time.perf_counter() - t0
            wait_all([tab], READY, timeout=15)
            t_ready = time.perf_counter() - t0
            time.sleep(1.5)  # any straggler would complete within its 1 s
            readies = 0
            sel = selectors.DefaultSelector()
            sel.register(tab, selectors.EVENT_READ)
            while sel.select(0):
                message = tab.read()
                readies += bool(message and READY in message)
            sel.close()

            def lines(path: Path) -> int:
                return len(path.read_text().splitlines()) if path.exists() else 0

            runs.append(
                {
                    "posts_span_ms": round(ms(span), 1),
                    "started": lines(pidfile),
                    "completed": lines(countfile),
                    "ready_after_ms": round(ms(t_ready), 1),
                    "extra_ready_pushes": readies,
                }
            )
    finally:
        rig.fake.configure(delay=0.0)
        tab.close()
        browser.close()
    completed = [r["completed"] for r in runs]
    return {
        "name": "ten Sharpens within 100 ms, fake CLI of ~1 s",
        "unit": "CLI runs completed",
        "value": max(completed),
        "completed": completed,
        "started": [r["started"] for r in runs],
        "runs": runs,
        "met": all(c == 1 for c in completed) and all(r["extra_ready_pushes"] == 0 for r in runs),
    }


# -- P8: memory, idle and locked, beside aw-server -------------------------------------------


def bench_p8(root: Path, trials: Trials) -> dict | None:
    """The PSS of the whole `antidrift serve` tree (gunicorn's arbiter and its worker), idle in
    locked with no page open, beside aw-server 0.12.0 (testing mode, in-memory storage) run
    at the same time; None without aw-server (scripts/aw-server-venv)."""
    executable = aw_server.binary()
    if executable is None:
        print(f"P8 skipped: aw-server is not installed ({aw_server.INSTALL})", file=sys.stderr)
        return None
    root = root / "p8"
    # As a user starts it: no ANTIDRIFT_* variable but the window source (off here: a CI
    # machine may have a display, and the sampler does not run while locked anyway).
    server = RunningServer(root / "data")
    server.env = {k: v for k, v in server.env.items() if not k.startswith("ANTIDRIFT_")}
    server.env.update(ANTIDRIFT_WINDOW_SOURCE="off", HOME=str(root / "home"))
    watcher = aw_server.AwServer(root / "aw", executable)
    floor_port = free_port()
    with open(root.parent / "p8-floor.log", "wb") as floor_log:
        floor = bench_floor.start(floor_port, THREADS, floor_log)
    try:
        server.start()
        watcher.wait_ready()
        first_answer(floor, floor_port, time.perf_counter())
        if server.get("/state")["runtime_state"] != "locked":
            raise RuntimeError("P8: a fresh server is not locked")
        time.sleep(trials.settle)  # the start's one-off work (the first backup) is done
        ours, theirs, floors, readings = [], [], [], []
        for n in range(trials.samples):
            if n:
                time.sleep(1.0)
            tree, aw = tree_pss(server.proc.pid), tree_pss(watcher.proc.pid)
            ours.append(sum(tree.values()))
            theirs.append(sum(aw.values()))
            floors.append(sum(tree_pss(floor.pid).values()))
            readings.append({"antidrift": tree, "aw_server": aw})
    finally:
        server.stop()
        watcher.stop()
        _stop(floor)
    last = readings[-1]["antidrift"]
    arbiter = last.get(server.proc.pid, 0.0)
    value, aw_value = statistics.median(ours), statistics.median(theirs)
    floor_value = statistics.median(floors)
    return {
        "name": "`antidrift serve` tree PSS, idle and locked, beside the stack's floor",
        "unit": "MiB",
        "value": round(value, 1),
        "floor_mib": round(floor_value, 1),  # bare gunicorn + Flask + flask-sock, same run
        "above_floor_mib": round(value - floor_value, 1),
        "aw_server_mib": round(aw_value, 1),
        "processes": len(last),
        "arbiter_mib": round(arbiter, 1),
        "worker_mib": round(sum(last.values()) - arbiter, 1),
        "aw_server_processes": len(readings[-1]["aw_server"]),
        "samples": [
            {"antidrift_mib": round(a, 1), "aw_server_mib": round(b, 1)}
            for a, b in zip(ours, theirs, strict=True)
        ],
        "met": value <= floor_value + 5,
    }


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM, then the whole group killed if it has not gone in 10 s."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(5)


# -- P6: `antidrift serve` start → first answer -----------------------------------------------


def serve_argv(port: int, data_dir: Path) -> list[str]:
    script = Path(sys.executable).with_name("antidrift")
    base = [str(script)] if script.exists() else [sys.executable, "-m", "antidrift"]
    return [*base, "serve", "--port", str(port), "--data-dir", str(data_dir)]


def first_answer(proc: subprocess.Popen, port: int, t0: float) -> float:
    """Seconds from t0 to the first 200 on /state, polling every 5 ms."""
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited {proc.returncode}")
        if time.perf_counter() - t0 > 30:
            raise RuntimeError("server did not answer in 30 s")
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        try:
            conn.request("GET", "/state")
            if conn.getresponse().status == 200:
                return time.perf_counter() - t0
        except OSError:
            time.sleep(0.005)
        finally:
            conn.close()


def bench_p6(root: Path, trials: Trials) -> dict:
    """Start → first answer, ours and the stack's floor started in turn (the one going first
    alternates), so a change in the machine's load falls on both alike; and what each start
    cost in CPU, which the load changes far less."""
    times, cpu, floors, floor_cpu = [], [], [], []
    env = {**os.environ, "ANTIDRIFT_WINDOW_SOURCE": "off", "PATH": path_with(root / "bin")}

    def ours(n: int) -> None:
        port = free_port()
        with open(root / f"p6-{n}.log", "wb") as log:
            t0 = time.perf_counter()
            proc = subprocess.Popen(
                serve_argv(port, root / f"p6-{n}"),
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=REPO,
                start_new_session=True,
            )
            try:
                times.append(first_answer(proc, port, t0))
                # What the start cost in CPU, whatever else the machine was doing.
                cpu.append(cpu_seconds(proc.pid))
            finally:
                _stop(proc)

    def floor(n: int) -> None:  # the stack's floor, started as often, in the same run
        port = free_port()
        with open(root / f"p6-floor-{n}.log", "wb") as log:
            t0 = time.perf_counter()
            proc = bench_floor.start(port, THREADS, log)
            try:
                floors.append(first_answer(proc, port, t0))
                floor_cpu.append(cpu_seconds(proc.pid))
            finally:
                _stop(proc)

    for n in range(trials.starts):
        for start in (ours, floor) if n % 2 == 0 else (floor, ours):
            start(n)
    s, floor_s = summary(times, 3), summary(floors, 3)
    return {
        "name": "`antidrift serve` start → first 200 on /state, beside the stack's floor",
        "unit": "s",
        **s,
        "floor_s": floor_s,
        "above_floor_ms": round((s["median"] - floor_s["median"]) * 1000),
        "cpu_s": summary(cpu, 3),
        "floor_cpu_s": summary(floor_cpu, 3),
        "met": s["median"] <= floor_s["median"] + 0.1,
    }


# -- profiling (optional) ---------------------------------------------------------------------


def start_py_spy(pid: int, out: Path) -> subprocess.Popen | None:
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(spy).exists():
        print("py-spy is not installed (pip install py-spy); not profiling", file=sys.stderr)
        return None
    out.parent.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [
            spy,
            "record",
            "--pid",
            str(pid),
            "--rate",
            "1000",
            "--threads",
            "--format",
            "raw",
            "--output",
            str(out),
            "--nonblocking",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def stop_py_spy(spy: subprocess.Popen | None) -> None:
    if spy is None:
        return
    spy.send_signal(signal.SIGINT)
    try:
        spy.wait(30)
    except subprocess.TimeoutExpired:
        spy.kill()


# -- C1: Sharpen with the real claude against the instant local API ---------------------------


def _claude_direct(argv: list[str], prompt: bytes, env: dict[str, str], cwd: Path) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(argv, input=prompt, capture_output=True, env=env, cwd=cwd, timeout=60)
    t1 = time.perf_counter()
    if done.returncode != 0 or b"next_action" not in done.stdout:
        raise RuntimeError(f"claude failed: {done.returncode} {done.stdout[-300:]!r}")
    return t1 - t0


@contextlib.contextmanager
def _claude_server(root: Path, claude: Path, env: dict[str, str], *, warm: bool):
    """A real server whose coach is the real claude, in only the isolated environment."""
    server = RunningServer(root / "data")
    server.env = {  # nothing of the caller's environment: no account, no real API
        **env,
        "ANTIDRIFT_WINDOW_SOURCE": "off",
        "PYTHONUNBUFFERED": "1",
        "ANTIDRIFT_AI_BACKEND": "claude",
        "ANTIDRIFT_CLAUDE_BIN": str(claude),
        "ANTIDRIFT_AI_WARM": "1" if warm else "0",
    }
    server.start()
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def _stand_in_env(home: Path):
    """The stand-in API and an environment that points claude at it (and nowhere else)."""
    with StandInAPI() as api, real_cli.refused_port() as dead:
        env = real_cli.isolated_env(home, dead)
        env.update(ANTHROPIC_BASE_URL=api.url, ANTHROPIC_API_KEY=real_cli.FAKE_KEY)
        yield env


def bench_c1(root: Path, trials: Trials) -> dict | None:
    """Sharpen → pre-filled with the real claude (spawned cold per call) against a stand-in
    API that answers at once, beside the same claude call run directly; None without it."""
    claude = real_cli.binary("claude")
    if claude is None:
        print(f"C1 skipped: {real_cli.INSTALL_HINT}", file=sys.stderr)
        return None
    prompt = build_prompt(INTENT).encode()
    root = root / "c1"
    with _stand_in_env(root / "home") as env:
        # The same call AntiDrift makes (argv, environment, an empty working directory) …
        same = [str(claude), *ClaudeBackend(str(claude)).args(str(claude))[1:]]
        same += ["--json-schema", json.dumps(PROPOSAL_SCHEMA, separators=(",", ":"))]
        same_env = {**env, **CLAUDE_ENV}
        # … and what a person types in a shell: `claude -p '<prompt>'`, all defaults.
        plain = [str(claude), "-p", prompt.decode()]
        cwd = root / "cwd"
        cwd.mkdir(parents=True)
        with _claude_server(root, claude, env, warm=False) as server:
            server.post("/planning")
            tab, browser = Tab(server), Browser(server)
            drain([tab])
            cold, direct, shell, ratios = [], [], [], []
            try:
                for i in range(1 + trials.real):  # one warm-up of the disk cache
                    d = _claude_direct(same, prompt, same_env, cwd)
                    p = _claude_direct(plain, b"", env, cwd)
                    t0, _, (ready,) = sharpen(browser, [tab])
                    if i == 0:
                        continue
                    cold.append(ms(ready - t0))
                    direct.append(ms(d))
                    shell.append(ms(p))
                    ratios.append((ready - t0) / d)
            finally:
                tab.close()
                browser.close()
    cold_s, direct_s = summary(cold, samples=True), summary(direct, samples=True)
    ratio = cold_s["median"] / direct_s["median"]
    return {
        "name": "Sharpen → pre-filled, real claude (cold) ÷ the same claude call run directly",
        "unit": "ratio",
        "value": round(ratio, 3),
        "paired_ratio": summary(ratios, 3),
        "server_ms": cold_s,
        "direct_ms": direct_s,
        "plain_claude_p_ms": summary(shell),
        "claude": real_cli.CLAUDE_VERSION,
        "met": ratio <= 1.10,
    }


def _claude_children(pid: int) -> list[int]:
    """The claude processes among pid's children."""
    found = []
    for child in procs.children(pid):
        with contextlib.suppress(OSError):
            if "claude" in Path(f"/proc/{child}/comm").read_text():
                found.append(child)
    return found


def bench_c2(root: Path, trials: Trials) -> dict | None:
    """Sharpen → pre-filled with a claude kept warm (ANTIDRIFT_AI_WARM=1): started on entering
    planning, replaced after each Sharpen; each Sharpen comes after trials.typing seconds."""
    claude = real_cli.binary("claude")
    if claude is None:
        print(f"C2 skipped: {real_cli.INSTALL_HINT}", file=sys.stderr)
        return None
    root = root / "c2"
    with (
        _stand_in_env(root / "home") as env,
        _claude_server(root, claude, env, warm=True) as server,
    ):
        worker = worker_pid(server)
        server.post("/planning")
        tab, browser = Tab(server), Browser(server)
        drain([tab])
        latencies, idle_rss = [], []
        try:
            for i in range(1 + trials.real):
                time.sleep(trials.typing)
                idle_rss += [rss_mib(pid) for pid in _claude_children(worker)]
                t0, _, (ready,) = sharpen(browser, [tab])
                if i:
                    latencies.append(ms(ready - t0))
        finally:
            tab.close()
            browser.close()
        server.post("/planning/cancel")
        deadline = time.monotonic() + 5
        while (left := _claude_children(worker)) and time.monotonic() < deadline:
            time.sleep(0.05)
    figure = summary(latencies, samples=True)
    return {
        "name": f"Sharpen → pre-filled, real claude kept warm ({trials.typing:g} s typing first)",
        "unit": "ms",
        **figure,
        "idle_claude_rss_mib": round(max(idle_rss), 1) if idle_rss else None,
        "claude_left_after_planning": len(left),
        "claude": real_cli.CLAUDE_VERSION,
        "met": figure["median"] <= 300 and not left,
    }


# -- the run ----------------------------------------------------------------------------------


def load_average() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def run(trials: Trials, *, quick: bool, profile: Path | None, only: set[str]) -> dict:
    started = time.time()
    load_before = load_average()
    figures: dict[str, dict] = {}
    want = only.__contains__ if only else (lambda _key: True)
    with tempfile.TemporaryDirectory(prefix="antidrift-bench-") as tmp:
        root = Path(tmp)
        # The rig's server only for the figures measured on it.
        rig = start_rig(root) if any(map(want, ("P1", "P2", "P3", "P4", "P5", "P7"))) else None
        try:
            if want("P5"):
                figures["P5"] = bench_p5(rig)
            if want("P1") or want("P2"):
                spy = start_py_spy(rig.worker, profile / "p1-p2.txt") if profile else None
                try:
                    figures["P1"], figures["P2"] = bench_p1_p2(rig, trials)
                finally:
                    stop_py_spy(spy)
            if want("P3") or want("P4"):
                spy = start_py_spy(rig.worker, profile / "p3.txt") if profile else None
                try:
                    figures["P3"], figures["P4"] = bench_p3_p4(rig, trials)
                finally:
                    stop_py_spy(spy)
            if want("P7"):
                figures["P7"] = bench_p7(rig, trials)
        finally:
            if rig is not None:
                rig.server.stop()
        if want("P6"):
            figures["P6"] = bench_p6(root, trials)
        if want("P8") and (p8 := bench_p8(root, trials)) is not None:
            figures["P8"] = p8
        if want("D1"):
            figures["D1"] = bench_d1(root, quick=quick)
        if want("E1"):
            figures["E1"] = bench_e1(root, "quick" if quick else "full")
        if want("E2"):
            figures["E2"] = bench_e2(root, "quick" if quick else "full")
        if want("Q1"):
            figures["Q1"] = bench_q1(root, "quick" if quick else "full")
        if want("S1") or want("S2") or want("S3"):
            figures["S1"], figures["S2"], figures["S3"] = bench_sync(
                root, "quick" if quick else "full"
            )
        if want("S4") or want("S6"):
            figures["S4"], figures["S6"] = bench_live(root, "quick" if quick else "full")
        if want("S5"):
            figures["S5"] = bench_s5(root, "quick" if quick else "full")
        reflection_trials = REFLECTION_TRIALS["quick" if quick else "full"]
        if want("R1") or want("R2"):
            figures["R1"], figures["R2"] = bench_history(root, reflection_trials, quick)
        if want("R3"):
            figures["R3"] = bench_review(root, reflection_trials, quick)
        if want("B1") or want("B2"):
            figures["B1"], figures["B2"] = bench_backup(root, "quick" if quick else "full")
        if want("C1") and (c1 := bench_c1(root, trials)) is not None:
            figures["C1"] = c1
        if want("C2") and (c2 := bench_c2(root, trials)) is not None:
            figures["C2"] = c2
    for key, figure in figures.items():
        figure["goal"] = GOALS[key]
    return {
        "mode": "quick" if quick else "full",
        "machine": machine(),
        "trials": trials.__dict__,
        "seconds": round(time.time() - started, 1),
        # Other work on the machine shows here first: compare runs only at a similar load.
        "load_average_1min": {"before": load_before, "after": load_average()},
        "figures": {key: figures[key] for key in sorted(figures)},
    }


def table(result: dict) -> str:
    rows = [("", "figure", "median", "p95", "goal", "met")]
    for key, f in result["figures"].items():
        unit = f["unit"]
        if "median" in f:
            median, p95 = f"{f['median']:g} {unit}", f"{f['p95']:g} {unit}"
        elif key == "P8":
            median = f"{f['value']:g} {unit} ({f['processes']} processes)"
            p95 = f"floor {f['floor_mib']:g} {unit}, aw-server {f['aw_server_mib']:g} {unit}"
        elif key == "P7":
            median, p95 = f"completed {f['completed']}", f"started {f['started']}"
        elif key == "D1":
            hour, srv = f["hour"], f["server"]
            day = f["day"]
            median = (
                f"{hour['calls']} calls/h, {hour['distinct_windows']} windows; a day:"
                f" {day['runs']['rules_and_churn']['calls']} calls,"
                f" {day['calls_saved_by_rules']} saved by rules"
            )
            if f.get("sites_day"):
                runs = f["sites_day"]["runs"]
                away = sum(r["nudges_while_away"] for r in runs.values())
                median += (
                    f"; with sites {runs['sites']['calls']} calls"
                    f" (without {runs['no_sites']['calls']}), {away} nudges away"
                )
            p95 = f"nudge {srv['nudge_latency_s']:g} s (grace {srv['grace_s']:g} s)"
        else:
            median, p95 = f"{f['value']:g} {unit}" if unit != "ratio" else f"{f['value']:.3f}", ""
            if key in ("P2", "C1"):
                p95 = f"{f['paired_ratio']['p95']:.3f} (paired)"
        rows.append((key, f["name"], median, p95, f["goal"], "yes" if f["met"] else "NO"))
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    m = result["machine"]
    head = (
        f"AntiDrift bench ({result['mode']}, {result['seconds']} s): {m.get('nproc')} CPUs, "
        f"{m.get('cpu', '?')}, {m.get('memory_gib', '?')} GiB, Python {m['python']}; "
        f"load {result['load_average_1min']['before']} → {result['load_average_1min']['after']}"
    )
    return "\n".join([head, *lines])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a few trials each (seconds)")
    ap.add_argument("--out", type=Path, default=REPO / "bench-results" / "bench.json")
    ap.add_argument("--trials", type=int, help="P1/P2 trials (default 300; quick 12)")
    ap.add_argument(
        "--py-spy",
        type=Path,
        metavar="DIR",
        dest="profile",
        help="sample the worker with py-spy during P1/P2 and P3 (raw stacks in DIR)",
    )
    ap.add_argument(
        "--only",
        default="",
        metavar="P1,P2,…",
        help="measure only these figures (P1/P2 and P3/P4 come in pairs)",
    )
    args = ap.parse_args(argv)
    only = {k.strip().upper() for k in args.only.split(",") if k.strip()}
    if only - GOALS.keys():
        ap.error(f"unknown figure(s): {', '.join(sorted(only - GOALS.keys()))}")
    trials = QUICK if args.quick else FULL
    if args.trials:
        trials = Trials(**{**trials.__dict__, "coach": args.trials})
    result = run(trials, quick=args.quick, profile=args.profile, only=only)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    print(table(result))
    print(f"\nwritten to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
