"""Release 0.3's routes and widgets under the 0.2 rules, against a real server: /extend,
/drift/ack, history paging, the CSV, insights, corrections, removals and the confirmation page.

A fake `claude` judges (its reason echoes hostile text), a fake `notify-send` records nudges,
ANTIDRIFT_EVIDENCE_EXCLUDE hides private titles; the drift guard has no grace, so a banner
comes within a tick."""

from __future__ import annotations

import csv
import io
import json
import time

import pytest
import websocket

from tests.fakes import wait_until
from tests.support.fake_cli import FakeCLI
from tests.support.fake_notify import FakeNotifier
from tests.support.html import parse

SCRIPT = "<script>alert(1)</script>"
ATTR = '"><img src=x onerror=alert(1)>'
FORMULA = '=HYPERLINK("http://evil.test","x")'
NOTE = f"@SUM(A1) {SCRIPT}"
SECRET = "Acme Bank account QZXJ"
EXCLUDE = "acme bank"

# The new routes that change state, each with a body it accepts in some state.
NEW_POSTS = [
    ("/extend", {"minutes": 5}),
    ("/drift/ack", {"answer": "on_task"}),
    ("/history/{id}", {"outcome": "missed", "note": "changed"}),
    ("/history/{id}/delete", {}),
]


@pytest.fixture(scope="module")
def live(module_lab):
    judge = FakeCLI(module_lab.bin, off=("youtube",))  # replaces the lab's fake claude
    judge.configure(off=(ATTR, SCRIPT, "videos"))
    notifier = FakeNotifier(module_lab.bin)
    server = module_lab.start(
        env={
            "ANTIDRIFT_NOTIFY": "command",
            "ANTIDRIFT_NOTIFY_COMMAND": notifier.command_line(),
            "ANTIDRIFT_DRIFT_GRACE": "0",
            "ANTIDRIFT_DRIFT_COOLDOWN": "0",
            "ANTIDRIFT_EVIDENCE_EXCLUDE": EXCLUDE,
        }
    )
    return server, judge, notifier


def _window(server, app: str, title: str) -> None:
    status, body = server.post("/evidence/window", {"app": app, "title": title})
    assert status == 202, body


def _drift(server) -> dict:
    return server.get("/state")["drift"]


def _active(server, sec, next_action: str = "Write the tests") -> str:
    cid = sec.to_active(server, next_action=next_action)
    _window(server, "code", "tests.py")
    wait_until(lambda: _drift(server)["status"] == "on_task", 10, 0.05, "on task")
    return cid


def _banner(server) -> bool:
    """The drift banner is up (the page shows it; /state has the status, not the banner)."""
    return parse(server.request("GET", "/")[1]).by_id("drift") is not None


def _drifting(server, sec, title: str = "Cat videos") -> str:
    """Active with the drift banner up."""
    cid = _active(server, sec)
    _window(server, "firefox", title)
    wait_until(lambda: _banner(server), 10, 0.05, "a banner")
    return cid


def _ended(server, sec, next_action: str = "Ended one", note: str = "fine") -> str:
    cid = sec.to_active(server, next_action=next_action)
    assert server.post("/finish")[0] == 200
    assert server.post("/end", {"outcome": "met", "note": note})[0] == 200
    return cid


def _everything(server) -> tuple:
    """What a refused request must leave as it was."""
    state = server.get("/state")
    state["evidence"].pop("health", None)
    state.get("drift", {}).pop("since", None)
    status, csv_text = server.request("GET", "/history.csv")
    return json.dumps(state), json.dumps(server.get("/history")), csv_text


