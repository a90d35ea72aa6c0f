"""POST /commitment answers with the commitment it started, whatever other requests do at the
same moment: real threads through the app, each with its own client."""

from __future__ import annotations

import threading

from tests.support.plans import PLAN


def test_a_started_commitment_is_never_answered_as_null_under_concurrent_requests(app):
    """Four clients each plan, start, finish and end in a loop: a start's answer used to be
    the state after another client's End had already come (200 with `commitment: null`)."""
    answers: list[dict] = []
    start = threading.Barrier(4)

    def walk() -> None:
        client = app.test_client()
        start.wait()
        for _ in range(60):
            client.post("/planning")
            response = client.post("/commitment", json=PLAN)
            if response.status_code == 200:
                answers.append(response.get_json())
            client.post("/finish")
            client.post("/end", json={"outcome": "met"})

    threads = [threading.Thread(target=walk) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(answers) >= 60, "too few starts got through to show anything"
    assert [a for a in answers if a["commitment"] is None] == []
    assert {a["runtime_state"] for a in answers} == {"active"}
    assert all(a["commitment"]["next_action"] == PLAN["next_action"] for a in answers)
