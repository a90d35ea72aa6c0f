"""An open review follows the evidence that arrives after it opened (issue 42, "Every
machine"): the laptop guards the desk's commitment (Guard here too) and sends what it saw
when its guarding ends, which is when the commitment ends at the desk, seconds after the
desk's review opened. The desk's open review is pushed its focus evidence section (the
window table by device and the drift section) in place, and nothing else: the review form
and what is typed in it are never in the push, and nothing is pushed for it while nothing
new arrives. Two real servers' runtimes over one sync folder, their sync looked at by hand,
the desk's push hub read as a page's socket."""

from __future__ import annotations

import pytest

from tests.support.html import parse, top_level
from tests.support.sync import HOST, desk_and_laptop, followed

SECTION = "review-evidence"


@pytest.fixture
def two(tmp_path):
    with desk_and_laptop(tmp_path) as machines:
        yield machines


def _pushed(conn) -> dict[str, object]:
    """Every element pushed to the page since the last look, by id (the newest kept)."""
    found = {}
    while (message := conn.next(0.05)) is not None:
        found |= {node.id: node for node in top_level(message)}
    return found


def test_an_open_review_is_pushed_the_laptops_evidence_and_keeps_its_form(two):
    desk, laptop = two
    rule = {"app": "firefox", "verdict": "off_task"}
    assert laptop.client.post("/rules", json=rule, headers=HOST).status_code == 201
    cid = followed(desk, laptop)
    for _ in range(3):
        desk.window("code", "intro.md", then=60)
    laptop.window("firefox", "Cat videos — YouTube", then=120)
    laptop.window("code", "intro.md")

    # The desk finishes; its review opens with none of the laptop's evidence yet.
    assert desk.client.post("/finish", headers=HOST).status_code == 200
    app = desk.client.application
    hub, views = app.extensions["antidrift.hub"], app.extensions["antidrift.views"]
    conn = hub.connect(views.page(desk.runtime.controller.snapshot()).shows)
    _pushed(conn)  # what a page gets as its socket opens
    page = parse(desk.client.get("/", headers=HOST).get_data(as_text=True))
    assert "on laptop" not in page.by_id(SECTION).text()

    hub.refresh()  # nothing arrived: the section is not pushed
    assert SECTION not in _pushed(conn)

    # The laptop hears the commitment ended there: its guarding ends and what it saw goes
    # to the folder; the desk takes it in.
    desk.tick(laptop)
    laptop.runtime.controller.following.tick()
    assert laptop.runtime.controller.snapshot().following is None
    laptop.tick(desk)
    [kept] = desk.runtime.reads.device_evidence(cid)
    assert kept.device == "laptop"
    hub.refresh()
    parts = _pushed(conn)
    assert SECTION in parts
    section = parts[SECTION]
    said = " ".join(section.text().split())
    assert "Watched here and on laptop" in said
    assert "firefox — Cat videos — YouTube on laptop off task" in said
    assert section.by_id("drift-review-title") is not None
    # Only the section: never the whole view, the form, the note, the outcome.
    assert "view" not in parts and "note" not in parts and "review-message" not in parts
    assert section.by_id("note") is None and not section.find_all("form")
    assert not section.find_all("textarea") and not section.find_all("input")
    # What is pushed is what the page shows when it loads afresh.
    page = parse(desk.client.get("/", headers=HOST).get_data(as_text=True))
    assert " ".join(page.by_id(SECTION).text().split()) == said

    hub.refresh()  # nothing new since: nothing pushed for it
    assert SECTION not in _pushed(conn)
