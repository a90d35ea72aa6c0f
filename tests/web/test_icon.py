"""The tab's icon and title per state: the page's <link rel="icon" id="icon"> names the state
(and while active the minutes left), GET /icon.svg draws it as well-formed SVG from checked
values only, and while drifting the title starts with "Drifting?"."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest

from antidrift.drift.policy import DriftSettings
from antidrift.server.app import create_app
from antidrift.server.bootstrap import Runtime
from antidrift.session.snapshot import DriftInfo
from antidrift.settings import Settings
from antidrift.web.icon import COLOURS, STATES
from tests.fakes import RecordingNotifier, coach_info_for, wait_until
from tests.support.html import parse
from tests.support.web import to

SVG = "{http://www.w3.org/2000/svg}"
NOW = DriftSettings(timedelta(0), timedelta(0), 30)


def icon_of(client) -> dict[str, str]:
    """The query of the page's icon link (there is exactly one, with id="icon")."""
    doc = parse(client.get("/").get_data(as_text=True))
    links = [n for n in doc.find_all("link") if "icon" in (n.get("rel") or "").split()]
    assert [n.id for n in links] == ["icon"]
    url = urlsplit(links[0].get("href"))
    assert url.path == "/icon.svg"
    return {k: v[0] for k, v in parse_qs(url.query).items()}


def title_of(client) -> str:
    return parse(client.get("/").get_data(as_text=True)).find_all("title")[0].text()


def drawn(client, query: str) -> ET.Element:
    response = client.get(f"/icon.svg?{query}")
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "image/svg+xml"
    return ET.fromstring(response.get_data())  # raises unless well-formed


def texts(svg: ET.Element) -> list[str]:
    return [t.text or "" for t in svg.iter(f"{SVG}text")]


def test_each_state_has_its_own_icon_on_the_page(client, clock, controller):
    assert icon_of(client) == {"state": "locked"}
    to(client, "planning")
    assert icon_of(client) == {"state": "planning"}
    client.post("/planning/cancel")
    to(client, "active")
    assert icon_of(client) == {"state": "active", "left": "20", "span": "20"}
    clock.advance(5 * 60 + 30)  # 14:30 left: the icon says 14, the clock's own minutes
    assert icon_of(client)["left"] == "14"
    client.post("/finish")
    assert icon_of(client) == {"state": "review"}
    client.post("/end", json={"outcome": "met"})
    to(client, "active")
    clock.advance(20 * 60)
    controller.expire_if_due()
    assert icon_of(client) == {"state": "timesup"}


def test_a_paused_commitment_has_the_paused_icon_and_a_clock_that_stands_still(client, clock):
    to(client, "active")
    clock.advance(5 * 60)
    assert client.post("/pause").status_code == 200
    assert icon_of(client) == {"state": "paused", "left": "15", "span": "20"}
    clock.advance(3 * 60)  # paused: the minutes left do not move
    assert icon_of(client) == {"state": "paused", "left": "15", "span": "20"}
    widget = parse(client.get("/").get_data(as_text=True)).by_id("time-left")
    assert "data-paused" in widget.attrs  # the stylesheet holds the CSS clock still
    assert client.post("/resume").status_code == 200
    assert icon_of(client)["state"] == "active"
    widget = parse(client.get("/").get_data(as_text=True)).by_id("time-left")
    assert "data-paused" not in widget.attrs


@pytest.fixture
def guarded(make_controller, judge, store, clock, tmp_path):
    """An active commitment under a drift guard that answers at once (no grace)."""
    controller = make_controller(judge=judge, notifier=RecordingNotifier(), drift=NOW)
    info = DriftInfo(True, "claude")
    runtime = Runtime(controller, store, clock, coach_info_for(None), drift_info=info)
    client = create_app(Settings(data_dir=tmp_path), runtime=runtime).test_client()
    client.post("/planning")
    client.post(
        "/commitment",
        data={"next_action": "Write", "success_condition": "Done", "timebox_minutes": "20"},
    )
    return controller, client


def test_drifting_turns_the_icon_and_starts_the_title_with_drifting(guarded):
    controller, client = guarded
    assert title_of(client) == "20:00 · Write · AntiDrift"
    assert icon_of(client)["state"] == "active"
    client.post("/evidence/window", json={"app": "firefox", "title": "Cat videos"})
    wait_until(lambda: controller.snapshot().drift.status.value == "drifting")
    assert title_of(client).startswith("Drifting? · 20:00 · Write")
    assert icon_of(client) == {"state": "drifting", "left": "20", "span": "20"}
    client.post("/evidence/window", json={"app": "code", "title": "intro.md"})
    wait_until(lambda: controller.snapshot().drift.status.value == "on_task")
    assert not title_of(client).startswith("Drifting?")
    assert icon_of(client)["state"] == "active"


def test_every_state_draws_a_different_well_formed_picture(client):
    pictures = {}
    for state in STATES:
        svg = drawn(client, f"state={state}&left=7&span=20")
        assert svg.tag == f"{SVG}svg"
        assert svg.get("viewBox") == "0 0 32 32"
        [disc] = [c for c in svg.iter(f"{SVG}circle") if c.get("r") == "15"]
        assert disc.get("fill") == COLOURS[state]
        pictures[state] = ET.tostring(svg)
    assert len(set(pictures.values())) == len(STATES)


def test_the_running_icon_shows_the_minutes_left_and_a_ring_of_what_is_left(client):
    svg = drawn(client, "state=active&left=7&span=20")
    assert texts(svg) == ["7"]
    [arc] = [c for c in svg.iter(f"{SVG}circle") if c.get("stroke-dasharray")]
    assert arc.get("stroke-dasharray") == "35 100"  # 7 of 20 minutes
    assert texts(drawn(client, "state=drifting&left=45&span=60")) == ["45"]
    assert texts(drawn(client, "state=active&left=150&span=180")) == ["2h"]
    paused = drawn(client, "state=paused&left=7&span=20")
    assert texts(paused) == [] and len(list(paused.iter(f"{SVG}rect"))) == 2


@pytest.mark.parametrize(
    "query",
    [
        "state=%3Cscript%3E",
        "state=active&left=-1",
        "state=active&left=1e3",
        "state=active&left=%EF%BC%91",  # a fullwidth digit
        "state=active&span=99999999",
        "state=active&left=%22%3E%3Cx",
    ],
)
def test_a_bad_icon_query_is_a_400_sentence_and_reflects_nothing(client, query):
    response = client.get(f"/icon.svg?{query}")
    assert response.status_code == 400
    body = response.get_data(as_text=True)
    assert "icon" in body
    assert "<script" not in body and '"><x' not in body


def test_the_icon_is_cacheable_and_under_the_strict_csp(client):
    response = client.get("/icon.svg?state=active&left=3&span=20")
    assert "max-age" in response.headers["Cache-Control"]
    assert "default-src 'none'" in response.headers["Content-Security-Policy"]
    assert b"<script" not in response.data and b"<style" not in response.data