def _post(sec, server, path: str, payload: dict, headers: dict | None = None):
    status, resp, body = sec.http(
        server.port,
        "POST",
        path,
        body=json.dumps(payload).encode(),
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    return (
        status,
        resp,
        json.loads(body)
        if resp.get("content-type", "").startswith("application/json")
        else body.decode(),
    )


# -- Host allowlist and Origin / Sec-Fetch-Site ------------------------------------------------


def test_new_routes_refuse_foreign_hosts_and_origins_and_change_nothing(live, sec):
    server, judge, notifier = live
    server.reset()
    entry = _ended(server, sec)
    _drifting(server, sec)
    wait_until(lambda: len(notifier.calls()) >= 1, 10, 0.05, "the nudge")
    server.ticks()  # a tick after the banner: nothing else is pending
    before, calls, nudges = _everything(server), len(judge.calls()), len(notifier.calls())
    port = server.port
    refusals = [
        {"Host": "evil.com"},
        {"Host": f"127.0.0.1:{port}.evil.com"},
        *sec.foreign_origins(port),
    ]
    for path, payload in NEW_POSTS:
        path = path.format(id=entry)
        for headers in refusals:
            for ctype, body in (
                ("application/json", json.dumps(payload).encode()),
                ("text/plain", b"minutes=5&answer=on_task&outcome=missed"),  # a <form> can
                ("application/x-www-form-urlencoded", b"minutes=5&answer=on_task&outcome=missed"),
            ):
                status, _, raw = sec.http(
                    port, "POST", path, body=body, headers={"Content-Type": ctype, **headers}
                )
                assert status == 403, (path, headers, status, raw)
                assert json.loads(raw)["error"].startswith(("Requests from other", "This server"))
    for path in ("/history.csv", "/insights", f"/history/{entry}/delete", "/history?limit=1"):
        status, _, _ = sec.http(port, "GET", path, headers={"Host": "evil.com"})
        assert status == 403, path
    server.ticks()  # what a refused request might have set going has had its tick
    assert _everything(server) == before
    assert len(judge.calls()) == calls and len(notifier.calls()) == nudges, "nothing spawned"
    # Control: the same requests from the page's own origin do change things.
    same = {"Origin": server.base, "Sec-Fetch-Site": "same-origin"}
    assert _post(sec, server, "/drift/ack", {"answer": "back"}, same)[0] == 200
    assert _post(sec, server, "/extend", {"minutes": 5}, same)[0] == 200
    assert _post(sec, server, f"/history/{entry}", {"outcome": "missed"}, same)[0] == 200
    assert _post(sec, server, f"/history/{entry}/delete", {}, same)[0] == 200
    assert entry not in {row["id"] for row in server.get("/history")}


# -- bounds, 400 / 404 / 409 ---------------------------------------------------------------------


def test_extend_refusals_say_why_and_change_nothing(live, sec):
    server, _, _ = live
    server.reset()
    for state in ("locked", "planning", "review"):
        server.reset()
        if state != "locked":
            sec.to_planning(server)
        if state == "review":
            sec.to_active(server)
            server.post("/finish")  # finished by hand: no more time
        before = _everything(server)
        status, _, body = _post(sec, server, "/extend", {"minutes": 5})
        assert status == 409 and "add time" in body["error"], (state, body)
        assert _everything(server) == before
    sec.to_active(server, minutes=470)
    before = _everything(server)
    for bad in (0, -5, 121, 1.5, "NaN", "1e9", None, True, [], {}, "5\u0000", 10**30):
        status, _, body = _post(sec, server, "/extend", {"minutes": bad})
        assert status == 400 and "minutes" in body["error"], (bad, body)
    for raw in (b'{"minutes": NaN}', b'{"minutes": Infinity}', b"[5]", b"5", b"null", b"\xff"):
        status, _, body = sec.http(
            server.port, "POST", "/extend", body=raw, headers={"Content-Type": "application/json"}
        )
        assert status == 400 and json.loads(body)["error"], raw
    status, _, body = _post(sec, server, "/extend", {"minutes": 11})  # 481 in all
    assert status == 400 and "480" in body["error"]
    assert _everything(server) == before
    assert _post(sec, server, "/extend", {"minutes": 10})[0] == 200  # 480: the control
    assert server.get("/state")["commitment"]["extended_secs"] == 600


def test_drift_ack_refusals(live, sec):
    server, _, _ = live
    server.reset()
    _active(server, sec)  # on task: nothing to acknowledge
    before = _everything(server)
    status, _, body = _post(sec, server, "/drift/ack", {"answer": "back"})
    assert status == 409 and body["error"]
    assert _everything(server) == before
    _drifting(server, sec)
    server.ticks()
    before = _everything(server)
    for bad in ("BACK", "", "on task", None, 1, ["back"], {"answer": "back"}, "x" * 5000):
        status, _, body = _post(sec, server, "/drift/ack", {"answer": bad})
        assert status == 400 and 3 < len(body["error"]) < 300, (bad, body)
    assert _everything(server) == before
    assert _post(sec, server, "/drift/ack", {"answer": "on_task"})[0] == 200
    status, _, body = _post(sec, server, "/drift/ack", {"answer": "on_task"})
    assert status == 409  # answered: nothing left to acknowledge


def test_history_routes_bound_their_inputs(live, sec):
    server, _, _ = live
    server.reset()
    entry = _ended(server, sec)
    _ended(server, sec)
    before = _everything(server)
    for limit in ("0", "-1", "1001", "1e3", "99999999999999999999", "NaN", "1.5", "%201", ""):
        status, _, body = sec.http(server.port, "GET", f"/history?limit={limit}")
        assert status == 400 and "limit" in json.loads(body)["error"], limit
    status, headers, body = sec.http(server.port, "GET", "/history?limit=1")
    assert status == 200 and len(json.loads(body)) == 1 and 'rel="next"' in headers["link"]
    odd = ["nope", "%00", "%ED%A0%80", "%FF", "x" * 3000, "'%20OR%201=1--", "%3Cscript%3E"]
    for ident in odd + [entry.upper()]:
        for method, path, payload in (
            ("POST", f"/history/{ident}", {"outcome": "met", "note": ""}),
            ("POST", f"/history/{ident}/delete", {}),
            ("GET", f"/history/{ident}/delete", None),
            ("GET", f"/insights?before={ident}", None),
            ("GET", f"/history?before={ident}", None),
        ):
            status, _, body = sec.http(
                server.port,
                method,
                path,
                body=json.dumps(payload).encode() if payload is not None else b"",
                headers={"Content-Type": "application/json"} if payload is not None else {},
            )
            assert status in (400, 404), (path[:80], status, body[:200])
            assert json.loads(body)["error"], path[:80]
    for payload in (
        {"outcome": "meet"},
        {"outcome": None},
        {"outcome": "met", "note": "n" * 2001},
        {"outcome": "met", "note": 7},
        {"outcome": "met", "note": "a\u0000"},
    ):
        status, _, body = _post(sec, server, f"/history/{entry}", payload)
        assert status == 400 and body["error"], payload
    for raw, ctype in ((b"[]", "application/json"), (b"1", "application/json"), (b"", "")):
        status, _, body = sec.http(
            server.port, "POST", f"/history/{entry}", body=raw, headers={"Content-Type": ctype}
        )
        assert status == 400 and json.loads(body)["error"], raw
    assert _everything(server) == before
    # An entry that is still running is no history entry: it cannot be corrected or removed.
    running = sec.to_active(server)
    for path in (f"/history/{running}", f"/history/{running}/delete"):
        status, _, _ = _post(sec, server, path, {"outcome": "met"})
        assert status == 404, path
    assert server.get("/state")["commitment"]["id"] == running


# -- nothing shown as markup, no formula in the CSV ---------------------------------------------


def _assert_inert(html: str, *shown: str) -> None:
    """No element or attribute a payload could have made; each `shown` text is on the page."""
    root = parse(html)
    for node in root.iter():
        assert node.tag not in ("img", "style", "iframe", "object"), node.attrs
        if node.tag == "script":
            assert (node.get("src") or "").startswith("/static/"), node.attrs
        assert not [a for a in node.attrs if a.startswith("on") or a == "style"], node.attrs
    assert "<img" not in html and "<script>" not in html
    text = root.text() + " ".join(v or "" for n in root.iter() for v in n.attrs.values())
    for item in shown:
        assert " ".join(item.split()) in text, f"{item!r} is not shown as text"


def test_hostile_texts_stay_text_in_pages_pushes_insights_confirmation_and_csv(live, sec):
    server, judge, _ = live
    server.reset()
    ws = sec.ws(server)
    try:
        sec.to_active(server, next_action=f"{ATTR} {FORMULA}")
        _window(server, "code", "tests.py")
        _window(server, SCRIPT, f"Funny {ATTR} videos")  # the judge's reason quotes ATTR
        wait_until(lambda: _banner(server), 10, 0.05, "a banner")
        drift = server.get("/state")["drift"]
        assert ATTR in (drift.get("reason") or ""), drift
        page = server.request("GET", "/")[1]
        _assert_inert(page, ATTR)
        assert parse(page).by_id("drift") is not None
        pushes = []
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not any('id="drift"' in p for p in pushes):
            try:
                pushes.append(ws.recv())
            except websocket.WebSocketTimeoutException:
                break
        assert any('id="drift"' in p for p in pushes), "the banner was pushed"
        for push in pushes:
            _assert_inert(push)
        server.post("/finish")
        status, _ = server.post("/end", {"outcome": "met", "note": NOTE})
        assert status == 200
        review = server.get("/history")[0]
    finally:
        ws.close()
    insights = server.request("GET", "/insights")[1]
    _assert_inert(insights, ATTR, SCRIPT)
    confirm = server.request("GET", f"/history/{review['id']}/delete")[1]
    _assert_inert(confirm, ATTR, SCRIPT)
    status, headers, raw = sec.http(server.port, "GET", "/history.csv")
    assert status == 200 and headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(raw.decode())))
    for row in rows[1:]:
        for cell in row:
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), (cell, row)
    mine = next(r for r in rows if r[0] == review["id"])
    assert mine[1] == f"{ATTR} {FORMULA}" and mine[7] == "'" + NOTE  # kept, made inert


