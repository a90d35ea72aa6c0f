"""Every input and every CLI answer is bounded: text lengths, request bodies, CLI output,
concurrent CLI runs."""

from __future__ import annotations

import contextlib
import json
import threading
import time
import urllib.error
import urllib.request

import pytest

from antidrift.server.app import MAX_BODY


def _post_json(sec, server, path, payload, **headers):
    return sec.http(
        server.port,
        "POST",
        path,
        body=json.dumps(payload).encode(),
        headers={"Content-Type": "application/json", **headers},
    )


# -- text bounds ------------------------------------------------------------------------------


def test_intent_over_2000_characters_is_a_400_with_a_message(server, sec, module_lab):
    module_lab.fake.configure()
    sec.to_planning(server)
    status, _, body = _post_json(sec, server, "/coach", {"intent": "x" * 2001})
    assert status == 400
    assert json.loads(body)["error"] == (
        "Your rough intent is too long (2001 characters; at most 2000)."
    )
    assert server.get("/state")["coach"] == {"status": "idle"}
    status, _, body = sec.http(
        server.port,
        "POST",
        "/coach",
        body=b"intent=" + b"y" * 2001,
        headers={"Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true"},
    )
    assert status == 400 and b"at most 2000" in body
    status, _, _ = _post_json(sec, server, "/coach", {"intent": "x" * 2000})
    assert status == 200
    sec.wait_coach(server, "ready")


@pytest.mark.parametrize("field", ["next_action", "success_condition"])
def test_commitment_texts_over_500_characters_are_a_400(server, sec, field):
    sec.to_planning(server)
    plan = {"next_action": "a", "success_condition": "b", "timebox_minutes": 5}
    status, _, body = _post_json(sec, server, "/commitment", {**plan, field: "z" * 501})
    assert status == 400
    assert "at most 500" in json.loads(body)["error"]
    assert server.get("/state")["runtime_state"] == "planning"
    status, _, body = _post_json(sec, server, "/commitment", {**plan, field: "z" * 500})
    assert status == 200, body


def test_window_app_over_500_is_a_400_and_note_over_2000_is_a_400(server, sec):
    sec.to_active(server)
    status, _, body = _post_json(sec, server, "/evidence/window", {"app": "a" * 501, "title": ""})
    assert status == 400 and "at most 500" in json.loads(body)["error"]
    assert server.get("/state")["evidence"]["last"] is None
    server.post("/finish")
    status, _, body = _post_json(sec, server, "/end", {"outcome": "met", "note": "n" * 2001})
    assert status == 400 and "at most 2000" in json.loads(body)["error"]
    assert server.get("/state")["runtime_state"] == "review"


# -- request bodies ---------------------------------------------------------------------------


def test_body_over_max_content_length_is_a_413_with_a_message(server, sec):
    sec.to_planning(server)
    before = server.get("/state")
    big = json.dumps({"intent": "x" * (MAX_BODY + 10)}).encode()
    for path in ("/coach", "/planning/cancel", "/commitment", "/evidence/window"):
        status, headers, body = sec.http(
            server.port, "POST", path, body=big, headers={"Content-Type": "application/json"}
        )
        assert status == 413, (path, status, body)
        assert json.loads(body)["error"] == "The request is too large (at most 64 KiB)."
        assert "content-security-policy" in headers
    status, headers, body = sec.http(
        server.port,
        "POST",
        "/planning/cancel",
        body=b"intent=" + b"x" * (MAX_BODY + 10),
        headers={"Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true"},
    )
    assert status == 413 and b"too large" in body
    assert headers["content-type"].startswith("text/html")
    assert server.get("/state") == before  # not even the routes that never read a body ran


