"""Slow clients (slowloris, a half-open tab): connections that never finish their request head
must not starve the page. A real `antidrift serve`, raw sockets, a real second client."""

from __future__ import annotations

import contextlib
import resource
import socket
import threading
import time
import urllib.request

import pytest

from antidrift.server.httpworker import MAX_CONNECTIONS
from tests.support.server import RunningServer
from tests.support.timing import assert_within

# The server's deadline for a request's head and body, set short by a test hook (tests/
# support/hooked_serve.py): the real one is ten seconds, and waiting for it is slow.
HEADER_TIMEOUT = 1.0


@pytest.fixture
def server(tmp_path):
    running = RunningServer(tmp_path / "data").start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def short_deadline_module_server(tmp_path_factory):
    data = tmp_path_factory.mktemp("short-deadline") / "data"
    running = RunningServer(data, header_timeout=HEADER_TIMEOUT).start()
    yield running
    running.stop()


@pytest.fixture
def short_deadline_server(short_deadline_module_server):
    """One server for the tests of the short deadline, back to locked for each."""
    short_deadline_module_server.reset()
    return short_deadline_module_server


def _half_open(port: int, count: int) -> list[socket.socket]:
    socks = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"GET /state HT")  # half a request line, and then nothing
        socks.append(s)
    return socks


def test_200_half_open_connections_do_not_stop_state_answering_another_client(server):
    socks = _half_open(server.port, 200)
    try:
        time.sleep(0.5)  # let the worker hand each of them to a thread
        began = time.monotonic()
        with urllib.request.urlopen(f"{server.base}/state", timeout=10) as resp:
            assert resp.status == 200
        assert_within(time.monotonic() - began, 1.0, "the answer")
    finally:
        for s in socks:
            s.close()


def test_a_client_that_trickles_its_head_is_closed_at_the_deadline_without_a_traceback(
    short_deadline_server,
):
    server = short_deadline_server
    (slow,) = _half_open(server.port, 1)
    with slow:
        began = time.monotonic()
        closed = threading.Event()

        def trickle() -> None:  # a byte every quarter deadline: never a deadline's silence
            with contextlib.suppress(OSError):
                while not closed.wait(HEADER_TIMEOUT / 4):
                    slow.send(b"T")

        sender = threading.Thread(target=trickle)
        sender.start()
        try:
            slow.settimeout(HEADER_TIMEOUT + 4)
            with contextlib.suppress(ConnectionResetError):
                assert slow.recv(1024) == b""  # closed by the server, with no answer
        finally:
            closed.set()
            sender.join()
        # At its deadline: not at once (a client may pause), and not later however it trickles.
        took = time.monotonic() - began
        assert took > HEADER_TIMEOUT * 0.8
        assert_within(took, HEADER_TIMEOUT * 2.5, "the close")
    assert "Traceback" not in server.log()
    assert server.get("/state")["runtime_state"] == "locked"


def test_the_connection_limit_of_trickling_clients_does_not_stop_state(tmp_path, sec):
    _enough_files(MAX_CONNECTIONS + 200)
    server = RunningServer(tmp_path / "data").start()  # the threads and limit it ships with
    socks: list[socket.socket] = []
    try:
        for _ in range(MAX_CONNECTIONS):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            s.sendall(b"GET /state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            socks.append(s)
        sec.settled_threads(sec.worker_pid(server), within=30)  # each has reached a thread
        stop = threading.Event()

        def trickle() -> None:  # a byte each, twice a second: never a whole head
            while not stop.wait(0.5):
                for s in socks:
                    with contextlib.suppress(OSError):
                        s.send(b"x")

        sender = threading.Thread(target=trickle)
        sender.start()
        try:
            began = time.monotonic()
            with urllib.request.urlopen(f"{server.base}/state", timeout=10) as resp:
                assert resp.status == 200
            assert_within(time.monotonic() - began, 1.0, "the answer")
        finally:
            stop.set()
            sender.join()
    finally:
        for s in socks:
            s.close()
        server.stop()


def _enough_files(count: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < count:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(count, hard), hard))


def test_a_body_that_never_arrives_is_a_400_not_a_thread_held_for_ever(short_deadline_server):
    server = short_deadline_server
    assert server.post("/planning")[0] == 200
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as slow:
        slow.sendall(
            b"POST /commitment HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n"
            b"next_actio"  # 10 of the 100 bytes promised
        )
        slow.settimeout(HEADER_TIMEOUT + 4)
        answer = slow.recv(4096)
    assert answer.startswith(b"HTTP/1.1 400"), answer
    assert "Traceback" not in server.log()
    assert server.get("/state")["runtime_state"] == "planning"
