"""The locked view's today summary (id="today"): today's commitments, met, minutes focused —
counted from what ended today, not yesterday."""

from __future__ import annotations

from datetime import timedelta

from tests.support.html import parse
from tests.support.plans import plan

PLAN = plan(timebox_minutes=30)  # longer than any commit() below: each one is finished


def commit(client, clock, minutes: int, outcome: str) -> None:
    client.post("/planning")
    client.post("/commitment", json=PLAN)
    clock.advance(timedelta(minutes=minutes))
    client.post("/finish")
    assert client.post("/end", json={"outcome": outcome}).status_code == 200


def today_text(client) -> str:
    return parse(client.get("/").get_data(as_text=True)).by_id("today").text()


def test_today_counts_commitments_met_and_minutes(client, clock):
    assert "nothing finished yet" in today_text(client)
    commit(client, clock, 12, "met")
    commit(client, clock, 7, "missed")
    commit(client, clock, 5, "met")
    text = " ".join(today_text(client).split())
    assert "3 commitments, 2 met, 24 min focused" in text


def test_yesterday_does_not_count_today(client, clock):
    commit(client, clock, 20, "met")
    clock.advance(timedelta(days=1))
    commit(client, clock, 4, "missed")
    text = " ".join(today_text(client).split())
    assert "1 commitment, 0 met, 4 min focused" in text
