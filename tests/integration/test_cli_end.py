"""`antidrift end met|missed [--note TEXT]` against a real `antidrift serve`: the review is
recorded with its note; outside review, or with a note the server refuses, it is exit 2 with
the server's own sentence and nothing changes."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from antidrift.core.domain import MAX_NOTE
from antidrift.server import commands
from tests.support.server import REPO, RunningServer
from tests.support.walk import server_post, walk_http


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[RunningServer]:
    running = RunningServer(tmp_path_factory.mktemp("cli-end") / "data").start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def fresh(server) -> RunningServer:
    server.reset()
    return server


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = commands.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def newest(server: RunningServer) -> dict:
    return server.get("/history?limit=1")[0]


def test_end_records_met_with_its_note_found_by_the_data_directory(fresh):
    walk_http(server_post(fresh), "review", next_action="Write the intro")
    result = subprocess.run(
        [sys.executable, "-m", "antidrift", "end", "met", "--note", "Sent to Sam"]
        + ["--data-dir", str(fresh.data_dir)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
        env={**os.environ},
    )
    said = (result.returncode, result.stdout, result.stderr)
    assert said == (0, "Recorded as met.\nNo commitment\n", "")
    assert fresh.get("/state")["runtime_state"] == "locked"
    entry = newest(fresh)
    assert (entry["next_action"], entry["outcome"], entry["note"]) == (
        "Write the intro",
        "met",
        "Sent to Sam",
    )


def test_end_missed_without_a_note(fresh, capsys):
    walk_http(server_post(fresh), "review", next_action="Fix the test")
    said = (0, "Recorded as missed.\nNo commitment\n", "")
    assert run(capsys, "end", "missed", "--url", fresh.base) == said
    entry = newest(fresh)
    assert (entry["next_action"], entry["outcome"], entry["note"]) == ("Fix the test", "missed", "")


@pytest.mark.parametrize("state", ["locked", "planning", "active"])
def test_outside_review_it_is_exit_2_with_the_servers_sentence(fresh, capsys, state):
    walk_http(server_post(fresh), state)
    before = fresh.get("/history")
    status, body = fresh.post("/end", {"outcome": "met"})  # what the server says to anyone
    assert status == 409
    code, out, err = run(capsys, "end", "met", "--url", fresh.base)
    assert (code, out, err) == (2, "", f"antidrift: {body['error']}\n")
    assert "record an outcome" in err
    assert fresh.get("/state")["runtime_state"] == state
    assert fresh.get("/history") == before


def test_a_note_the_server_refuses_leaves_the_review_as_it_was(fresh, capsys):
    walk_http(server_post(fresh), "review")
    before = fresh.get("/history")
    code, out, err = run(capsys, "end", "met", "--note", "x" * (MAX_NOTE + 1), "--url", fresh.base)
    assert (code, out) == (2, "")
    assert err == f"antidrift: The note is too long (at most {MAX_NOTE} characters).\n"
    assert fresh.get("/state")["runtime_state"] == "review"
    assert fresh.get("/history") == before


def test_an_outcome_other_than_met_or_missed_is_refused_before_asking(fresh, capsys):
    walk_http(server_post(fresh), "review")
    with pytest.raises(SystemExit) as exit_:
        commands.main(["end", "done", "--url", fresh.base])
    assert exit_.value.code == 2
    assert "invalid choice: 'done'" in capsys.readouterr().err
    assert fresh.get("/state")["runtime_state"] == "review"
