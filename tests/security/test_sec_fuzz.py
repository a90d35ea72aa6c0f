"""Hypothesis throws random requests at every endpoint, in every state: never a 5xx, a refused
request always says why, and a refused request changes nothing.

Release 0.3's routes are in the same lists: /extend (also from a timebox that ran out),
/drift/ack (also with a banner up), history paging, the CSV, insights, corrections and removals
with real and odd ids."""

from __future__ import annotations

import json
from datetime import timedelta
from html.parser import HTMLParser
from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from antidrift.core.domain import RuntimeState
from antidrift.drift.policy import DriftSettings, DriftStatus
from antidrift.server.app import MAX_BODY, create_app
from antidrift.server.bootstrap import Runtime
from antidrift.session.controller import Controller
from antidrift.session.snapshot import CoachInfo
from antidrift.settings import Settings
from antidrift.store.sqlite import SQLiteStore
from antidrift.web.projection import state_json
from tests.fakes import FakeClock, FakeJudge, wait_until
from tests.support.session import build_controller

POSTS = [
    "/planning",
    "/planning/cancel",
    "/commitment",
    "/coach",
    "/coach/cancel",
    "/finish",
    "/end",
    "/evidence/window",
    "/extend",
    "/drift/ack",
    "/history/{id}",
    "/history/{id}/delete",
]
# Ids a client could put in a path: the newest real one ({id}) and odd ones.
ODD_IDS = [
    "%00",
    "%2e%2e",
    "%ED%A0%80",
    "%FF",
    "x" * 3000,
    "'%20OR%201=1--",
    "%3Cscript%3E",
    "a%0D%0Ab",
    "%20",
    "{id}%00",
    "{ID}",
    "-1",
]
ODD_POSTS = [f"/history/{i}" for i in ODD_IDS] + [f"/history/{i}/delete" for i in ODD_IDS]
LIMITS = ["0", "-1", "1001", "1e3", "99999999999999999999", "NaN", "1.5", "%201", "%D9%A5", ""]
GETS = [
    "/",
    "/state",
    "/history",
    "/ws",
    "/static/style.css",
    "/static/../antidrift/server/app.py",
    "/history.csv",
    "/insights",
    "/insights?before={id}",
    "/history?limit=1&before={id}",
    "/history/{id}/delete",
    "/history/{id}/delete?back=//evil.com",
    *[f"/history?limit={n}" for n in LIMITS],
    *[f"/history?before={i}" for i in ODD_IDS],
    *[f"/insights?before={i}" for i in ODD_IDS],
    *[f"/history/{i}/delete" for i in ODD_IDS],
]
FIELDS = [
    "next_action",
    "success_condition",
    "timebox_minutes",
    "intent",
    "outcome",
    "note",
    "app",
    "title",
    "minutes",
    "answer",
    "back",
    "drift",
]
# ran_out: review after the timebox ran out (extend may reopen it); drifting: the banner is up.
STATES = ["locked", "planning", "active", "review", "ran_out", "drifting"]


class _Huge(bytes):
    def __repr__(self) -> str:
        return f"HUGE({len(self)} bytes)"


HUGE = _Huge(b'{"intent": "' + b"x" * (MAX_BODY + 1) + b'"}')


