"""scripts/mutate's Python half: which tests each mutated path has, and one mutmut run per scope.

mutmut 3 reads [tool.mutmut] in pyproject.toml, first runs every selected test once to learn
which tests reach which function, and forgets every result when the selection changes. So a
run here is one scope: the paths it mutates and only the in-process test files that cover them
(a server or CLI in a subprocess would not see the mutant). Each scope keeps its own results:
mutants/ while it runs, parked in .mutants/<scope>/ between runs (both ignored by git), so a run
stopped by its time bound goes on from where it stopped, and a later one re-tests what changed.

    mutate_scope.py run [--minutes N] [--workers N] [PATH...]   mutate (no PATH: every wing)
    mutate_scope.py score                                       per file, from the parked results
    mutate_scope.py results                                     the survivors, per scope
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIVE = ROOT / "mutants"
PARKED = ROOT / ".mutants"
MARKER = ".antidrift-scope"

DRIFT_PAGES = [
    "tests/web/test_drift_judge_render.py",
    "tests/web/test_drift_render.py",
    "tests/web/test_drift_routes.py",
    "tests/web/test_rules_routes.py",
]
TEETH_TESTS = [
    "tests/unit/test_drift.py",
    "tests/unit/test_enforcement.py",
    "tests/unit/test_session_teeth.py",
    "tests/unit/evidence/test_evidence_put_away.py",
    "tests/web/test_teeth_page.py",
]

# name: (the paths it mutates, the test files run against them). A PATH given on the command
# line runs in the first scope that holds it, so the narrow scopes come first.
SCOPES: dict[str, tuple[list[str], list[str]]] = {
    "teeth": (["antidrift/drift/teeth.py", "antidrift/drift/put_away.py"], TEETH_TESTS),
    "drift": (
        ["antidrift/drift/*", "antidrift/core/drift_records.py"],
        [
            *TEETH_TESTS,
            "tests/unit/test_drift_config.py",
            "tests/unit/test_drift_judge.py",
            "tests/unit/test_session_drift.py",
            "tests/unit/test_store_drift.py",
            "tests/unit/test_window_key.py",
            "tests/unit/test_pause.py",
            "tests/unit/test_session_calendar.py",
            *DRIFT_PAGES,
        ],
    ),
    "session": (
        ["antidrift/session/*"],
        [
            "tests/unit/test_session.py",
            "tests/unit/test_session_calendar.py",
            "tests/unit/test_session_coach.py",
            "tests/unit/test_session_drift.py",
            "tests/unit/test_session_reflection.py",
            "tests/unit/test_session_speaks.py",
            "tests/unit/test_session_teeth.py",
            "tests/unit/test_reflecting.py",
            "tests/unit/test_pause.py",
            "tests/unit/test_undo_finish.py",
            "tests/unit/test_extend.py",
            "tests/unit/test_save_before_change.py",
            "tests/unit/test_draft_task.py",
            "tests/unit/test_wall_clock_jumps.py",
            "tests/web/test_commitment_race.py",
            "tests/web/test_drafts.py",
            "tests/web/test_extend_route.py",
            "tests/web/test_pause_routes.py",
            "tests/web/test_reflection_routes.py",
        ],
    ),
    "backup": (
        ["antidrift/store/backup.py"],
        ["tests/unit/test_backup_schedule.py", "tests/unit/test_settings.py"],
    ),
    "tasks": (
        ["antidrift/tasks/*"],
        ["tests/unit/tasks/", "tests/unit/test_draft_task.py", "tests/web/test_task_routes.py"],
    ),
}
WINGS = ["drift", "session", "backup", "tasks"]  # a run with no PATH: teeth is inside drift


def scope_of(path: str) -> str:
    path = path.rstrip("/")
    for name, (patterns, _) in SCOPES.items():
        for pattern in patterns:
            if fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(path + "/x.py", pattern):
                return name
    raise SystemExit(f"scripts/mutate: {path} is not among the mutated paths: {mutated()}.")


def mutated() -> str:
    return ", ".join(p for name in WINGS for p in SCOPES[name][0])


def mutant_names(path: str) -> str:
    # a mutant is named module.function__mutmut_N: antidrift.drift.teeth.x_due__mutmut_3
    module = path.rstrip("/").removesuffix(".py").replace("/", ".")
    return module + ".*"


def park() -> None:
    """Put the live mutants/ back in .mutants/<its scope>/ (a hard-killed run left it out)."""
    if not LIVE.exists():
        return
    marker = LIVE / MARKER
    name = marker.read_text().strip() if marker.exists() else ""
    if name not in SCOPES:  # not ours, or from before scopes: start that scope afresh
        shutil.rmtree(LIVE)
        return
    PARKED.mkdir(exist_ok=True)
    shutil.rmtree(PARKED / name, ignore_errors=True)
    LIVE.rename(PARKED / name)


def unpark(name: str) -> None:
    park()
    if (PARKED / name).exists():
        (PARKED / name).rename(LIVE)
    else:
        LIVE.mkdir()
    (LIVE / MARKER).write_text(name + "\n")


def mutmut(name: str, args: list[str], deadline: float | None = None) -> int:
    """mutmut ARGS in a child, with this scope's paths and tests over pyproject's [tool.mutmut];
    at the deadline the child is interrupted (mutmut saves what it has) and then killed."""
    child = subprocess.Popen(
        [sys.executable, __file__, "--child", name, *args], cwd=ROOT, start_new_session=True
    )
    try:
        return child.wait(None if deadline is None else max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGINT)
        try:
            child.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
        return 124
    except KeyboardInterrupt:
        os.killpg(child.pid, signal.SIGINT)
        child.wait()
        raise


def child(name: str, args: list[str]) -> None:
    from mutmut.__main__ import cli
    from mutmut.configuration import config

    # mutmut's one Config, read from pyproject.toml: this scope's paths and tests over it
    config().only_mutate, config().pytest_add_cli_args_test_selection = SCOPES[name]
    cli(args, prog_name="mutmut")


def run(paths: list[str], minutes: float, workers: int) -> int:
    scopes: dict[str, list[str]] = {}
    for path in paths:
        if not (ROOT / path).exists():
            raise SystemExit(f"scripts/mutate: there is no {path}.")
        scopes.setdefault(scope_of(path), []).append(mutant_names(path))
    for name in [] if paths else WINGS:
        scopes[name] = []
    deadline = time.monotonic() + minutes * 60
    for name, names in scopes.items():
        print(f"scripts/mutate: {name}: {' '.join(SCOPES[name][0])}", flush=True)
        unpark(name)
        try:
            status = mutmut(name, ["run", "--max-children", str(workers), *names], deadline)
            mutmut(name, ["export-cicd-stats"])
            stats = LIVE / "mutmut-cicd-stats.json"
            if stats.exists():
                print(f"scripts/mutate: {name}: {stats.read_text()}", flush=True)
        finally:
            park()
        if status == 124:
            print(
                f"scripts/mutate: stopped after {minutes:g} minutes; run it again to go on.",
                file=sys.stderr,
            )
            return status
        if status:
            return status
    return 0


def each_parked(args: list[str]) -> None:
    for name in SCOPES:
        if (PARKED / name).exists():
            print(f"== {name}: {' '.join(SCOPES[name][0])}", flush=True)
            unpark(name)
            try:
                mutmut(name, args)
            finally:
                park()


def score() -> None:
    """Per file, from each parked scope's mutants/*.meta: killed, survived, timeout, no tests."""
    from mutmut.stats import status_by_exit_code

    columns = ("killed", "survived", "timeout", "no tests", "not checked")
    row = "%-8s %-36s %7s %9s %8s %9s %10s"
    print(row % ("scope", "file", "killed", "survived", "timeout", "no tests", "unchecked"))
    for name in SCOPES:
        for meta in sorted((PARKED / name).glob("antidrift/**/*.py.meta")):
            codes = json.loads(meta.read_text()).get("exit_code_by_key", {}).values()
            statuses = [status_by_exit_code[code] for code in codes]
            if any(status != "not checked" for status in statuses):
                path = str(meta.relative_to(PARKED / name)).removesuffix(".meta")
                print(row % (name, path, *(statuses.count(column) for column in columns)))


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], sys.argv[3:])
        return 0
    parser = argparse.ArgumentParser(prog="scripts/mutate")
    commands = parser.add_subparsers(dest="command", required=True)
    go = commands.add_parser("run")
    go.add_argument("--minutes", type=float, default=float(os.environ.get("MUTATE_MINUTES", 25)))
    go.add_argument("--workers", type=int, default=int(os.environ.get("MUTATE_WORKERS", 1)))
    go.add_argument("paths", nargs="*")
    commands.add_parser("score")
    commands.add_parser("results")
    args = parser.parse_args()
    os.chdir(ROOT)
    if args.command == "run":
        return run(args.paths, args.minutes, args.workers)
    if args.command == "score":
        score()
    else:
        each_parked(["results"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
