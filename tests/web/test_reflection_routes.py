"""Reflection routes: /history paging, /history.csv, corrections, removals, /insights."""

from __future__ import annotations

import csv
import io
import re

import pytest

from tests.support.history import seed_ended as seed

HOST = {"Host": "127.0.0.1:5000"}
SAME_ORIGIN = {**HOST, "Origin": "http://127.0.0.1:5000"}
BROWSER_FORM = {**SAME_ORIGIN, "Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
REFUSED = [
    {**HOST, "Origin": "http://evil.example"},
    {**HOST, "Origin": "null"},
    {**HOST, "Sec-Fetch-Site": "cross-site"},
]


# -- GET /history ---------------------------------------------------------------------------


def test_history_rows_carry_actual_time_and_the_drift_fields(client, store):
    seed(store, 1)
    row = client.get("/history").get_json()[0]
    assert row["actual_secs"] == 20 * 60
    assert row["extended_secs"] == 0
    assert "drift_count" in row and "on_task_share" in row


def test_history_pages_with_limit_and_before_and_links_the_next_page(client, store):
    seed(store, 7)
    first = client.get("/history?limit=3")
    assert [r["id"] for r in first.get_json()] == ["c0006", "c0005", "c0004"]
    assert first.headers["Link"] == '</history?limit=3&before=c0004>; rel="next"'
    rest = client.get("/history?limit=3&before=c0004").get_json()
    assert [r["id"] for r in rest] == ["c0003", "c0002", "c0001"]
    last = client.get("/history?limit=3&before=c0001")
    assert [r["id"] for r in last.get_json()] == ["c0000"] and "Link" not in last.headers
    assert len(client.get("/history").get_json()) == 7  # unpaged: all of it, as before


@pytest.mark.parametrize("limit", ["0", "1001", "x", "-1", "2.5", ""])
def test_a_bad_limit_is_a_clear_400(client, store, limit):
    seed(store, 2)
    response = client.get(f"/history?limit={limit}")
    assert response.status_code == 400
    assert "limit must be a whole number from 1 to 1000" in response.get_json()["error"]


def test_paging_before_an_unknown_id_is_404(client, store):
    seed(store, 2)
    response = client.get("/history?limit=5&before=nope")
    assert response.status_code == 404 and response.get_json()["error"]


# -- GET /history.csv -----------------------------------------------------------------------


def test_csv_has_a_header_and_every_entry_in_rfc_4180(client, store):
    seed(store, 3)
    response = client.get("/history.csv")
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert "attachment" in response.headers["Content-Disposition"]
    text = response.get_data(as_text=True)
    assert text.endswith("\r\n") and "\n" not in text.replace("\r\n", "")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    row = client.get("/history").get_json()[0]
    # One line per commitment; the machine by its name alone (device_id stays in the JSON, and
    # so do the lists: episodes, and the other machines' evidence, whose figures are counted).
    assert rows[0] == [key for key in row if key not in ("episodes", "device_id", "evidence")]
    assert [r[0] for r in rows[1:]] == ["c0002", "c0001", "c0000"]


def test_csv_of_an_empty_history_is_just_the_header(client):
    rows = list(csv.reader(io.StringIO(client.get("/history.csv").get_data(as_text=True))))
    assert len(rows) == 1 and rows[0][:2] == ["id", "next_action"]
    assert "actual_secs" in rows[0] and "on_task_share" in rows[0]


def test_csv_quotes_commas_quotes_and_newlines_and_reads_back_the_same(client, store):
    tricky = 'Say "hi", then\r\nleave;\nand again'
    seed(store, 1, note=tricky, action="a, b")
    text = client.get("/history.csv").get_data(as_text=True)
    assert '"Say ""hi"", then\r\nleave;\nand again"' in text
    header, row = list(csv.reader(io.StringIO(text, newline="")))
    record = dict(zip(header, row, strict=True))
    assert record["note"] == tricky and record["next_action"] == "a, b"


@pytest.mark.parametrize("cell", ["=1+1", "+1", "-1+2", "@SUM(A1)", "\t=1", "\r=1"])
def test_csv_neutralises_formula_looking_cells(client, store, cell):
    seed(store, 1, note=cell, action=cell)
    header, row = list(csv.reader(io.StringIO(client.get("/history.csv").get_data(as_text=True))))
    record = dict(zip(header, row, strict=True))
    assert record["note"] == "'" + cell
    assert record["next_action"] == "'" + cell
    assert record["timebox_secs"] == "1800"  # numbers stay numbers


# -- POST /history/<id> and /history/<id>/delete ---------------------------------------------


def test_a_correction_from_an_api_client_answers_the_row(client, store):
    seed(store, 2)
    response = client.post(
        "/history/c0000", json={"outcome": "met", "note": "fine after all"}, headers=HOST
    )
    assert response.status_code == 200
    assert response.get_json()["outcome"] == "met"
    assert store.commitments["c0000"].note == "fine after all"


def test_a_correction_from_htmx_redirects_back_to_the_page_it_came_from(client, store):
    seed(store, 2)
    response = client.post(
        "/history/c0000",
        data={"outcome": "met", "note": "", "back": "/insights?before=c0001"},
        headers={**SAME_ORIGIN, "HX-Request": "true"},
    )
    assert response.status_code == 200
    assert response.headers["HX-Redirect"] == "/insights?before=c0001&done=corrected"


@pytest.mark.parametrize("back", ["https://evil.example/", "//evil.example", "/insights/../x", ""])
def test_a_plain_form_post_gets_a_303_back_to_insights_only(client, store, back):
    seed(store, 1)
    response = client.post(
        "/history/c0000", data={"outcome": "met", "back": back}, headers=BROWSER_FORM
    )
    assert response.status_code == 303
    assert response.headers["Location"] == "/insights?done=corrected"


def test_a_bad_correction_is_a_400_and_changes_nothing(client, store):
    seed(store, 1)
    before = store.snapshot()
    response = client.post("/history/c0000", json={"outcome": "won"}, headers=HOST)
    assert response.status_code == 400 and "met or missed" in response.get_json()["error"]
    assert store.snapshot() == before


def test_unknown_ids_are_404_for_correct_confirm_and_delete(client, store):
    seed(store, 1)
    before = store.snapshot()
    assert client.post("/history/nope", json={"outcome": "met"}).status_code == 404
    assert client.post("/history/nope", json={"outcome": "won"}).status_code == 404
    assert client.post("/history/nope/delete").status_code == 404
    assert client.get("/history/nope/delete").status_code == 404
    assert store.snapshot() == before


def test_the_running_commitment_is_not_in_the_history_to_change(client, store):
    client.post("/planning")
    cid = client.post(
        "/commitment", json={"next_action": "a", "success_condition": "b", "timebox_minutes": 5}
    ).get_json()["commitment"]["id"]
    assert client.post(f"/history/{cid}", json={"outcome": "met"}).status_code == 404
    assert client.post(f"/history/{cid}/delete").status_code == 404
    assert client.get("/state").get_json()["runtime_state"] == "active"


def test_removal_needs_a_confirmation_page_then_a_post(client, store):
    seed(store, 2)
    page = client.get("/history/c0001/delete?back=/insights")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Remove this entry?" in html and "Task 1" in html
    assert 'action="/history/c0001/delete"' in html and 'method="post"' in html
    assert "c0001" in store.commitments  # looking at the question removes nothing
    response = client.post(
        "/history/c0001/delete", data={"back": "/insights"}, headers=BROWSER_FORM
    )
    assert response.status_code == 303
    assert response.headers["Location"] == "/insights?done=removed"  # the page says so
    assert [r["id"] for r in client.get("/history").get_json()] == ["c0000"]


@pytest.mark.parametrize("headers", REFUSED)
def test_corrections_and_removals_from_another_origin_are_refused(client, store, headers):
    seed(store, 1)
    before = store.snapshot()
    for path, data in (("/history/c0000", {"outcome": "met"}), ("/history/c0000/delete", {})):
        response = client.post(path, data=data, headers=headers)
        assert response.status_code == 403, (path, headers)
    assert store.snapshot() == before


# -- GET /insights --------------------------------------------------------------------------


def test_insights_of_an_empty_history_says_so(client):
    response = client.get("/insights")
    assert response.status_code == 200
    assert "Nothing has ended yet" in response.get_data(as_text=True)


def test_insights_shows_the_figures_charts_and_the_newest_fifty(client, store):
    seed(store, 120)
    html = client.get("/insights").get_data(as_text=True)
    assert html.count('class="history-item') == 50
    assert 'href="/insights?before=c0070"' in html  # the 50th newest is c0070
    met = sum(1 for i in range(120) if i % 3)
    assert f"{met} of 120 commitments" in html
    assert "<svg" in html and "<title" in html and "The chart as a table" in html
    assert "Your 30-minute plans took" in html


def test_insights_older_pages_link_back_and_the_last_has_no_older_link(client, store):
    seed(store, 120)
    second = client.get("/insights?before=c0070").get_data(as_text=True)
    assert 'id="entry-c0069"' in second and 'id="entry-c0020"' in second
    assert 'href="/insights?before=c0020"' in second and 'href="/insights">' in second
    third = client.get("/insights?before=c0020").get_data(as_text=True)
    assert third.count('class="history-item') == 20 and "Older →" not in third
    assert client.get("/insights?before=nope").status_code == 404


def test_insights_has_no_inline_script_style_or_handlers(client, store):
    seed(store, 5)
    response = client.get("/insights")
    html = response.get_data(as_text=True)
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    assert not re.search(r"\sstyle=", html)
    assert not re.search(r"\son[a-z]+=", html)
    scripts = re.findall(r"<script[^>]*>", html)
    assert scripts and all('src="/static/vendor/' in s for s in scripts)


def test_the_locked_view_links_to_insights(client):
    assert 'href="/insights"' in client.get("/").get_data(as_text=True)


# -- calibration in the planning view -------------------------------------------------------


@pytest.mark.parametrize(("ended", "shown"), [(2, False), (3, True)])
def test_planning_shows_how_long_plans_really_take_once_three_have_ended(
    client, store, ended, shown
):
    seed(store, ended)  # 30 planned; took 20, 21, 22
    client.post("/planning")
    html = client.get("/").get_data(as_text=True)
    assert ('id="calibration"' in html) is shown
    assert ("Your 30-minute plans took 21 minutes on average." in html) is shown


def test_insights_entries_show_the_drift_guards_figures_where_it_judged(client, store):
    seed(store, 2)
    store.save_drift_summary("c0001", 2, 0.75)
    html = client.get("/insights").get_data(as_text=True)
    entry = html[html.index('id="entry-c0001"') : html.index('id="entry-c0000"')]
    assert "75% on task · 2 drifts" in entry
    rest = html[html.index('id="entry-c0000"') :]
    assert "on task" not in rest.split("</li>")[0]


def test_a_browser_following_a_stale_link_gets_a_404_page_with_a_way_back(client, store):
    seed(store, 1)
    browser = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    for path in ("/insights?before=gone", "/history/gone/delete"):
        response = client.get(path, headers=browser)
        assert response.status_code == 404 and response.mimetype == "text/html"
        assert 'href="/insights"' in response.get_data(as_text=True)
        assert client.get(path).get_json()["error"]  # API clients still get JSON


# -- the Reflect button ---------------------------------------------------------------------


def test_reflect_outside_review_is_409(client):
    assert client.post("/reflect").status_code == 409


def test_reflect_in_review_shows_its_result_in_the_review(client, clock):
    client.post("/planning")
    client.post(
        "/commitment", json={"next_action": "a", "success_condition": "b", "timebox_minutes": 5}
    )
    client.post("/finish")
    html = client.get("/").get_data(as_text=True)
    assert 'id="reflection"' in html and 'hx-post="/reflect"' in html
    assert client.post("/reflect", headers={"HX-Request": "true"}).status_code == 200
    # This app has no reflector: the review says so where the button is.
    html = client.get("/").get_data(as_text=True)
    assert 'data-status="error"' in html and "coach unavailable" in html