# -- private titles -------------------------------------------------------------------------------


def test_excluded_titles_are_never_stored_shown_exported_or_judged(live, sec, module_lab):
    server, judge, _ = live
    server.reset()
    ws = sec.ws(server)
    pushes: list[str] = []
    try:
        cid = _active(server, sec)
        # A private title; one whose private part lies beyond the 500 characters kept; and
        # one that is private and off task (its episode is stored and shown).
        long_one = "Statement " + "x" * 600 + " — " + SECRET.upper()
        # X11 names the app after the title when a window has no WM_CLASS: app == title.
        for app, title in (
            ("firefox", f"{SECRET} — Firefox"),
            ("firefox", long_one),
            (f"{SECRET} pdf", f"{SECRET} pdf"),
            # An app that matches on its own, its window's title plain (issue 24: it was
            # kept and sent in clear): hidden, and its title with it.
            (f"{SECRET} Desktop", "Monthly overview"),
            ("videos", f"{SECRET} videos"),
        ):
            _window(server, app, title)
            time.sleep(0.3)
        wait_until(lambda: _banner(server), 10, 0.05, "a banner")
        page = server.request("GET", "/")[1]
        # Every push since before the first window, up to the banner's and a tick after it.
        while not any('id="drift"' in p for p in pushes):
            pushes.append(ws.recv())
        pushes.append(ws.recv())
        while 'id="offline"' not in pushes[-1]:
            pushes.append(ws.recv())
        server.post("/drift/ack", {"answer": "back"})
        server.post("/finish")
        review_page = server.request("GET", "/")[1]
        server.post("/end", {"outcome": "met", "note": ""})
    finally:
        ws.close()
    assert cid in {row["id"] for row in server.get("/history")}
    shown = [
        page,
        review_page,
        *pushes,
        server.request("GET", "/insights")[1],
        server.request("GET", f"/history/{cid}/delete")[1],
        server.request("GET", "/history.csv")[1],
        json.dumps(server.get("/history")),
        json.dumps(server.get("/state")),
    ]
    for index, text in enumerate(shown):
        for private in ("QZXJ", "Statement", "Monthly overview"):
            assert private not in text, (index, text[text.find(private) - 300 :][:400])
    prompts = "\n".join(c["stdin"] for c in judge.calls())
    for private in ("QZXJ", "Statement", "xxxxxxxxxx", "Monthly overview"):
        assert private not in prompts, private
    for path in (server.data_dir).glob("antidrift.sqlite3*"):
        data = path.read_bytes()
        for private in (b"QZXJ", b"Statement", b"x" * 100, b"Monthly overview"):
            assert private not in data, private


