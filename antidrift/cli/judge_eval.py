"""`antidrift judge-eval`: how often the configured drift judge is right, measured on a
labelled corpus of situations shipped with the package (judge_corpus.jsonl).

Each case is a commitment (next action, done when), a window (app, title) and the right
answer (on_task, off_task or unclear). A private case is judged as the guard judges a title
the user excluded: by the app alone; and the user's own private-title pattern
(ANTIDRIFT_EVIDENCE_EXCLUDE) hides what it matches here as it does in the guard. The cases
go to the judge one at a time, as the guard sends them; the figures are the accuracy, the
precision and recall of "off task" (a nudge that should not have come; one that should
have), how often it says unclear, and the median time a verdict took. It measures the judge
(the model and the prompt), not the policy: no rules, no cache, no churn.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from antidrift.ai import CoachError, Judge
from antidrift.core.errors import Error
from antidrift.core.sites import redact_page
from antidrift.core.terminal import say
from antidrift.drift.window_key import judge_page, window_of

CORPUS = "judge_corpus.jsonl"  # package data, beside this module in the wheel
VERDICTS = ("on_task", "off_task", "unclear")
_FIELDS = ("id", "next_action", "done_when", "app", "title", "expected")
MAX_CASES = 100_000
MAX_CASES_BYTES = 10 << 20  # the shipped corpus is under 100 KiB


class CasesError(Error, ValueError):
    """A cases file that cannot be used; the message names the file and the line."""


@dataclass(frozen=True)
class Case:
    """One labelled situation."""

    id: str
    next_action: str
    done_when: str
    app: str
    title: str
    expected: str
    kind: str = ""
    private: bool = False  # judged by the app alone, as an excluded title is
    url: str = ""  # a browser tab's URL: its site is sent beside the app and title


@dataclass(frozen=True)
class EvalOutcome:
    """What the judge said of one case (None with the error when the call failed)."""

    case: Case
    said: str | None
    latency_ms: float
    error: str | None = None

    @property
    def right(self) -> bool:
        return self.said == self.case.expected


@dataclass(frozen=True)
class Report:
    """The figures judge-eval prints."""

    cases: int
    accuracy: float
    off_task_precision: float | None  # None: the judge never said off_task
    off_task_recall: float | None  # None: no case expects off_task
    unclear_rate: float
    median_latency_ms: float | None
    errors: int
    by_kind: dict[str, tuple[int, int]]  # kind -> (right, cases)

    def as_json(self) -> dict[str, object]:
        """The --json object: exactly the documented keys."""
        return {
            "cases": self.cases,
            "accuracy": _round(self.accuracy),
            "off_task_precision": _round(self.off_task_precision),
            "off_task_recall": _round(self.off_task_recall),
            "unclear_rate": _round(self.unclear_rate),
            "median_latency_ms": _round(self.median_latency_ms, 1),
        }


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def _case(data: object, where: str) -> Case:
    if not isinstance(data, dict):
        raise CasesError(f"{where}: a case is a JSON object")
    missing = [k for k in _FIELDS if not isinstance(data.get(k), str)]
    if missing:
        raise CasesError(f"{where}: missing or not text: {', '.join(missing)}")
    if data["expected"] not in VERDICTS:
        raise CasesError(f"{where}: expected must be one of {', '.join(VERDICTS)}")
    return Case(
        data["id"],
        data["next_action"],
        data["done_when"],
        data["app"],
        data["title"],
        data["expected"],
        str(data.get("kind") or ""),
        data.get("private") is True,
        data["url"] if isinstance(data.get("url"), str) else "",
    )


def shipped_corpus() -> Traversable:
    """The labelled corpus shipped with the package."""
    return resources.files("antidrift.cli") / CORPUS


def load_cases(path: Path | Traversable) -> list[Case]:
    """A cases file: JSON Lines (one case a line) or one JSON array of cases; ids unique."""
    try:
        with path.open("rb") as file:  # bounded: /dev/zero or a huge file must not eat memory
            data = file.read(MAX_CASES_BYTES + 1)
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CasesError(f"{path}: cannot be read ({exc.__class__.__name__})") from None
    if len(data) > MAX_CASES_BYTES:
        raise CasesError(f"{path}: larger than {MAX_CASES_BYTES >> 20} MiB; not a cases file")
    if text.lstrip().startswith("["):
        try:
            items = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise CasesError(f"{path}: not valid JSON ({exc})") from None
        if not isinstance(items, list):
            raise CasesError(f"{path}: not a JSON array of cases")
        found = [(f"{path} case {i + 1}", item) for i, item in enumerate(items)]
    else:
        found = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                found.append((f"{path}:{number}", json.loads(line)))
            except (ValueError, RecursionError):
                raise CasesError(f"{path}:{number}: not a JSON object") from None
    if not found:
        raise CasesError(f"{path}: holds no cases")
    if len(found) > MAX_CASES:
        raise CasesError(f"{path}: more than {MAX_CASES} cases")
    cases, seen = [], set()
    for where, item in found:
        case = _case(item, where)
        if case.id in seen:
            raise CasesError(f"{where}: the id {case.id!r} is used twice")
        seen.add(case.id)
        cases.append(case)
    return cases


def sent_window(case: Case, exclude: re.Pattern[str] | None) -> tuple[str, str | None, str | None]:
    """The app, title and site the live guard would send of this case's window (title None:
    judged by the app alone): a private title is left out, and so is what the pattern
    matches (a site it matches hides the page); never the URL's path or query."""
    app, title, _, site = redact_page(case.app, case.title, case.url or None, exclude)
    if case.private:
        return app, None, None
    # Then as the guard's policy builds its call from the window it recorded.
    title, site, app = judge_page(window_of(app, title, site), exclude)
    return app, title, site