@pytest.fixture(scope="module")
def app_and_controller(tmp_path_factory):
    """The real app over a temp SQLite store, with no coach (its answer is synchronous), a fake
    clock (a timebox can run out) and a fake judge with no grace (a banner comes at once)."""
    data = tmp_path_factory.mktemp("fuzz")
    store, clock = SQLiteStore(data / "antidrift.sqlite3"), FakeClock()
    judge = FakeJudge({"Editor"})
    controller = build_controller(
        store,
        clock,
        coach=None,
        judge=judge,
        drift=DriftSettings(timedelta(0), timedelta(0), 1_000_000),
    )
    runtime = Runtime(controller, store, clock, CoachInfo(None, "no coach in this test."))
    app = create_app(Settings(data_dir=data), runtime=runtime)
    controller.fuzz_clock = clock  # drive() makes timeboxes run out
    controller.fuzz_store = store  # observe() reads the history and samples from it
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
    if not controller.fuzz_store.history(1):  # /history/{id} needs one entry
        controller.enter_planning()
        controller.start_manual_commitment("=fuzz entry", "it holds", 30)
        controller.finish()
        controller.end("met", "@note")
    if state == "locked":
        return
    controller.enter_planning()
    if state == "planning":
        return
    controller.start_manual_commitment("fuzz target", "it holds", 1 if state == "ran_out" else 30)
    _judged(controller, "Editor", "fuzz.py", DriftStatus.ON_TASK)
    if state == "drifting":
        _judged(controller, "Videos", "cats", DriftStatus.DRIFTING)
        controller.drift_tick()
        assert controller.snapshot().drift.banner is not None
    elif state == "review":
        controller.finish()
    elif state == "ran_out":
        controller.fuzz_clock.advance(61)
        assert controller.expire_if_due()


def _judged(controller: Controller, app: str, title: str, status: DriftStatus) -> None:
    """Record a window and wait for its verdict: nothing may change during a request."""
    controller.record_window(app, title)
    wait_until(lambda: controller.snapshot().drift.status is status, message=f"never {status}")


def observe(controller: Controller) -> tuple:
    snap = controller.snapshot()
    body = state_json(snap)
    body["evidence"].pop("health")  # a function of the clock, not of the request
    return snap.version, json.dumps(body), _rows(controller.fuzz_store)


def _rows(store: SQLiteStore) -> tuple:
    """Every row of every table, in the order SQLite keeps them: the history, its samples, the
    runtime state. (Raw rows: the history grows by an entry an example, and building all of it
    as the API does, twice an example, made the run quadratic.)"""
    with store._lock:  # the judge's thread writes through the same connection
        db = store._db
        tables = db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        return tuple(
            (name, list(map(tuple, db.execute(f'SELECT * FROM "{name}"'))))
            for (name,) in tables.fetchall()
        )


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
    kind = draw(
        st.sampled_from(["json-object", "json-any", "form", "raw", "hostile-json", "huge", "none"])
    )
    if kind == "hostile-json":
        depth = draw(st.integers(500, 8000))
        return "application/json", draw(
            st.sampled_from(
                [
                    b"[" * depth,
                    b'{"a":' * depth,
                    b'{"intent": ' + b"[" * depth + b"]" * depth + b"}",
                    b'{"timebox_minutes": 1' + b"0" * depth + b"}",
                    b'{"intent": NaN, "note": Infinity}',
                    b'\xef\xbb\xbf{"intent": "bom"}',
                    b'{"app": "a", "app": "\\u0000"}',
                ]
            )
        )
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
        method, path = "POST", draw(st.sampled_from(POSTS) | st.sampled_from(ODD_POSTS))
    elif choice < 9:
        method, path = draw(st.sampled_from(["GET", "HEAD"])), draw(st.sampled_from(GETS))
    else:
        method = draw(st.sampled_from(["PUT", "DELETE", "PATCH", "POST", "GET"]))
        path = draw(
            st.sampled_from(POSTS + GETS)
            # Not "//…": Flask's test client reads that as a host name, and fails itself.
            | st.text(alphabet="abcdefghijklmnopqrstuvwxyz/%.?=&", max_size=20).map(
                lambda p: "/" + p.lstrip("/")
            )
        )
    ctype, body = draw(bodies())
    htmx = draw(st.booleans())
    return method, path, ctype, body, htmx