# -- CSP on the new pages -------------------------------------------------------------------------


def test_new_pages_need_no_inline_script_or_style(live, sec):
    server, _, _ = live
    server.reset()
    entry = _ended(server, sec)
    _drifting(server, sec)
    pages = {"active with the banner": "/", "insights": "/insights"}
    pages["confirmation"] = f"/history/{entry}/delete"
    pages["older insights"] = f"/insights?before={entry}"
    for name, path in pages.items():
        status, headers, body = sec.http(server.port, "GET", path)
        assert status == 200, name
        csp = headers["content-security-policy"]
        assert "script-src 'self';" in csp and "style-src 'self';" in csp, name
        html = body.decode()
        assert "<style" not in html and "hx-on" not in html and "javascript:" not in html, name
        for node in parse(html).iter():
            assert not [a for a in node.attrs if a.startswith("on") or a == "style"], (name, node)
            if node.tag == "script":
                assert (node.get("src") or "").startswith("/static/"), (name, node.attrs)
            assert not (node.get("hx-vals") or "").startswith("js:"), (name, node.attrs)
    status, headers, _ = sec.http(server.port, "GET", "/history.csv")
    assert (
        status == 200 and headers["content-security-policy"] and headers["x-content-type-options"]
    )


# -- the warm coach (ANTIDRIFT_AI_WARM): no process piles up -----------------------------------


