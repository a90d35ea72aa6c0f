"""The drift guard end to end: a real `antidrift serve`, a fake claude and a fake notify-send
on its PATH. On task → drifting → one notification naming the next action → "this is on
task" → no more nudges; excluded titles never reach any CLI; review and history figures."""

from __future__ import annotations

import time

import pytest

from tests.fakes import wait_until
from tests.support import procs
from tests.support.fake_judge import drift_server
from tests.support.timing import assert_within

ACTION = "Write the intro paragraph"
SECRET = "Acme Bank — account 4711"


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    server, judge, notifier = drift_server(
        tmp_path_factory.mktemp("drift"),
        ANTIDRIFT_DRIFT_GRACE="1",
        ANTIDRIFT_DRIFT_COOLDOWN="1",
        ANTIDRIFT_EVIDENCE_EXCLUDE="bank",
    )
    with server:
        yield server, judge, notifier


def _drift(server) -> dict:
    return server.get("/state")["drift"]


def _window(server, app: str, title: str) -> None:
    assert server.post("/evidence/window", {"app": app, "title": title})[0] == 202


def _status(server, status: str, timeout: float = 10) -> dict:
    return wait_until(
        lambda: (d := _drift(server))["status"] == status and d, timeout, 0.05, f"drift {status}"
    )


def _nudges(notifier) -> list[list[str]]:
    return [c for c in notifier.calls() if any("Drifting" in a for a in c)]


def test_the_whole_loop(live):
    server, judge, notifier = live
    server.reset()
    server.post("/planning")
    status, _ = server.post(
        "/commitment",
        {"next_action": ACTION, "success_condition": "It is in the doc", "timebox_minutes": 30},
    )
    assert status == 200
    _window(server, "code", "intro.md — notes")
    assert _status(server, "on_task")["reason"] == "this can serve the work"
    _window(server, "firefox", "Cat videos — YouTube")
    drifting = _status(server, "drifting")
    assert drifting["since"] and "youtube" in drifting["reason"].lower()

    wait_until(lambda: _nudges(notifier), 10, 0.05, "a drift notification")
    [nudge] = _nudges(notifier)
    assert any(ACTION in arg for arg in nudge), nudge
    assert not any("Cat videos" in arg for arg in nudge)
    assert server.post("/drift/ack", {"answer": "on_task"})[0] == 200
    assert _drift(server)["status"] == "on_task"

    _window(server, "firefox", "Cat videos — YouTube")  # focus still on the taught window
    server.ticks(3)  # past grace and cooldown (1 s each), every tick looking at it again
    assert len(_nudges(notifier)) == 1, "no more nudges for a window called on task"
    assert server.post("/drift/ack", {"answer": "back"})[0] == 409
    judged = [p for p in judge.judge_prompts() if "Cat videos" in p]
    assert len(judged) == 1, "one judge call per distinct window"

    _window(server, "firefox", SECRET)
    wait_until(lambda: len(judge.judge_prompts()) == 3, 10, 0.05, "the excluded window judged")
    _window(server, "code", "intro.md — notes")
    server.post("/finish")
    server.post("/end", {"outcome": "met"})
    for call in judge.calls():
        assert "Bank" not in call["stdin"] and "4711" not in call["stdin"]
        assert "(excluded)" not in call["stdin"]
    assert "judge by the app alone" in judge.judge_prompts()[-1]

    [row] = [r for r in server.get("/history") if r["next_action"] == ACTION]
    assert row["drift_count"] == 1
    assert row["on_task_share"] is not None and 0.0 <= row["on_task_share"] <= 1.0


def test_leaving_active_kills_a_running_judge_cli(live):
    server, judge, notifier = live
    server.reset()
    judge.configure(delay=30)
    try:
        server.post("/planning")
        server.post(
            "/commitment",
            {"next_action": ACTION, "success_condition": "done", "timebox_minutes": 30},
        )
        _window(server, "firefox", "A slow window to judge")
        call = wait_until(
            lambda: next((c for c in judge.calls() if "A slow window" in c["stdin"]), None),
            10,
            0.05,
            "the judge CLI started",
        )
        assert procs.alive(call["pid"])
        assert _drift(server)["status"] == "unknown"
        started = time.monotonic()
        assert server.post("/finish")[0] == 200
        assert_within(time.monotonic() - started, 2, "finish (waiting for the judge?)")
        assert procs.wait_dead(call["pid"], 3), "the judge's CLI outlived the commitment"
    finally:
        judge.configure()
