"""DNS rebinding, CSRF and cross-site websocket hijacking, refused by a real server."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from tests.support.server import REPO, free_port

REFUSED_HOSTS = [
    "evil.com",
    "evil.com:{port}",
    "127.0.0.1.nip.io:{port}",  # a rebinding name that resolves to loopback
    "localhost.evil.com:{port}",
    "127.0.0.1:{port}.evil.com",
    "0.0.0.0:{port}",
    "192.168.1.10:{port}",
    "[::]:{port}",
    "",
]
ALLOWED_HOSTS = [
    "127.0.0.1:{port}",
    "127.0.0.1",
    "127.9.9.9:1",
    "localhost:{port}",
    "LOCALHOST",
    "[::1]:{port}",
]

# Every route that changes state, with a body it would accept in some state.
STATE_CHANGING = [
    ("/planning", {}),
    ("/planning/cancel", {}),
    ("/commitment", {"next_action": "a", "success_condition": "b", "timebox_minutes": 5}),
    ("/coach", {"intent": "write the report"}),
    ("/coach/cancel", {}),
    ("/finish", {}),
    ("/end", {"outcome": "met", "note": ""}),
    ("/evidence/window", {"app": "Editor", "title": "x"}),
    ("/drift/ack", {"answer": "on_task"}),
]


@pytest.fixture(scope="module")
def server(module_lab):
    return module_lab.start(env={"ANTIDRIFT_ALLOWED_HOSTS": "antidrift.test, Box.LAN"})


# -- Host allowlist ---------------------------------------------------------------------------


@pytest.mark.parametrize("host", REFUSED_HOSTS)
def test_foreign_host_is_refused_before_any_handler(server, sec, host):
    host = host.format(port=server.port)
    before = server.get("/state")
    for method, path in [("GET", "/"), ("GET", "/state"), ("POST", "/planning")]:
        status, headers, body = sec.http(server.port, method, path, headers={"Host": host})
        assert status == 403, (method, path, host, status)
        assert json.loads(body)["error"] == "This server only answers to its local address."
    status, headers, _ = sec.ws_handshake(server.port, host=host)
    assert status == 403 and "upgrade" not in headers
    assert server.get("/state") == before  # the POST /planning did not run


@pytest.mark.parametrize("host", ALLOWED_HOSTS)
def test_loopback_names_with_any_port_are_served(server, sec, host):
    status, _, body = sec.http(
        server.port, "GET", "/state", headers={"Host": host.format(port=server.port)}
    )
    assert status == 200, body


def test_allowed_hosts_setting_adds_names(server, sec):
    port = server.port
    for host in (f"antidrift.test:{port}", "box.lan", f"BOX.LAN:{port}"):
        status, _, _ = sec.http(port, "GET", "/state", headers={"Host": host})
        assert status == 200, host
    # Same origin under an added name: a page served as http://antidrift.test:port may post.
    status, _, body = sec.http(
        port,
        "POST",
        "/planning",
        headers={"Host": f"antidrift.test:{port}", "Origin": f"http://antidrift.test:{port}"},
    )
    assert status == 200, body
    status, _, _ = sec.http(port, "GET", "/state", headers={"Host": "other.lan"})
    assert status == 403


def test_refused_websocket_handshake_never_upgrades(server, sec):
    """The 403 comes from before_request: no 101, no socket, and the server goes on."""
    port = server.port
    cases = [({"Host": "evil.com"}, None)] + [(h, None) for h in sec.foreign_origins(port)]
    for headers, _ in cases:
        host = headers.pop("Host", None)
        status, resp_headers, body = sec.ws_handshake(port, host=host, headers=headers)
        assert status == 403, headers
        assert "sec-websocket-accept" not in resp_headers and "upgrade" not in resp_headers
        assert json.loads(body)["error"]
    # Control: the page's own origin, and a local client with no Origin, do upgrade.
    for headers in ({"Origin": f"http://127.0.0.1:{port}"}, {}):
        status, resp_headers, _ = sec.ws_handshake(port, headers=headers)
        assert status == 101 and resp_headers["upgrade"].lower() == "websocket"


# -- Origin / Sec-Fetch-Site --------------------------------------------------------------------


def test_foreign_origin_is_refused_on_every_state_changing_route(server, sec):
    port = server.port
    for state in ("locked", "planning", "active", "review"):
        server.reset()
        if state != "locked":
            sec.to_planning(server)
        if state in ("active", "review"):
            sec.to_active(server)
        if state == "review":
            server.post("/finish")
        before = server.get("/state")
        history = server.get("/history")
        for path, payload in STATE_CHANGING:
            for headers in sec.foreign_origins(port):
                status, _, body = sec.http(
                    port,
                    "POST",
                    path,
                    body=json.dumps(payload).encode(),
                    headers={"Content-Type": "application/json", **headers},
                )
                assert status == 403, (state, path, headers, status, body)
                assert json.loads(body)["error"].startswith("Requests from other")
        assert server.get("/state") == before, state
        assert server.get("/history") == history


def test_refused_form_post_gets_a_message_for_htmx_too(server, sec):
    status, headers, body = sec.http(
        server.port,
        "POST",
        "/planning",
        body=b"",
        headers={
            "Origin": "http://evil.com",
            "HX-Request": "true",
            "Content-Type": "application/x-www-form-urlencoded",
        },
    )
    assert status == 403 and headers["content-type"].startswith("text/html")
    assert b"Requests from other origins are refused." in body


def test_same_origin_and_plain_local_clients_are_allowed(server, sec):
    port = server.port
    server.reset()
    same = {"Origin": f"http://127.0.0.1:{port}", "Sec-Fetch-Site": "same-origin"}
    for headers in (same, {"Origin": f"http://127.0.0.1:{port}"}, {}, {"Sec-Fetch-Site": "none"}):
        status, _, body = sec.http(port, "POST", "/planning", headers=headers)
        assert status == 200, (headers, body)
        status, _, body = sec.http(port, "POST", "/planning/cancel", headers=headers)
        assert status == 200, (headers, body)


def test_refused_coach_request_spawns_no_cli_and_changes_nothing(server, sec, module_lab):
    pidfile, count = module_lab.root / "coach.pids", module_lab.root / "coach.count"
    module_lab.fake.configure(pidfile=str(pidfile), count_file=str(count))
    sec.to_planning(server)
    before = server.get("/state")
    for headers in sec.foreign_origins(server.port):
        for content_type, body in (
            ("application/json", b'{"intent": "write the report"}'),
            ("application/x-www-form-urlencoded", b"intent=write+the+report"),
            ("text/plain", b"intent=write+the+report"),  # what a cross-site <form> can send
        ):
            status, _, _ = sec.http(
                server.port,
                "POST",
                "/coach",
                body=body,
                headers={"Content-Type": content_type, **headers},
            )
            assert status == 403
    assert not pidfile.exists() and not count.exists()
    assert server.get("/state") == before
    # Control: the same request from the page's own origin starts the CLI, and it is the only
    # one that ever ran (no refused request left one starting late: one pid, not more).
    status, _, _ = sec.http(
        server.port,
        "POST",
        "/coach",
        body=b'{"intent": "write the report"}',
        headers={"Content-Type": "application/json", "Origin": server.base},
    )
    assert status == 200
    sec.wait_coach(server, "ready")
    assert len(sec.pids_in(pidfile)) == 1


# -- binding beyond loopback ---------------------------------------------------------------------


def _serve(tmp_path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "antidrift",
            "serve",
            "--data-dir",
            str(tmp_path / "d"),
            "--threads",
            "8",
            *args,
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env={"PATH": "/usr/bin:/bin", "ANTIDRIFT_WINDOW_SOURCE": "off", "HOME": str(tmp_path)},
    )


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _finish(proc: subprocess.Popen, timeout: float) -> bytes:
    """Its output once it exits; killed (group and all) if it is still running by then."""
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate(timeout=5)
    return out


def test_non_loopback_bind_is_refused_without_allow_remote(tmp_path):
    for host in ("0.0.0.0", "::", "192.168.1.10"):
        port = free_port()
        proc = _serve(tmp_path, "--host", host, "--port", str(port))
        out = _finish(proc, timeout=10)
        assert proc.returncode == 2, out
        assert b"--allow-remote" in out and b"Traceback" not in out
        assert not _listening(port)


def test_allow_remote_binds_and_warns(tmp_path):
    port = free_port()
    proc = _serve(tmp_path, "--host", "0.0.0.0", "--port", str(port), "--allow-remote")
    try:
        deadline = time.monotonic() + 15
        while not _listening(port):
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        proc.terminate()
        out = _finish(proc, timeout=15)
    warning = [ln for ln in out.splitlines() if b"anyone on that network" in ln]
    assert len(warning) == 1 and b"WARNING" in warning[0], out
    assert b"0.0.0.0" in warning[0]
