"""The HTTP backends' runner against a loopback server: one JSON POST, bounded in time and
size, cut short by a cancel scope, each failure a sentence (the body only in the log)."""

from __future__ import annotations

import logging
import threading
import time

import pytest

from antidrift.ai import (
    Cancelled,
    CancelScope,
    CLITimeout,
    OutputTooLarge,
    ServiceDown,
    ServiceFailed,
)
from antidrift.ai.backends import http as http_runner
from antidrift.ai.backends.http import post_json
from tests.support.http_standin import StandIn
from tests.support.real_cli import refused_port
from tests.support.timing import assert_within


class ModelServer(StandIn):
    """Answers each POST as `reply` says; with `hold`, keeps the request open until released."""

    def __init__(self) -> None:
        self.reply = (200, {"ok": True})
        self.hold = False
        self.arrived, self.released = threading.Event(), threading.Event()
        super().__init__(self._answer)

    def _answer(self, handler) -> None:
        self.arrived.set()
        if self.hold:
            self.released.wait(10)
            return
        handler.reply(*self.reply)


@pytest.fixture
def server():
    made = ModelServer()
    yield made
    made.released.set()
    made.close()


def test_the_body_goes_as_json_and_the_answer_comes_back_decoded(server):
    server.reply = (200, {"message": {"content": "hé"}})
    answer = post_json(f"{server.url}/api/chat?x=1", {"model": "m", "text": "hé"}, timeout=5,
                       headers={"Authorization": "Bearer k"}, name="ollama")  # fmt: skip
    assert answer == {"message": {"content": "hé"}}
    assert server.paths == ["/api/chat?x=1"] and server.bodies == [{"model": "m", "text": "hé"}]
    assert server.headers[0]["Authorization"] == "Bearer k"
    assert server.headers[0]["Content-Type"] == "application/json"


def test_the_timeout_bounds_the_whole_call(server):
    server.hold = True
    started = time.monotonic()
    with pytest.raises(CLITimeout) as err:
        post_json(server.url, {}, timeout=0.3)
    assert err.value.seconds == 0.3
    assert_within(time.monotonic() - started, 3, "the timeout")
    assert not server.released.is_set()


def test_a_read_that_times_out_before_the_deadline_fires_is_a_timeout_too(server, monkeypatch):
    """Under load the deadline's timer thread can be late; the socket's timeout says the same."""

    class LateTimer:
        def __init__(self, *args, **kwargs) -> None:
            self.daemon = True

        def start(self) -> None:
            pass  # never fires: only the socket's own timeout is left

        def cancel(self) -> None:
            pass

    monkeypatch.setattr(http_runner.threading, "Timer", LateTimer)
    server.hold = True
    with pytest.raises(CLITimeout):
        post_json(server.url, {}, timeout=0.3)


def test_a_cancel_from_another_thread_ends_the_call_at_once(server):
    server.hold = True
    scope = CancelScope()
    threading.Thread(target=lambda: server.arrived.wait(10) and scope.cancel()).start()
    started = time.monotonic()
    with pytest.raises(Cancelled):
        post_json(server.url, {}, timeout=30, scope=scope)
    # Not the 30 s timeout, not the server's 10 s hold.
    assert_within(time.monotonic() - started, 5, "the cancel")


def test_an_already_cancelled_scope_sends_nothing(server):
    scope = CancelScope()
    scope.cancel()
    with pytest.raises(Cancelled):
        post_json(server.url, {}, timeout=5, scope=scope)
    assert server.paths == []


def test_nothing_listening_is_service_down_naming_the_address():
    with refused_port() as port:
        url = f"http://127.0.0.1:{port}"
        with pytest.raises(ServiceDown) as err:
            post_json(url, {}, timeout=5, name="ollama")
    assert str(err.value) == f"ollama is not answering at {url} — is it running?"


def test_an_error_status_is_a_sentence_and_the_body_stays_in_the_log(server, caplog):
    server.reply = (500, {"error": "model 'secret-title' not found"})
    with caplog.at_level(logging.WARNING, "antidrift.ai"), pytest.raises(ServiceFailed) as err:
        post_json(server.url, {}, timeout=5, name="ollama")
    assert str(err.value) == "ollama answered an error (HTTP 500)"
    assert "secret-title" not in str(err.value) and "secret-title" in caplog.text


def test_an_answer_that_is_not_json_is_service_failed(server):
    server.reply = (200, b"<html>proxy login</html>")
    with pytest.raises(ServiceFailed, match="not JSON"):
        post_json(server.url, {}, timeout=5)


def test_an_answer_over_the_cap_is_dropped(server):
    server.reply = (200, {"content": "x" * 5000})
    with pytest.raises(OutputTooLarge):
        post_json(server.url, {}, timeout=5, max_bytes=4096)
    server.reply = (200, {"content": "x" * 100})
    assert post_json(server.url, {}, timeout=5, max_bytes=4096) == {"content": "x" * 100}


def test_a_redirect_is_not_followed(server):
    server.reply = (302, b"", {"Location": "http://192.0.2.1/steal"})
    with pytest.raises(ServiceFailed):
        post_json(server.url, {}, timeout=5)
    assert len(server.paths) == 1


def test_the_environments_proxy_never_sees_the_prompt(server, monkeypatch):
    with refused_port() as port:
        for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY"):
            monkeypatch.setenv(name, f"http://127.0.0.1:{port}")
        assert post_json(server.url, {"prompt": "p"}, timeout=5) == {"ok": True}
    assert server.bodies == [{"prompt": "p"}]
