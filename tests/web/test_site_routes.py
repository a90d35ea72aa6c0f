"""Sites through the app: POST /evidence/window url, what is stored and shown, what the judge
is sent, the exclude pattern on a site, POST /rules site=…, and the banner's rule for a site."""

from __future__ import annotations

from datetime import timedelta

import pytest

from antidrift.core.domain import EXCLUDED_TITLE
from antidrift.drift.policy import DriftSettings
from antidrift.settings.kinds import PrivatePattern
from tests.fakes import RecordingNotifier, wait_until
from tests.support.plans import PLAN
from tests.support.walk import client_post, walk_http

NOW = DriftSettings(timedelta(0), timedelta(0), 30)
VIDEO = "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42#comments"


@pytest.fixture
def drift_client(make_controller, make_app, judge):
    def make(**more):
        controller = make_controller(judge=judge, drift=NOW, notifier=RecordingNotifier(), **more)
        client = make_app(controller).test_client()
        walk_http(client_post(client), "active", **PLAN)
        return controller, client

    return make


def status(client) -> str:
    return client.get("/state").get_json()["drift"]["status"]


def test_a_posted_url_is_kept_and_state_shows_its_site_alone(drift_client, store):
    _, client = drift_client()
    sent = {"app": "firefox", "title": "A video - YouTube", "url": VIDEO}
    assert client.post("/evidence/window", json=sent).status_code == 202
    last = client.get("/state").get_json()["evidence"]["last"]
    assert last["site"] == "youtube.com" and "watch" not in str(last)
    sample = store.sample_rows[-1][1]
    assert sample.url == "https://www.youtube.com/watch"  # no query, no fragment
    assert sample.site == "youtube.com"
    client.post("/evidence/window", json={"app": "code", "title": "main.py"})
    assert client.get("/state").get_json()["evidence"]["last"]["site"] is None


def test_a_url_that_is_not_text_is_a_sentence_and_nothing_is_stored(drift_client, store):
    _, client = drift_client()
    before = list(store.sample_rows)
    response = client.post("/evidence/window", json={"app": "firefox", "title": "x", "url": 5})
    assert response.status_code == 400 and "url must be text" in response.get_json()["error"]
    assert store.sample_rows == before


def test_the_judge_is_sent_the_site_and_never_the_path(drift_client, judge, store):
    _, client = drift_client()
    client.post("/evidence/window", json={"app": "firefox", "title": "A video", "url": VIDEO})
    (call,) = judge.wait_calls(1)
    assert (call.app, call.title, call.site) == ("firefox", "A video", "youtube.com")
    wait_until(lambda: status(client) == "drifting")
    (judged,) = store.drift_judgements.values()
    assert judged.exchange.site == "youtube.com"


def test_an_excluded_site_hides_the_page_from_the_store_and_the_judge(drift_client, judge, store):
    _, client = drift_client(exclude_titles=PrivatePattern(r"bank\.example"))
    page = {"app": "firefox", "title": "Accounts", "url": "https://my.bank.example/a?id=7"}
    client.post("/evidence/window", json=page)
    (call,) = judge.wait_calls(1)
    assert (call.title, call.site) == (None, None)
    sample = store.sample_rows[-1][1]
    assert (sample.title, sample.url, sample.site) == (EXCLUDED_TITLE, None, None)
    assert client.get("/state").get_json()["evidence"]["last"]["site"] is None


def test_a_site_rule_decides_every_page_on_it_with_no_judge_call(drift_client, judge):
    _, client = drift_client()
    response = client.post("/rules", json={"site": "youtube.com", "verdict": "off_task"})
    assert response.status_code == 201 and response.get_json()["site"] == "youtube.com"
    page = {"app": "firefox", "title": "Anything", "url": "https://m.youtube.com/shorts/1"}
    client.post("/evidence/window", json=page)
    wait_until(lambda: status(client) == "drifting")
    assert judge.calls == []
    refused = client.post("/rules", json={"site": "not a host", "verdict": "off_task"})
    assert refused.status_code == 400 and "host name" in refused.get_json()["error"]


def test_the_banner_offers_a_rule_for_the_site(drift_client, judge):
    controller, client = drift_client()
    client.post("/evidence/window", json={"app": "firefox", "title": "A video", "url": VIDEO})
    wait_until(lambda: status(client) == "drifting")
    controller.drift_tick()
    page = client.get("/").get_data(as_text=True)
    assert '{"site": "youtube.com", "verdict": "on_task"}' in page.replace("&#34;", '"')
    assert "youtube.com</span> is always on task" in page
    assert "watch?v" not in page


def test_review_history_csv_and_insights_count_a_browser_s_time_per_site(drift_client, clock):
    _, client = drift_client()
    for page in [
        {"app": "firefox", "title": "A video", "url": VIDEO},
        {"app": "firefox", "title": "Another", "url": "https://m.youtube.com/x"},
        {"app": "code", "title": "main.py"},
        {"app": "firefox", "title": "re", "url": "https://docs.python.org/3/library/re"},
    ]:
        client.post("/evidence/window", json=page)
        clock.advance(30)
    client.post("/finish")
    review = client.get("/").get_data(as_text=True)
    assert "By app and site:" in review
    assert "youtube.com</span> 25%" in review and "m.youtube.com</span>" in review
    client.post("/end", json={"outcome": "met"})
    (row,) = client.get("/history").get_json()
    assert row["site"] == "docs.python.org"  # a tie of one sample each: the first by name
    lines = client.get("/history.csv").get_data(as_text=True).splitlines()
    header, first = lines[0].split(","), lines[1].split(",")
    assert dict(zip(header, first, strict=True))["site"] == "docs.python.org"
    insights = client.get("/insights").get_data(as_text=True)
    assert "Time per app and site" in insights and "youtube.com" in insights
    assert "watch?v" not in insights and "watch?v" not in "".join(lines)


def test_a_site_that_no_page_can_be_on_is_refused_not_kept_as_a_dead_rule(drift_client):
    """A wildcard or a stray character: site_of() keeps it as the host, and a rule for it
    would never match a page (a rule for a site already covers its subdomains)."""
    _, client = drift_client()
    for site in ("*.youtube.com", "you tube.com", "youtube.com,", "news!.example.com"):
        refused = client.post("/rules", json={"site": site, "verdict": "off_task"})
        assert refused.status_code == 400, site
        assert "host name" in refused.get_json()["error"], site
    assert client.get("/rules", headers={"Accept": "application/json"}).get_json() == []
    for site, kept in (("M.YouTube.com", "m.youtube.com"), ("https://www.x.org/a?b", "x.org")):
        made = client.post("/rules", json={"site": site, "verdict": "off_task"})
        assert made.status_code == 201 and made.get_json()["site"] == kept
