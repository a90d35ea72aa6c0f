"""The command line for the desktop: `antidrift status` for bars and terminals, and `start`,
`finish`, `extend`, `end`, `pause`, `resume`, `back`, `on-task` for hotkeys; `day` (the
day's queue) and `day add`. Each talks to the
running server (antidrift/cli/client.py); none starts one.

Exit codes: 0 done; 1 no AntiDrift running (one line, with the command that starts one);
2 the server refused (its own sentence: 400, 404, 409); 3 the server could not (5xx). A
ClientError says which; the command line maps it (antidrift/server/commands.py), as every refusal.

`status --follow` writes a line at every change and every second while a commitment runs,
and keeps going across server restarts. Its requests: one `GET /state` held by the server
until the state changes (antidrift/web/watch.py), so one request per change and one every
five minutes when nothing changes; the per-second lines are counted down here from the
`left_secs` of the last answer, with no request at all. While no server answers it tries
to connect once a second.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import sys
import threading
import time
from collections.abc import Callable

from antidrift.cli import statusline
from antidrift.cli.client import (
    Client,
    ClientError,
    NotRunning,
    find,
    server_data_dir,
    starts_one,
)
from antidrift.core.day import UNTIMED_MINUTES, fit_text
from antidrift.core.domain import validate_plan
from antidrift.core.release import version
from antidrift.core.terminal import say

RETRY = 1.0  # seconds between attempts while no server answers
WAIT = 300  # seconds the server may hold a follower's request (its MAX_WAIT)


# -- where the server is -----------------------------------------------------------------------


def _connection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", help="the server's address (default: found by the data dir)")
    parser.add_argument("--data-dir", help="the data directory the server runs on")
    parser.epilog = "exit: 0 done, 1 no server runs, 2 the server refused, 3 it could not"


def _finder(args: argparse.Namespace) -> Callable[[], Client]:
    """Finds the server anew at each call: after a restart it may be on another port."""
    data_dir = server_data_dir(args.data_dir)
    agent = f"antidrift-cli/{version()}"

    given = bool(args.data_dir)

    def client() -> Client:
        url = find(args.url, data_dir, data_dir_given=given)
        starts = starts_one(data_dir, data_dir_given=given, url=url)
        return Client(url, user_agent=agent, starts=starts)

    return client


# -- status ------------------------------------------------------------------------------------

Render = Callable[[dict], str]


def _render(args: argparse.Namespace) -> tuple[Render, Callable[[str], str]]:
    """How a state is written, and how 'no server' is (a sentence, or waybar's JSON)."""
    if args.format == "waybar":
        return statusline.waybar, statusline.waybar_down
    if args.json:
        return (lambda s: json.dumps(s, ensure_ascii=False)), (lambda m: json.dumps({"error": m}))
    return statusline.line, (lambda m: m)


def status_command(parser: argparse.ArgumentParser):
    """`antidrift status [--json | --format waybar] [--follow]`."""
    _connection(parser)
    shape = parser.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="the /state object, with left_secs")
    shape.add_argument(
        "--format",
        choices=("line", "waybar"),
        default="line",
        help="line (the default), or waybar: one JSON line for its custom module",
    )
    parser.add_argument(
        "--follow", action="store_true", help="a line at every change, every second while active"
    )
    return status


def status(args: argparse.Namespace) -> int:
    render, down = _render(args)
    finder = _finder(args)
    if args.follow:
        return _guard_pipe(lambda: follow(finder, render, down, _write))
    state, _ = finder().state()
    _write(render(state))
    return 0


def _write(text: str) -> None:
    say(text)