def evaluate(
    judge: Judge,
    cases: Iterable[Case],
    *,
    exclude: re.Pattern[str] | None = None,
    clock: Callable[[], float] = time.perf_counter,
    progress: Callable[[int, EvalOutcome], None] | None = None,
) -> list[EvalOutcome]:
    """Each case through the judge, one at a time; a failed call is an outcome, not a stop."""
    outcomes = []
    for number, case in enumerate(cases, 1):
        app, title, site = sent_window(case, exclude)
        started = clock()
        try:
            verdict = judge.judge(case.next_action, case.done_when, app, title, site=site)
            outcome = EvalOutcome(case, verdict.verdict, (clock() - started) * 1000)
        except CoachError as exc:
            outcome = EvalOutcome(case, None, (clock() - started) * 1000, str(exc))
        outcomes.append(outcome)
        if progress is not None:
            progress(number, outcome)
    return outcomes


def score(outcomes: Sequence[EvalOutcome]) -> Report:
    """The figures over every outcome (a failed call counts as a wrong answer)."""
    total = len(outcomes)
    said_off = [o for o in outcomes if o.said == "off_task"]
    expected_off = [o for o in outcomes if o.case.expected == "off_task"]
    caught = sum(1 for o in said_off if o.case.expected == "off_task")
    kinds: Counter[str] = Counter()
    right_by_kind: Counter[str] = Counter()
    for o in outcomes:
        kinds[o.case.kind] += 1
        right_by_kind[o.case.kind] += o.right
    return Report(
        cases=total,
        accuracy=sum(o.right for o in outcomes) / total if total else 0.0,
        off_task_precision=caught / len(said_off) if said_off else None,
        off_task_recall=caught / len(expected_off) if expected_off else None,
        unclear_rate=sum(o.said == "unclear" for o in outcomes) / total if total else 0.0,
        median_latency_ms=statistics.median(o.latency_ms for o in outcomes) if total else None,
        errors=sum(o.error is not None for o in outcomes),
        by_kind={k: (right_by_kind[k], n) for k, n in sorted(kinds.items())},
    )


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.1f} %"


