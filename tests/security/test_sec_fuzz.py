"""Hypothesis throws random requests at every endpoint, in every state: never a 5xx, a refused
request always says why, and a refused request changes nothing."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from antidrift.app import MAX_BODY, create_app
from antidrift.bootstrap import CoachInfo, Runtime
from antidrift.clock import SystemClock
from antidrift.config import Config
from antidrift.domain import RuntimeState
from antidrift.session import Controller
from antidrift.store import SQLiteStore
from antidrift.web.projection import history_json, state_json

POSTS = [
    "/planning",
    "/planning/cancel",
    "/commitment",
    "/coach",
    "/coach/cancel",
    "/finish",
    "/end",
    "/evidence/window",
]
GETS = ["/", "/state", "/history", "/ws", "/static/style.css", "/static/../antidrift/app.py"]
FIELDS = [
    "next_action",
    "success_condition",
    "timebox_minutes",
    "intent",
    "outcome",
    "note",
    "app",
    "title",
]
STATES = ["locked", "planning", "active", "review"]


class _Huge(bytes):
    def __repr__(self) -> str:
        return f"HUGE({len(self)} bytes)"


HUGE = _Huge(b'{"intent": "' + b"x" * (MAX_BODY + 1) + b'"}')


@pytest.fixture(scope="module")
def app_and_controller(tmp_path_factory):
    """The real app over a temp SQLite store, with no coach (its answer is synchronous)."""
    data = tmp_path_factory.mktemp("fuzz")
    store, clock = SQLiteStore(data / "antidrift.sqlite3"), SystemClock()
    controller = Controller(store, clock, coach=None)
    runtime = Runtime(controller, store, clock, CoachInfo(None, "no coach in this test."))
    app = create_app(Config(data_dir=data), runtime=runtime, start_background=False)
    yield app, controller
    controller.shutdown()
    store.close()


def drive(controller: Controller, state: str) -> None:
    snap = controller.snapshot()
    if snap.state is RuntimeState.PLANNING:
        controller.cancel_planning()
    elif snap.state is RuntimeState.ACTIVE:
        controller.finish()
        controller.end("missed", "")
    elif snap.state is RuntimeState.REVIEW:
        controller.end("missed", "")
    if state == "locked":
        return
    controller.enter_planning()
    if state in ("active", "review"):
        controller.start_manual_commitment("fuzz target", "it holds", 30)
        controller.record_window("Editor", "fuzz.py")
    if state == "review":
        controller.finish()


def observe(controller: Controller) -> tuple:
    snap = controller.snapshot()
    body = state_json(snap)
    body["evidence"].pop("health")  # a function of the clock, not of the request
    samples = len(controller.samples(snap.commitment.id)) if snap.commitment else 0
    return snap.version, json.dumps(body), json.dumps(history_json(controller.history())), samples


text = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=8).map(
        lambda s: s + "\x00"
    ),
    st.sampled_from(["met", "missed", "25", "0", "481", "1e9", " ", "\ud800", "<script>"]),
    st.integers(min_value=480, max_value=3000).map(lambda n: "x" * n),
)
json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | text,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
field_names = st.sampled_from(FIELDS) | st.text(max_size=8)


@st.composite
def bodies(draw) -> tuple[str | None, bytes]:
    kind = draw(st.sampled_from(["json-object", "json-any", "form", "raw", "huge", "none"]))
    if kind == "json-object":
        obj = draw(st.dictionaries(field_names, json_value, max_size=6))
        return "application/json", json.dumps(obj).encode()
    if kind == "json-any":
        return "application/json", json.dumps(draw(json_value)).encode()
    if kind == "form":
        pairs = draw(st.lists(st.tuples(field_names, text), max_size=6))
        # surrogatepass: a lone surrogate goes out as the invalid UTF-8 bytes it would be.
        form = urlencode(pairs, encoding="utf-8", errors="surrogatepass")
        return "application/x-www-form-urlencoded", form.encode()
    if kind == "raw":
        ctype = draw(
            st.sampled_from(
                [
                    "application/json",
                    "application/x-www-form-urlencoded",
                    "text/plain",
                    "application/xml",
                    "multipart/form-data",
                    "multipart/form-data; boundary=x",
                    "application/json; charset=utf-16",
                    "",
                    "image/png",
                ]
            )
        )
        raw = draw(
            st.binary(max_size=200)
            | st.sampled_from(
                [
                    b"[" * 5000,
                    b'{"a":' * 3000,
                    b"\xff\xfe\x00",
                    b"--x\r\n\r\n",
                    b'{"intent": 1e999}',
                ]
            )
        )
        return ctype, raw
    if kind == "huge":
        return "application/json", HUGE  # built once; shown as HUGE in a failure report
    return None, b""


@st.composite
def requests(draw):
    choice = draw(st.integers(0, 9))
    if choice < 7:
        method, path = "POST", draw(st.sampled_from(POSTS))
    elif choice < 9:
        method, path = draw(st.sampled_from(["GET", "HEAD"])), draw(st.sampled_from(GETS))
    else:
        method = draw(st.sampled_from(["PUT", "DELETE", "PATCH", "POST", "GET"]))
        path = draw(
            st.sampled_from(POSTS + GETS)
            | st.text(alphabet="abcdefghijklmnopqrstuvwxyz/%.?=&", max_size=20).map(
                lambda p: "/" + p
            )
        )
    ctype, body = draw(bodies())
    htmx = draw(st.booleans())
    return method, path, ctype, body, htmx


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def handle_data(self, data):
        self.parts.append(data)


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(state=st.sampled_from(STATES), request=requests())
def test_random_requests_never_fail_the_server(app_and_controller, state, request):
    app, controller = app_and_controller
    method, path, ctype, body, htmx = request
    drive(controller, state)
    before = observe(controller)
    headers = {"HX-Request": "true"} if htmx else {}
    if ctype is not None:
        headers["Content-Type"] = ctype
    response = app.test_client().open(path, method=method, data=body, headers=headers)
    status = response.status_code
    assert status < 500, (status, response.get_data(as_text=True))
    assert response.headers.get("Content-Security-Policy")
    if status < 400:
        return
    assert observe(controller) == before, "a refused request changed the state"
    if method == "HEAD":
        return
    if response.mimetype == "application/json":
        message = response.get_json()["error"]
    else:
        assert htmx and response.mimetype == "text/html", response.mimetype
        parser = _Text()
        parser.feed(response.get_data(as_text=True))
        message = "".join(parser.parts)
    assert isinstance(message, str) and 3 < len(message.strip()) < 300, message
    assert "Traceback" not in message
