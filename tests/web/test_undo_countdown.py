"""The Undo Finish button counts its 30 seconds down: the seconds inside it are pushed alone
each second (the button, and a focus on it, stays), and the button goes when they are up."""

from __future__ import annotations

from tests.support.html import parse
from tests.support.web import to


def test_undo_finish_counts_down_inside_its_button(app, client, clock):
    to(client, "review")
    doc = parse(client.get("/").get_data(as_text=True))
    button = doc.by_id("undo").find_all("button")[0]
    assert button.by_id("undo-left").text().strip() == "30 s"
    hub, views = app.extensions["antidrift.hub"], app.extensions["antidrift.views"]
    controller = app.extensions["antidrift.runtime"].controller
    conn = hub.connect(views.page(controller.snapshot()).shows)
    while conn.next(0.01) is not None:
        pass
    clock.advance(12)
    hub.refresh()
    pushed = parse(conn.next(1.0))
    assert pushed.by_id("undo-left").text().strip() == "18 s"
    assert pushed.by_id("undo") is None  # the button itself is not re-sent
    clock.advance(19)
    hub.refresh()
    pushed = parse(conn.next(1.0))
    assert pushed.by_id("undo").find_all("button") == []  # the time is up: no Undo
    hub.disconnect(conn)