def render(report: Report, where: str) -> str:
    """The figures as a person reads them."""
    latency = report.median_latency_ms
    lines = [
        f"judge-eval: {report.cases} cases through {where}",
        f"  accuracy             {_percent(report.accuracy)}",
        f"  off-task precision   {_percent(report.off_task_precision)}",
        f"  off-task recall      {_percent(report.off_task_recall)}",
        f"  unclear rate         {_percent(report.unclear_rate)}",
        f"  median latency       {'—' if latency is None else f'{latency:.0f} ms'}",
        f"  failed calls         {report.errors}",
    ]
    if any(report.by_kind):
        parts = [f"{kind or 'other'} {r}/{n}" for kind, (r, n) in report.by_kind.items()]
        lines.append("  right by kind        " + ", ".join(parts))
    return "\n".join(lines)


# -- the command ----------------------------------------------------------------------------


def setup(parser: argparse.ArgumentParser):
    """`antidrift judge-eval`'s arguments; returns the function that runs it."""
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--limit", type=_positive, help="run only the first N cases")
    parser.add_argument(
        "--cases", type=Path, help="a JSON Lines file of cases (default: the shipped corpus)"
    )
    return run_command


def _positive(text: str) -> int:
    if not text.isascii() or not text.isdigit() or not 0 < int(text) <= MAX_CASES:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to {MAX_CASES}")
    return int(text)


def run_command(args: argparse.Namespace) -> int:
    """Run the corpus through the configured judge; 0 when it ran. A cases file or settings
    it cannot use raise (CasesError, JudgeUnavailable): the CLI's one mapping says the
    sentence and exits 2, as for every command."""
    cases = load_cases(args.cases or shipped_corpus())
    if args.limit:
        cases = cases[: args.limit]
    judge, where, exclude = configured_judge()

    def progress(number: int, outcome: EvalOutcome) -> None:
        mark = "." if outcome.right else ("E" if outcome.error else "x")
        say(mark, end="" if number % 50 else "\n", err=True)

    # A failed call is counted and summed up below; its log line per case would bury that.
    logger = logging.getLogger("antidrift")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        outcomes = evaluate(judge, cases, exclude=exclude, progress=progress)
    except KeyboardInterrupt:
        say("\nantidrift judge-eval: interrupted; no figures", err=True)
        return 130
    finally:
        logger.setLevel(level)
    say(err=True)
    report = score(outcomes)
    if report.errors:
        first = next(o.error for o in outcomes if o.error)
        calls = "call" if report.errors == 1 else "calls"
        say(f"antidrift judge-eval: {report.errors} {calls} failed, e.g.: {first}", err=True)
    if report.errors == report.cases:
        say("antidrift judge-eval: every call failed; no figures", err=True)
        return 1
    say(json.dumps(report.as_json()) if args.json else render(report, where))
    return 0


class JudgeUnavailable(Error):
    """No judge can be built from the settings; the message says why."""


def configured_judge() -> tuple[Judge, str, re.Pattern[str] | None]:
    """The drift judge the server would use (the same backend, prompt and timeout), where its
    calls go, and the private-title pattern the guard applies."""
    from antidrift import ai
    from antidrift.settings import SettingsError, load

    try:
        settings = load()
    except SettingsError as exc:  # e.g. a remote URL that is not allowed
        raise JudgeUnavailable(str(exc)) from None
    try:
        backend = ai.new_backend(settings.ai_backend, ai.Options.of(settings))
    except ai.UnknownBackend as exc:
        raise JudgeUnavailable(f"no AI backend to judge with: {exc}") from None
    if backend.binary() is None:
        raise JudgeUnavailable(
            f"no AI backend to judge with: the {backend.name} program is not on PATH"
            f" (set {backend.env_var}, or choose another with ANTIDRIFT_AI_BACKEND)"
        )
    judge = ai.JudgeService(backend, timeout=settings.ai_timeout)
    url = getattr(backend, "url", None)
    where = f"{judge.label} at {url}" if isinstance(url, str) else judge.label
    return judge, where, settings.evidence_exclude