def test_chunked_body_over_the_cap_is_a_413(server, sec):
    """No Content-Length to check: the body is read, bounded, before the route runs."""
    sec.to_planning(server)
    before = server.get("/state")
    payload = b"x" * (MAX_BODY + 10)
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(payload), payload)
    head = (
        f"POST /planning/cancel HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
        "Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    ).encode()
    status, _, body = sec.raw(server.port, head + chunked)
    assert status == 413 and b"too large" in body
    assert server.get("/state") == before
    # A small chunked body is read and the route runs as usual.
    small = b"4\r\nabcd\r\n0\r\n\r\n"
    status, _, body = sec.raw(server.port, head + small)
    assert status == 200, body
    assert server.get("/state")["runtime_state"] == "locked"


# -- CLI output -------------------------------------------------------------------------------


def test_flood_of_25_mib_is_a_coach_error_and_memory_does_not_grow(server, sec, module_lab):
    worker = sec.worker_pid(server)
    module_lab.fake.configure()
    sec.to_planning(server)
    server.post("/coach", {"intent": "warm up"})  # threads and imports of a coach call exist
    sec.wait_coach(server, "ready")
    module_lab.write_cli(
        """
        sys.stdin.read()
        chunk = b"{" * (64 * 1024)
        for _ in range(25 * 16):
            sys.stdout.buffer.write(chunk)
        sys.stdout.flush()
        """
    )
    rss, peak = sec.status_kb(worker, "VmRSS"), sec.status_kb(worker, "VmHWM")
    try:
        status, _ = server.post("/coach", {"intent": "flood me"})
        assert status == 200
        state = sec.wait_coach(server, "error", within=20)
    finally:
        module_lab.restore_fake()
    assert state["coach"]["error"] == "claude wrote more than 1 MiB — its answer was dropped"
    grew_rss = sec.status_kb(worker, "VmRSS") - rss
    grew_peak = sec.status_kb(worker, "VmHWM") - peak
    assert grew_peak < 16 * 1024, f"peak RSS grew by {grew_peak} kB"
    assert grew_rss < 16 * 1024, f"RSS grew by {grew_rss} kB"


# -- concurrent CLI runs ----------------------------------------------------------------------


def test_hammering_coach_never_runs_more_than_two_clis_at_once(server, sec, module_lab):
    """8 threads POST /coach as fast as they can for 3 s; a watcher counts live fake CLI
    processes in /proc the whole time."""
    pidfile = module_lab.root / "hammer.pids"
    module_lab.fake.configure(delay=1.5, pidfile=str(pidfile))
    sec.to_planning(server)
    stop = threading.Event()
    sent, peak, seen = [0], [0], set()

    def hammer():
        while not stop.is_set():
            req = urllib.request.Request(
                server.base + "/coach",
                data=b'{"intent": "again"}',
                method="POST",
                headers={"Content-Type": "application/json"},
            )
            with contextlib.suppress(urllib.error.URLError, OSError):
                urllib.request.urlopen(req, timeout=10).read()
            sent[0] += 1

    def watch():
        while not stop.is_set():
            alive = sec.running(module_lab.fake.path)
            seen.update(alive)
            peak[0] = max(peak[0], len(alive))

    threads = [threading.Thread(target=hammer) for _ in range(8)] + [threading.Thread(target=watch)]
    for t in threads:
        t.start()
    time.sleep(3)
    stop.set()
    for t in threads:
        t.join(15)
    print(f"{sent[0]} requests, {len(seen)} CLIs started, at most {peak[0]} at once")
    assert sent[0] > 100 and len(seen) >= 2, (sent[0], len(seen))  # it did hammer
    assert peak[0] <= 2, f"{peak[0]} coach CLIs alive at once ({len(seen)} started)"
    # Superseded calls queued behind the two workers never run their CLI later: once planning
    # is cancelled nothing keeps running. (A worker that passed its check just before the
    # cancel may still spawn, but the scope kills that process at once.)
    server.post("/planning/cancel")
    assert all(sec.wait_dead(p) for p in seen)
    first_seen: dict[int, float] = {}
    deadline = time.monotonic() + 2.5
    while time.monotonic() < deadline:
        now = time.monotonic()
        for pid in sec.running(module_lab.fake.path):
            first_seen.setdefault(pid, now)
            assert now - first_seen[pid] < 1.0, "a stale coach call's CLI kept running"
        time.sleep(0.05)
