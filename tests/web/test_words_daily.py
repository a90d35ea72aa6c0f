"""The daily page's words and slips (issue 19): units, one word for the time a commitment
took, the insights figures, the way back from Insights, and what a removal says."""

from __future__ import annotations

from tests.support.history import seed_ended as seed
from tests.support.html import parse
from tests.support.plans import PLAN

HOST = {"Host": "127.0.0.1:5000"}
SAME_ORIGIN = {**HOST, "Origin": "http://127.0.0.1:5000"}


def test_the_time_taken_figure_is_a_time_with_its_share_of_the_plan_in_words(client, store):
    seed(store, 3)
    doc = parse(client.get("/insights").get_data(as_text=True))
    figure = next(f for f in doc.find_all("div", class_="figure") if "Time taken" in f.text())
    value = figure.find_all("dd", class_="figure-value")[0].text()
    note = figure.find_all("dd", class_="figure-note")[0].text()
    assert "%" not in value and ("min" in value or value.endswith(" s")), value
    assert note.endswith("planned") and "% of the " in note, note


def test_the_history_says_taken_where_insights_does(client, store):
    seed(store, 2)
    client_html = client.get("/").get_data(as_text=True)
    insights = client.get("/insights").get_data(as_text=True)
    for html in (client_html, insights):
        metas = [m.text() for m in parse(html).find_all("p", class_="history-meta")]
        assert metas and all("spent" not in m for m in metas)
    assert all(
        " taken" in m.text() for m in parse(client_html).find_all("p", class_="history-meta")
    )


def test_insights_offers_the_way_back_to_a_commitment_only_while_there_is_one(client, store):
    seed(store, 1)

    def back() -> str:
        doc = parse(client.get("/insights").get_data(as_text=True))
        return doc.find_all("nav", class_="crumbs")[0].text()

    assert back() == "← Back to AntiDrift"
    client.post("/planning", headers=HOST)
    assert back() == "← Back to planning"
    client.post("/commitment", data=PLAN, headers=HOST)
    assert back() == "← Back to your commitment"


def test_a_removal_is_said_on_the_page_it_returns_to_which_takes_the_focus(client, store):
    seed(store, 2)
    response = client.post(
        "/history/c0001/delete",
        data={"back": "/insights?before=c0001"},
        headers={**SAME_ORIGIN, "HX-Request": "true"},
    )
    assert response.headers["HX-Redirect"] == "/insights?before=c0001&done=removed"
    said = parse(client.get("/insights?done=removed").get_data(as_text=True)).by_id("done")
    assert said is not None and "Removed from history" in said.text()
    assert "autofocus" in said.attrs and said.get("role") == "status"
    assert parse(client.get("/insights").get_data(as_text=True)).by_id("done") is None
    # Any other word says nothing (the page never echoes the query).
    assert parse(client.get("/insights?done=<b>x").get_data(as_text=True)).by_id("done") is None