class _Text(HTMLParser):
    """The message's text: out-of-band elements (a refused plan's fields, given back as
    typed) are not part of it."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._oob_depth = 0

    def handle_starttag(self, tag, attrs):
        if self._oob_depth or any(name == "hx-swap-oob" for name, _ in attrs):
            self._oob_depth += tag not in ("input", "br", "img", "meta")

    def handle_endtag(self, tag):
        if self._oob_depth:
            self._oob_depth -= 1

    def handle_data(self, data):
        if not self._oob_depth:
            self.parts.append(data)


def send(app, controller, state, method, path, ctype, body, htmx) -> int:
    """One request from `state`: never a 5xx; a refusal says why and changes nothing."""
    drive(controller, state)
    newest = controller.fuzz_store.history(1)[0].id
    path = path.replace("{id}", newest).replace("{ID}", newest.upper())
    before = observe(controller)
    headers = {"HX-Request": "true"} if htmx else {}
    if ctype is not None:
        headers["Content-Type"] = ctype
    response = app.test_client().open(path, method=method, data=body, headers=headers)
    status = response.status_code
    assert status < 500, (status, response.get_data(as_text=True))
    assert response.headers.get("Content-Security-Policy")
    if status < 400:
        return status
    assert observe(controller) == before, "a refused request changed the state"
    if method == "HEAD":
        return status
    if response.mimetype == "application/json":
        message = response.get_json()["error"]
    else:
        assert htmx and response.mimetype == "text/html", response.mimetype
        parser = _Text()
        parser.feed(response.get_data(as_text=True))
        message = "".join(parser.parts)
    assert isinstance(message, str) and 3 < len(message.strip()) < 300, message
    assert "Traceback" not in message
    return status


EXAMPLES = 300  # per property, shared out over its independent tests


def fuzz(tests: int):
    """Hypothesis settings for one of `tests` tests that share a property's examples."""
    return settings(
        max_examples=-(-EXAMPLES // tests),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


# One test per state (each can run on another worker), the examples shared out among them.
@pytest.mark.parametrize("state", STATES)
@fuzz(len(STATES))
@given(request=requests())
def test_random_requests_never_fail_the_server(app_and_controller, state, request):
    app, controller = app_and_controller
    send(app, controller, state, *request)


@pytest.mark.parametrize(
    ("state", "request_"),
    [
        ("planning", ("POST", "/commitment", "application/json", b"[" * 5000, False)),
        ("active", ("POST", "/evidence/window", "application/json", b'{"a":' * 3000, True)),
    ],
    ids=["deep-array", "deep-object"],
)
def test_deeply_nested_json_never_fails_the_server(app_and_controller, state, request_):
    app, controller = app_and_controller
    send(app, controller, state, *request_)


# -- near-valid requests: a valid body for the route, one field made invalid ------------------

VALID = {
    "/commitment": (
        "planning",
        {"next_action": "Write it", "success_condition": "It exists", "timebox_minutes": 25},
    ),
    "/coach": ("planning", {"intent": "plan the afternoon"}),
    "/end": ("review", {"outcome": "met", "note": "fine"}),
    "/evidence/window": ("active", {"app": "Editor", "title": "notes.txt"}),
    "/extend": ("active", {"minutes": 15}),
    "/drift/ack": ("drifting", {"answer": "on_task"}),
    "/history/{id}": ("locked", {"outcome": "missed", "note": "corrected"}),
}
_TEXT_BAD = [None, 7, 1.5, True, [], {}, "", "   ", "a\x00b", "\ud800x"]
_TEXT_BAD_FORM = ["", "   ", "a\x00b"]
# field -> (invalid JSON values, invalid form values); None means "missing" too.
INVALID = {
    "next_action": (_TEXT_BAD + ["x" * 501], _TEXT_BAD_FORM + ["x" * 501]),
    "success_condition": (_TEXT_BAD + ["x" * 501], _TEXT_BAD_FORM + ["x" * 501]),
    "intent": (_TEXT_BAD + ["x" * 2001], _TEXT_BAD_FORM + ["x" * 2001]),
    "app": (_TEXT_BAD + ["x" * 501], _TEXT_BAD_FORM + ["x" * 501]),
    "timebox_minutes": (
        [None, True, "abc", 0, 481, 1.5, "1e9", [], {}, "25\x00", "-5", 10**20, float("nan")],
        ["abc", "0", "481", "1.5", "1e9", "", "25\x00", "-5"],
    ),
    "outcome": ([None, "MET", "", "met\x00", 1, [], "meet"], ["MET", "", "meet", "met\x00"]),
    "note": ([7, [], {}, "a\x00", "\ud800", "n" * 2001], ["a\x00", "n" * 2001]),
    "title": ([7, [], {}, "a\x00", "\ud800"], ["a\x00"]),
    "minutes": (
        [None, True, "abc", 0, 121, 1.5, "1e9", [], {}, "5\x00", "-5", -5, 10**20, "NaN"]
        + [float("nan"), float("inf"), float("-inf"), "\u0665"],
        ["abc", "0", "121", "1.5", "1e9", "", "5\x00", "-5", "NaN", "inf", "\u0665"],
    ),
    "answer": (
        [None, "BACK", "", " back", "back\x00", 1, True, [], {}, "on task", "\ud800"],
        ["BACK", "", "on task", "back\x00", "x" * 3000],
    ),
}


def encode(fields: dict, as_form: bool) -> tuple[str, bytes]:
    if as_form:
        pairs = [(k, v) for k, v in fields.items() if v is not None]
        return "application/x-www-form-urlencoded", urlencode(pairs).encode()
    return "application/json", json.dumps(fields).encode()  # NaN goes out as NaN


@st.composite
def near_valid(draw, path: str):
    state, valid = VALID[path]
    if draw(st.integers(0, 9)) == 0:
        state = draw(st.sampled_from(STATES))  # sometimes from a state where it is refused anyway
    as_form = draw(st.booleans())
    field = draw(st.sampled_from(sorted(valid)))
    bad_json, bad_form = INVALID[field]
    fields = dict(valid)
    if draw(st.booleans()) and field not in ("note", "title"):
        del fields[field]  # required and missing
    else:
        fields[field] = draw(st.sampled_from(bad_form if as_form else bad_json))
    ctype, body = encode(fields, as_form)
    return state, path, ctype, body, draw(st.booleans())


# One test per route (each can run on another worker), the examples shared out among them.
@pytest.mark.parametrize("route", sorted(VALID))
@fuzz(len(VALID))
@given(data=st.data())
def test_a_valid_request_with_one_bad_field_is_refused_and_changes_nothing(
    app_and_controller, route, data
):
    refused_unchanged(app_and_controller, data.draw(near_valid(route), label="case"))


@pytest.mark.parametrize(
    "case",
    [
        ("active", "/evidence/window", "application/json", b'{"app": "\\ud800"}', False),
        ("ran_out", "/extend", "application/json", b'{"minutes": NaN}', False),
        ("drifting", "/drift/ack", "application/json", b'{"answer": ["back"]}', True),
    ],
    ids=["lone-surrogate-app", "nan-minutes", "listed-answer"],
)
def test_the_known_bad_fields_are_refused_and_change_nothing(app_and_controller, case):
    refused_unchanged(app_and_controller, case)


def refused_unchanged(app_and_controller, case) -> None:
    app, controller = app_and_controller
    state, path, ctype, body, htmx = case
    status = send(app, controller, state, "POST", path, ctype, body, htmx)
    assert 400 <= status < 500, (status, path, body[:200])


@pytest.mark.parametrize("path", sorted(VALID))
@pytest.mark.parametrize("as_form", [False, True], ids=["json", "form"])
def test_the_unmutated_requests_are_accepted(app_and_controller, path, as_form):
    """Control for the property above: its refusals come from the bad field."""
    app, controller = app_and_controller
    state, valid = VALID[path]
    ctype, body = encode(valid, as_form)
    assert send(app, controller, state, "POST", path, ctype, body, False) in (200, 202)
