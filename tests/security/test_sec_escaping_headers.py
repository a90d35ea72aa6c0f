"""What the AI (or a window title, or a note) says is text, never markup — in the page and in
every pushed fragment; and every response carries a strict CSP and the other headers."""

from __future__ import annotations

import json
import time
from html.parser import HTMLParser

import pytest
import websocket

from antidrift.server.app import MAX_BODY

SCRIPT = "<script>alert(1)</script>"
ATTR = '"><img src=x onerror=alert(1)>'
INTENT = "</title><script>alert(2)</script>"


class _Parsed(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def assert_inert(html: str, *shown: str) -> None:
    """No element or attribute the payloads could have injected; each `shown` string is there
    as text or as an attribute value, i.e. it was escaped, not dropped."""
    parsed = _Parsed()
    parsed.feed(html)
    for tag, attrs in parsed.tags:
        assert tag not in ("img", "style", "iframe", "object"), (tag, attrs)
        if tag == "script":
            assert (attrs.get("src") or "").startswith("/static/vendor/"), attrs
        assert not [a for a in attrs if a.startswith("on") or a == "style"], (tag, attrs)
    assert SCRIPT not in html and "<img" not in html and "<script>" not in html
    values = {v for _, attrs in parsed.tags for v in attrs.values() if v}
    text = "".join(parsed.text)
    for item in shown:
        assert item in text or item in values, f"{item!r} is not shown as text"


def _recv_until(ws, marker: str, seen: list[str], within: float = 8.0) -> str:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        ws.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            message = ws.recv()
        except websocket.WebSocketTimeoutException:
            break
        seen.append(message)
        if marker in message:
            return message
    raise AssertionError(f"no push with {marker!r}; got {len(seen)} messages")


def test_ai_answer_renders_as_text_in_page_and_pushes(server, sec, module_lab):
    module_lab.fake.configure(
        answer={"next_action": SCRIPT, "success_condition": ATTR, "timebox_minutes": 25}
    )
    sec.to_planning(server)
    pushed: list[str] = []
    ws = sec.ws(server, "?view=planning&c=&p=")
    try:
        status, _ = server.post("/coach", {"intent": INTENT})
        assert status == 200
        prefill = _recv_until(ws, 'id="next_action"', pushed)
        assert_inert(prefill, SCRIPT, ATTR)
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in prefill
        page = server.get("/")
        assert_inert(page, SCRIPT, ATTR)
        # The intent is echoed as the saved draft (0.4), only ever as text.
        assert INTENT not in page and "&lt;script&gt;alert(2)&lt;/script&gt;" in page

        # The proposal becomes the commitment: the active view shows it (page and push).
        status, body = server.post(
            "/commitment",
            {"next_action": SCRIPT, "success_condition": ATTR, "timebox_minutes": 25},
        )
        assert status == 200, body
        assert_inert(_recv_until(ws, 'data-state="active"', pushed), SCRIPT, ATTR)
        assert_inert(server.get("/"), SCRIPT, ATTR)

        # Window titles come from other programs: same rule in the evidence widget.
        status, _ = server.post("/evidence/window", {"app": SCRIPT, "title": ATTR})
        assert status == 202
        assert_inert(_recv_until(ws, 'id="evidence"', pushed), SCRIPT, ATTR)

        server.post("/finish")
        assert_inert(_recv_until(ws, 'data-state="review"', pushed), SCRIPT, ATTR)
        assert_inert(server.get("/"), SCRIPT, ATTR)

        server.post("/end", {"outcome": "met", "note": ATTR})
        assert_inert(_recv_until(ws, 'data-state="locked"', pushed), SCRIPT, ATTR)
        assert_inert(server.get("/"), SCRIPT, ATTR)
    finally:
        ws.close()
    for message in pushed:
        assert_inert(message)


def test_htmx_error_messages_are_escaped(server, sec):
    sec.to_planning(server)
    status, _, body = sec.http(
        server.port,
        "POST",
        "/commitment",
        body=json.dumps(
            {"next_action": SCRIPT, "success_condition": "x" * 501, "timebox_minutes": 5}
        ).encode(),
        headers={"Content-Type": "application/json", "HX-Request": "true"},
    )
    assert status == 400
    assert_inert(body.decode())


# -- headers ----------------------------------------------------------------------------------


def _csp(value: str) -> dict[str, list[str]]:
    policy = {}
    for directive in filter(None, (d.strip() for d in value.split(";"))):
        name, *sources = directive.split()
        policy[name.lower()] = sources
    return policy


def assert_security_headers(headers: dict[str, str], what: str) -> None:
    assert "content-security-policy" in headers, what
    raw = headers["content-security-policy"]
    policy = _csp(raw)
    assert "unsafe-inline" not in raw and "unsafe-eval" not in raw, what
    assert policy["default-src"] == ["'none'"], what
    assert policy["script-src"] == ["'self'"], what
    assert policy["style-src"] == ["'self'"], what
    assert policy["frame-ancestors"] == ["'none'"], what
    assert policy.get("base-uri") == ["'none'"], what
    assert headers.get("x-content-type-options") == "nosniff", what
    assert headers.get("referrer-policy") == "same-origin", what


def test_every_response_has_the_security_headers(server, sec):
    port = server.port
    json_ct = {"Content-Type": "application/json"}
    cases = [
        ("GET", "/", {}, b""),
        ("GET", "/state", {}, b""),
        ("GET", "/history", {}, b""),
        ("HEAD", "/", {}, b""),
        ("GET", "/static/style.css", {}, b""),
        ("GET", "/static/vendor/htmx-2.0.11.min.js", {}, b""),
        ("GET", "/static/favicon.svg", {}, b""),
        ("GET", "/no-such-page", {}, b""),
        ("GET", "/ws", {}, b""),  # no upgrade: 400
        ("PUT", "/planning", {}, b""),  # 405
        ("POST", "/finish", {}, b""),  # 409 from locked
        ("POST", "/commitment", json_ct, b'{"next_action": 1}'),  # 400
        ("POST", "/planning", {"Host": "evil.com"}, b""),  # 403 host
        ("POST", "/planning", {"Origin": "http://evil.com"}, b""),  # 403 origin
        ("POST", "/planning", json_ct, b"x" * (MAX_BODY + 1)),  # 413
        ("POST", "/commitment", {"HX-Request": "true", **json_ct}, b"[]"),  # htmx 400
    ]
    server.reset()
    seen = set()
    for method, path, headers, body in cases:
        if method == "HEAD":
            status, resp, _ = sec.raw(
                port,
                f"HEAD / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode(),
            )
        else:
            status, resp, _ = sec.http(port, method, path, headers=headers, body=body)
        seen.add(status)
        assert_security_headers(resp, f"{method} {path} -> {status}")
    assert {200, 400, 403, 404, 405, 409, 413} <= seen
    # The refused websocket handshake too.
    status, resp, _ = sec.ws_handshake(port, headers={"Origin": "http://evil.com"})
    assert status == 403
    assert_security_headers(resp, "refused ws handshake")


@pytest.mark.parametrize("state", ["locked", "planning", "active", "review"])
def test_pages_need_no_inline_script_or_style(server, sec, state):
    """The CSP forbids inline code, so the page must not rely on any."""
    server.reset()
    if state != "locked":
        sec.to_planning(server)
    if state in ("active", "review"):
        server.post(
            "/commitment", {"next_action": "a", "success_condition": "b", "timebox_minutes": 5}
        )
    if state == "review":
        server.post("/finish")
    status, headers, body = sec.http(server.port, "GET", "/")
    assert status == 200
    assert_security_headers(headers, state)
    html = body.decode()
    parsed = _Parsed()
    parsed.feed(html)
    scripts = [attrs for tag, attrs in parsed.tags if tag == "script"]
    assert scripts and all((a.get("src") or "").startswith("/static/") for a in scripts)
    assert "<style" not in html
    for tag, attrs in parsed.tags:
        assert not [a for a in attrs if a.startswith("on") or a == "style"], (tag, attrs)
        assert "javascript:" not in " ".join(v or "" for v in attrs.values())
    assert "hx-on" not in html
