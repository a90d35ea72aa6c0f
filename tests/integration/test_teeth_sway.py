"""The teeth on a real headless sway 1.7: a real `antidrift serve` samples sway through its own
probe, a scripted judge (a fake claude) calls one real foot window off task, nobody answers the
nudge, and after the grace and ANTIDRIFT_ENFORCE_AFTER that exact container is in sway's
scratchpad while the on-task foot window beside it is untouched."""

from __future__ import annotations

import json

from tests.fakes import wait_until
from tests.support.fake_judge import drift_server

ACTION = "Write the intro paragraph"


def nodes(tree: dict):
    yield tree
    for key in ("nodes", "floating_nodes"):
        for child in tree.get(key, []):
            yield from nodes(child)


def where(sway_desktop, app_id: str) -> tuple[str, dict] | None:
    """(the workspace holding the window with this app_id, its node) from a real get_tree."""
    tree = json.loads(sway_desktop.msg("-t", "get_tree"))
    for workspace in (n for n in nodes(tree) if n.get("type") == "workspace"):
        for node in nodes(workspace):
            if node.get("app_id") == app_id:
                return workspace["name"], node
    return None


def test_an_ignored_nudge_moves_that_container_to_the_scratchpad(sway_desktop, tmp_path):
    server, judge, notifier = drift_server(
        tmp_path,
        ANTIDRIFT_WINDOW_SOURCE="sway",
        ANTIDRIFT_SAMPLE_INTERVAL="0.2",
        ANTIDRIFT_DRIFT_GRACE="1",
        ANTIDRIFT_ENFORCE="minimize",
        ANTIDRIFT_ENFORCE_AFTER="1",
        **{k: v for k, v in sway_desktop.session_env().items() if k != "PATH"},  # the fakes' PATH
    )
    sway_desktop.open_window("antidrift-notes", "intro.md — notes")
    wait_until(lambda: where(sway_desktop, "antidrift-notes"), 15, 0.05, "the notes window mapped")
    with server:
        server.post("/planning")
        status, _ = server.post(
            "/commitment",
            {"next_action": ACTION, "success_condition": "It is in the doc", "timebox_minutes": 30},
        )
        assert status == 200 and server.get("/state")["commitment"]["enforce"] == "minimize"
        wait_until(
            lambda: server.get("/state")["drift"]["status"] == "on_task", 15, 0.05, "on task"
        )
        sway_desktop.open_window("antidrift-videos", "Cat videos — YouTube")  # sway focuses it
        wait_until(
            lambda: server.get("/state")["drift"]["status"] == "drifting", 15, 0.05, "drifting"
        )

        def put_away():
            found = where(sway_desktop, "antidrift-videos")
            return found if found and found[0] == "__i3_scratch" else None

        _, videos = wait_until(put_away, 20, 0.1, "the off-task window in the scratchpad")
        workspace, notes = where(sway_desktop, "antidrift-notes")
        assert workspace == "1" and notes["visible"] is True, "the on-task window is untouched"
        assert videos["visible"] is False
        nudges = [c for c in notifier.calls() if any("Drifting" in a for a in c)]
        assert len(nudges) == 1, "put away after the nudge, not instead of it"
        told = wait_until(
            lambda: [c for c in notifier.calls() if any("Put away" in a for a in c)],
            10,
            0.05,
            "the notification saying what was done",
        )
        assert any("scratchpad" in a for a in told[0]) and any(ACTION in a for a in told[0])
        (episode,) = server.get("/state")["commitment"]["episodes"]
        assert episode["enforced_at"] is not None, "the episode says the teeth acted"
        # Focus went back to the notes window: the episode ended by itself, nothing else moved.
        wait_until(
            lambda: server.get("/state")["drift"]["status"] == "on_task", 15, 0.05, "back on task"
        )
        server.ticks(3)
        assert where(sway_desktop, "antidrift-notes")[0] == "1"
        server.post("/finish")
        assert (
            server.get("/state")["commitment"]["episodes"][0]["enforced_at"]
            == (episode["enforced_at"])
        )
        server.post("/end", {"outcome": "met"})
        (row,) = server.get("/history")
        assert [e["enforced_at"] for e in row["episodes"]] == [episode["enforced_at"]]