def _guard_pipe(run: Callable[[], int]) -> int:
    """A bar that goes away closes our stdout, and Ctrl-C ends a follow: no traceback."""
    try:
        return run()
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # Python would complain again flushing stdout at exit: point it at nothing.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def follow(
    finder: Callable[[], Client],
    render: Render,
    down: Callable[[str], str],
    write: Callable[[str], None],
    *,
    stop: threading.Event | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> int:
    """Write the state at every change and every second while it counts down, until `stop`."""
    stop = stop or threading.Event()
    events: queue.Queue[tuple[dict | None, str, float]] = queue.Queue()
    poller = threading.Thread(
        target=_poll, args=(finder, events, stop, clock), name="antidrift-follow", daemon=True
    )
    poller.start()
    state: dict | None = None
    fetched = 0.0
    last = None
    while not stop.is_set():
        tick = _until_tick(state, fetched, clock()) if state else None
        try:
            # Wake at the countdown's next second, or each second to notice `stop`.
            new, message, at = events.get(timeout=1.0 if tick is None else tick)
        except queue.Empty:
            if tick is None:
                continue
            text = render(_counted_down(state, fetched, clock()))  # a second went by
        else:
            if new is None and state is None and last is not None:
                continue  # still no server (another attempt, perhaps another reason): said
            state, fetched = new, at
            text = render(_counted_down(state, fetched, clock())) if new else down(message)
            if text == last:
                continue  # the same line again: said once
        write(text)
        last = text
    return 0


def _poll(finder: Callable[[], Client], events: queue.Queue, stop: threading.Event, clock) -> None:
    """One held request at a time; a new state, or why none answers, goes to `events`."""
    client: Client | None = None
    tag: str | None = None
    while not stop.is_set():
        try:
            client = client or finder()
            state, tag = client.state(tag, wait=WAIT if tag else 0)
            if state is not None:
                events.put((state, "", clock()))
        except NotRunning as exc:
            client, tag = None, None  # find it again: a restarted server may have moved
            events.put((None, exc.message, 0.0))
            stop.wait(RETRY)
        except ClientError:
            client, tag = None, None  # a 503 while it stops: the next attempt tells
            stop.wait(RETRY)


def _ticking(state: dict | None) -> bool:
    return bool(state) and "left_secs" in state and not state.get("paused")


def _counted_down(state: dict, fetched: float, now: float) -> dict:
    """The state with `left_secs` as it stands now (the server's value less the time since)."""
    if not _ticking(state):
        return state
    gone = int(max(0.0, now - fetched))
    return {**state, "left_secs": max(0, int(state["left_secs"]) - gone)}


def _until_tick(state: dict, fetched: float, now: float) -> float | None:
    """Seconds to the next whole second of the countdown; None when it does not count."""
    if not _ticking(state) or _counted_down(state, fetched, now)["left_secs"] <= 0:
        return None
    elapsed = max(0.0, now - fetched)
    return (int(elapsed) + 1) - elapsed


# -- commands for hotkeys ----------------------------------------------------------------------


def _act(path: str, fields: Callable[[argparse.Namespace], dict] = lambda a: {}):
    def run(args: argparse.Namespace) -> int:
        state = _finder(args)().post(path, fields(args))
        _write(statusline.line(state))
        return 0

    return run


def start_command(parser: argparse.ArgumentParser):
    """`antidrift start "ACTION" --done "CONDITION" --minutes N`."""
    _connection(parser)
    parser.add_argument("action", help="the next action")
    parser.add_argument("--done", default="", help="how you will know it is done")
    parser.add_argument("--minutes", default="", help="the timebox (1–480)")
    return start


def start(args: argparse.Namespace) -> int:
    """Plan and start in one go; a refused plan leaves the state as it was."""
    client = _finder(args)()
    state, _ = client.state()
    opened = state["runtime_state"] == "locked"
    fields = {
        "next_action": args.action,
        "success_condition": args.done,
        "timebox_minutes": args.minutes,
    }
    if opened:
        # Opening planning ends a break and the closure: a plan the server would refuse is
        # refused here first, with its sentence (the server still judges the one it gets).
        validate_plan(*fields.values())
        client.post("/planning")
    try:
        state = client.post("/commitment", fields)
    except ClientError:
        if opened:  # we opened planning for this: close it again
            client.post("/planning/cancel")
        raise
    _write(statusline.line(state))
    return 0