def test_warm_coach_processes_never_pile_up_and_refused_posts_start_none(lab, sec):
    server = lab.start(env={"ANTIDRIFT_AI_WARM": "1"}, data_dir=lab.root / "warm")
    fake = lab.fake.path
    for headers in ({"Origin": "http://evil.com"}, {"Sec-Fetch-Site": "cross-site"}):
        assert sec.http(server.port, "POST", "/planning", headers=headers)[0] == 403
    # Refused before any handler ran (the 403 comes from before_request): nothing is in
    # flight that could start a claude later, so none now means none.
    assert sec.running(fake) == [] and server.get("/state")["runtime_state"] == "locked"
    assert server.post("/planning")[0] == 200
    wait_until(lambda: len(sec.running(fake)) == 1, 10, 0.05, "one warm claude")
    for _ in range(25):
        assert server.post("/planning/cancel")[0] == 200
        assert server.post("/planning")[0] == 200
    wait_until(lambda: len(sec.running(fake)) == 1, 10, 0.05, "still one warm claude")
    assert server.post("/planning/cancel")[0] == 200
    wait_until(lambda: sec.running(fake) == [], 10, 0.05, "no warm claude once locked")
    server.stop()


# -- text no UTF-8 page can hold ---------------------------------------------------------------

LONE = "\\ud800"  # JSON spells a lone surrogate so; json.loads makes it a str no UTF-8 can hold


def _page_and_push_work(server, sec) -> None:
    status, page = server.request("GET", "/")
    assert status == 200, page
    ws = sec.ws(server)
    try:
        assert ws.recv(), "the first push"
    finally:
        ws.close()
    assert "Traceback" not in server.log()


def test_an_ai_answer_with_a_lone_surrogate_breaks_no_page_push_or_record(lab, sec):
    """Coach fields, the judge's reason and the reflection arrive as JSON; "\\ud800" in them
    must not make the page a 500, stop every push (the websocket encodes UTF-8), or lose
    the judge's verdict in the database."""
    server = lab.start(data_dir=lab.root / "lone")
    lab.fake.configure(
        answer=f'{{"next_action": "Draft {LONE} it", "success_condition": "ok {LONE}",'
        ' "timebox_minutes": 20}'
    )
    sec.to_planning(server)
    assert server.post("/coach", {"intent": "plan it"})[0] == 200
    wait_until(
        lambda: server.get("/state")["coach"]["status"] in ("ready", "error"), 10, 0.05, "coach"
    )
    _page_and_push_work(server, sec)
    lab.fake.configure(answer=f'{{"on_task": false, "reason": "not {LONE} the work"}}')
    sec.to_active(server)
    _window(server, "firefox", "videos")
    wait_until(lambda: _drift(server)["status"] == "drifting", 10, 0.05, "drifting")
    _page_and_push_work(server, sec)
    lab.fake.configure(answer=f'{{"reflection": "You drifted {LONE} twice."}}')
    assert server.post("/finish")[0] == 200
    assert server.post("/reflect")[0] == 200  # the review's Reflect button
    wait_until(lambda: "You drifted" in server.request("GET", "/")[1], 10, 0.05, "the reflection")
    _page_and_push_work(server, sec)
    assert server.post("/end", {"outcome": "met", "note": ""})[0] == 200
    server.stop()
    assert "could not record" not in server.log(), server.log()


def test_a_window_title_with_a_lone_surrogate_is_recorded_not_dropped(lab, sec):
    """Probes read JSON too (aw-server, sway, Hyprland, GNOME): such a title is kept, made
    valid, instead of failing every sample of that window with a traceback in the log."""
    from datetime import UTC, datetime

    from tests.support.http_standin import StandIn

    def answer(handler) -> None:
        if handler.path.startswith("/api/0/info"):
            handler.reply(200, {"hostname": "h", "version": "v0.12.0"})
            return
        event = {
            "timestamp": datetime.now(UTC).isoformat(),
            "duration": 0,
            "data": {"app": "reader", "title": "odd \\ud800 title"},
        }
        handler.reply(200, json.dumps([event]).replace("\\\\ud800", "\\ud800").encode())

    stand_in = StandIn(answer)
    try:
        server = lab.start(
            env={
                "ANTIDRIFT_WINDOW_SOURCE": "activitywatch",
                "ANTIDRIFT_AW_URL": stand_in.url,
                "ANTIDRIFT_SAMPLE_INTERVAL": "0.2",
                "ANTIDRIFT_DRIFT": "off",
            },
            data_dir=lab.root / "lone-title",
        )
        sec.to_active(server)
        last = wait_until(
            lambda: server.get("/state")["evidence"]["last"], 10, 0.05, "a recorded sample"
        )
        assert last["app"] == "reader" and last["title"] == "odd \ufffd title", last
        _page_and_push_work(server, sec)
        server.stop()
    finally:
        stand_in.close()
