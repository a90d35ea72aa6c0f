"""`antidrift day` and `antidrift day add` against the app on a real socket (over the fakes):
the queue one line an item, an add through POST /day/items, a refusal's sentence with exit 2
and nothing changed; and the status line's "next up" from /state."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from werkzeug.serving import make_server

from antidrift.server import commands


@pytest.fixture
def served(make_controller, make_app) -> Iterator[tuple[str, object]]:
    """(the app's URL on an ephemeral port, a test client for the test's own moves)."""
    app = make_app(make_controller())
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/", app.test_client()
    finally:
        app.extensions["antidrift.runtime"].shutting_down.set()
        server.shutdown()


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = commands.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_day_prints_the_queue_and_day_add_adds_one(served, capsys):
    url, web = served
    code, out, err = run(capsys, "day", "--url", url)
    free = web.get("/day.json").get_json()["free_minutes"]
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"Your day: 0 min planned · {free} min free. Fits: {free} min of your free time left over.",
        'Nothing lined up. Add one: antidrift day add "ACTION" --minutes N',
    ]
    code, out, _ = run(
        capsys, "day", "add", "Write the intro", "--done", "Intro sent", "--minutes", "30",
        "--url", url,
    )  # fmt: skip
    assert code == 0
    assert out.splitlines()[0] == "Added: Write the intro"
    assert out.splitlines()[-1] == "1. Write the intro · 30 min · done when: Intro sent"
    assert run(capsys, "day", "--url", url, "add", "Review the PR")[0] == 0
    code, out, _ = run(capsys, "day", "--url", url)
    assert out.splitlines()[0].startswith("Your day: 55 min planned · ")
    assert out.splitlines()[1:] == [
        "1. Write the intro · 30 min · done when: Intro sent",
        "2. Review the PR · no minutes yet (counts 25)",
    ]
    # the status line, locked: next up
    assert run(capsys, "status", "--url", url)[1] == "No commitment · next up: Write the intro\n"


def test_a_refused_add_says_why_with_exit_2_and_changes_nothing(served, capsys):
    url, web = served
    before = web.get("/day.json").get_json()
    code, out, err = run(capsys, "day", "add", "Tidy", "--minutes", "900", "--url", url)
    assert (code, out) == (2, "")
    assert err.startswith("antidrift: Minutes must be")
    assert web.get("/day.json").get_json() == before


def test_the_state_says_next_up_only_when_locked_and_queued(served):
    _, web = served
    assert web.get("/state").get_json()["next_up"] is None
    web.post("/day/items", json={"next_action": "One"})
    web.post("/day/items", json={"next_action": "Two"})
    first = web.get("/state").get_json()["next_up"]
    assert (first["next_action"], first["queued"]) == ("One", 2)
    web.post("/planning")
    assert web.get("/state").get_json()["next_up"] is None


def test_the_days_lines_say_planned_against_done_once_one_was_started():
    from antidrift.cli.remote import day_lines

    body = {
        "planned_minutes": 90,
        "free_minutes": 60,
        "tally": {"planned": 3, "met": 1, "missed": 0, "carried": 2},
        "items": [
            {"next_action": "Old\nthing", "timebox_minutes": None, "carried": True},
            {"next_action": "Next", "timebox_minutes": 65, "success_condition": "Sent"},
        ],
    }
    assert day_lines(body) == [
        "Your day: 90 min planned · 60 min free. 30 min more than your free time.",
        "Today so far: 3 planned · 1 met · 0 missed · 2 left to carry over",
        "1. Old thing · no minutes yet (counts 25) · carried over",
        "2. Next · 65 min · done when: Sent",
    ]
