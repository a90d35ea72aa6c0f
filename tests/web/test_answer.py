"""One place decides a response's form from the request (antidrift/web/answer.py); handlers
return what they did, in the forms they have."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from antidrift.core.domain import NotFound
from antidrift.web import requests as web_requests
from antidrift.web.answer import Form, Reply, asked, moved, refusal, respond

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


@pytest.mark.parametrize(
    ("headers", "body", "form"),
    [
        ({"HX-Request": "true"}, None, Form.FRAGMENT),
        ({"HX-Request": "true", "Accept": BROWSER}, None, Form.FRAGMENT),
        ({"Accept": BROWSER}, None, Form.PAGE),
        ({"Accept": "text/html"}, {"data": {"a": "1"}}, Form.PAGE),  # a plain form
        ({"Accept": BROWSER}, {"json": {"a": 1}}, Form.JSON),  # JSON sent: an API client
        ({}, None, Form.JSON),
        ({"Accept": "*/*"}, None, Form.JSON),
        ({"Accept": "application/json"}, None, Form.JSON),
        ({"HX-Request": "false", "Accept": "*/*"}, None, Form.JSON),
    ],
)
def test_the_request_alone_decides_the_form(app, headers, body, form):
    method = "POST" if body else "GET"
    with app.test_request_context("/", method=method, headers=headers, **(body or {})):
        assert asked() is form


def test_a_form_the_answer_lacks_falls_back_to_json_else_raises_its_refusal(app):
    only_json = Reply(json=lambda: "json")
    with app.test_request_context("/", headers={"HX-Request": "true"}):
        assert respond(only_json) == "json"
    with app.test_request_context("/", headers={"Accept": BROWSER}):
        assert respond(only_json) == "json"
        gone = NotFound("gone")
        shown = refusal(gone, fragment=lambda e: f"<p>{e.message}</p>")
        with pytest.raises(NotFound):
            respond(shown)
    with app.test_request_context("/", headers={"HX-Request": "true"}):
        assert respond(shown) == ("<p>gone</p>", 404)


def test_a_move_answers_htmx_with_nothing_and_others_with_the_state(app):
    with app.test_request_context("/", headers={"HX-Request": "true"}):
        assert respond(moved()) == ""
        assert respond(moved(fragment=lambda: "<h1>x</h1>")) == "<h1>x</h1>"
    with app.test_request_context("/"):
        response = respond(moved())
        assert response.get_json()["runtime_state"] == "locked"


def test_no_route_reads_the_request_to_choose_its_form():
    """answer.asked reads HX-Request and Accept; a handler says which fragment, never which
    form."""
    reading = re.compile(r"from_htmx|wants_html|accept_mimetypes|\"HX-Request\"")
    found = {
        p.name
        for p in Path(web_requests.__file__).parent.glob("*.py")
        if p.name != "answer.py" and reading.search(p.read_text())
    }
    assert not found, found