def _plain(path: str, fields: dict | None = None):
    def setup(parser: argparse.ArgumentParser):
        _connection(parser)
        return _act(path, lambda _args: dict(fields or {}))

    return setup


def extend_command(parser: argparse.ArgumentParser):
    """`antidrift extend N`: N more minutes."""
    _connection(parser)
    parser.add_argument("minutes", help="minutes to add (1–120)")
    return _act("/extend", lambda args: {"minutes": args.minutes})


def end_command(parser: argparse.ArgumentParser):
    """`antidrift end met|missed [--note TEXT]`: the review's outcome (only in review)."""
    _connection(parser)
    parser.add_argument("outcome", choices=("met", "missed"), help="was it done?")
    parser.add_argument("--note", default="", help="a note for the history (optional)")
    return end


def end(args: argparse.Namespace) -> int:
    """The review recorded, said as such, then the status line as every command ends."""
    state = _finder(args)().post("/end", {"outcome": args.outcome, "note": args.note})
    _write(f"Recorded as {args.outcome}.")
    _write(statusline.line(state))
    return 0


finish_command = _plain("/finish")
pause_command = _plain("/pause")
resume_command = _plain("/resume")
back_command = _plain("/drift/ack", {"answer": "back"})
on_task_command = _plain("/drift/ack", {"answer": "on_task"})


# -- the day's queue ---------------------------------------------------------------------------


def day_command(parser: argparse.ArgumentParser):
    """`antidrift day` (the queue, one line an item) and `antidrift day add "ACTION" --done
    "CONDITION" --minutes N` (one more at its end; done-when and minutes may wait)."""
    _connection(parser)
    sub = parser.add_subparsers(dest="day_action", metavar="add")
    add = sub.add_parser("add", help="add an item to the day", description="add an item to the day")
    for flag, help_text in (("--url", "the server's address"), ("--data-dir", "its data dir")):
        add.add_argument(flag, default=argparse.SUPPRESS, help=help_text)  # the parent's stand
    add.add_argument("action", help="the next action")
    add.add_argument("--done", default="", help="how you will know it is done (may wait)")
    add.add_argument("--minutes", default="", help="the timebox, 1–480 (may wait)")
    return day


def day(args: argparse.Namespace) -> int:
    client = _finder(args)()
    if getattr(args, "day_action", None) == "add":
        fields = {
            "next_action": args.action,
            "success_condition": args.done,
            "timebox_minutes": args.minutes,
        }
        body = client.data("/day/items", fields, key="items")
        _write(f"Added: {' '.join(args.action.split())}")
    else:
        body = client.data("/day.json", key="items")
    for text in day_lines(body):
        _write(text)
    return 0


def day_lines(body: dict) -> list[str]:
    """/day.json as the terminal says it: the minutes planned against free, whether it fits,
    planned against done once an item was started, then one line per item (minutes as the server
    counts them: whole, by the one rule)."""
    planned, free = int(body.get("planned_minutes") or 0), int(body.get("free_minutes") or 0)
    lines = [f"Your day: {planned} min planned · {free} min free. {fit_text(planned, free)}"]
    tally = body.get("tally") or {}
    if int(tally.get("planned") or 0) > int(tally.get("carried") or 0):  # one was started
        lines.append(
            f"Today so far: {tally['planned']} planned · {tally.get('met', 0)} met"
            f" · {tally.get('missed', 0)} missed · {tally.get('carried', 0)} left to carry over"
        )
    items = body.get("items") or []
    if not items:
        lines.append('Nothing lined up. Add one: antidrift day add "ACTION" --minutes N')
    for n, item in enumerate(items, 1):
        parts = [" ".join(str(item.get("next_action") or "").split())]
        minutes = item.get("timebox_minutes")
        parts.append(f"{minutes} min" if minutes else f"no minutes yet (counts {UNTIMED_MINUTES})")
        if item.get("success_condition"):
            parts.append("done when: " + " ".join(str(item["success_condition"]).split()))
        if item.get("carried"):
            parts.append("carried over")
        lines.append(f"{n}. " + " · ".join(parts))
    return lines
