"""A refused settings change answers with the status its error carries and its sentence, as
JSON or as the htmx message: 400 a value not accepted, 409 a key the environment sets."""

from __future__ import annotations

import html

import pytest
from flask import Blueprint, request

from antidrift.settings import LiveSettings, load


@pytest.fixture
def changes_client(make_app, controller, tmp_path):
    """The real app and error handler, with a route that hands its JSON to LiveSettings."""
    live = LiveSettings(load({"ANTIDRIFT_DRIFT": "ai"}, data_dir=tmp_path))
    app = make_app(controller)
    probe = Blueprint("settings_probe", __name__)

    @probe.post("/probe/settings")
    def change():
        return live.update(request.get_json()).shown("enforce") or "", 200

    app.register_blueprint(probe)
    return app.test_client()


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"enforce": "close"}, 400, ["enforce", "one of off, minimize"]),
        ({"drift": "off"}, 409, ["ANTIDRIFT_DRIFT"]),
        ({"port": 1}, 400, ["no setting 'port'"]),
    ],
)
def test_a_refused_change_carries_its_status_and_sentence(changes_client, body, status, words):
    answer = changes_client.post("/probe/settings", json=body)
    assert answer.status_code == status
    assert all(w in answer.get_json()["error"] for w in words), answer.get_json()
    htmx = changes_client.post("/probe/settings", json=body, headers={"HX-Request": "true"})
    assert htmx.status_code == status and words[0] in html.unescape(htmx.get_data(as_text=True))


def test_an_accepted_change_goes_through(changes_client):
    answer = changes_client.post("/probe/settings", json={"enforce": "minimize"})
    assert (answer.status_code, answer.get_data(as_text=True)) == (200, "minimize")
