"""The openai backend against servers that refuse a response_format, as llama-cpp-python's
does (a loopback stand-in, tests/support/format_refusing.py): it asks again with json_object,
then with none, only when the error names the response format; what a server refused is
remembered per server URL and model; any other error stays what it is."""

from __future__ import annotations

import json
import logging
import threading
import time

import pytest

from antidrift.ai import CoachError, JudgeService, Service, ServiceFailed
from antidrift.ai.backends import Options, new_backend
from antidrift.ai.backends.openai import refusals
from antidrift.ai.judge import VERDICT_SCHEMA
from tests.support.format_refusing import FormatRefusingServer
from tests.support.timing import assert_within


@pytest.fixture
def serve():
    servers: list[FormatRefusingServer] = []

    def start(refuse: set[str | None]) -> FormatRefusingServer:
        servers.append(FormatRefusingServer(refuse))
        return servers[-1]

    yield start
    for server in servers:
        server.close()
    refusals.forget()


def judge(server: FormatRefusingServer, model: str = "") -> str:
    backend = new_backend("openai", Options(ai_url=server.url, ai_model=model))
    return JudgeService(backend, timeout=5).judge("Write", "Done", "code", "main.py").verdict


def test_a_server_that_refuses_json_schema_gets_json_object_with_the_schema(serve, caplog):
    server = serve({"json_schema"})
    with caplog.at_level(logging.INFO, logger="antidrift.ai"):
        assert judge(server) == "on_task"
    assert server.kinds() == ["json_schema", "json_object"]
    # A refusal it could ask past is no warning: said once, as information.
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert any("refuses response_format json_schema" in r.getMessage() for r in caplog.records)


def test_the_json_object_form_carries_the_schema(serve):
    server = serve({"json_schema"})
    seen: list[dict] = []
    backend = new_backend("openai", Options(ai_url=server.url))
    original = backend.request

    def recording(prompt, schema, form="json_schema"):
        seen.append(original(prompt, schema, form))
        return seen[-1]

    backend.request = recording
    JudgeService(backend, timeout=5).judge("Write", "Done", "code", "main.py")
    assert seen[1]["response_format"] == {"type": "json_object", "schema": VERDICT_SCHEMA}


def test_a_server_that_refuses_both_is_asked_with_no_response_format(serve):
    server = serve({"json_schema", "json_object"})
    assert judge(server) == "on_task"
    assert server.kinds() == ["json_schema", "json_object", None]
    assert judge(server) == "on_task"
    assert server.kinds()[3:] == [None]  # remembered: straight to what works


def test_the_form_that_worked_is_sent_first_from_then_on(serve):
    server = serve({"json_schema"})
    judge(server)
    judge(server)
    # A new backend object (the settings changed, same server and model) remembers too.
    judge(server)
    assert server.kinds() == ["json_schema", "json_object", "json_object", "json_object"]


def test_sharpen_falls_back_as_the_judge_does(serve):
    server = serve({"json_schema"})
    server.answer = json.dumps(
        {"next_action": "Draft the intro", "success_condition": "In the doc", "timebox_minutes": 25}
    )
    backend = new_backend("openai", Options(ai_url=server.url))
    assert Service(backend, timeout=5).coach("write the report").next_action == "Draft the intro"
    assert server.kinds() == ["json_schema", "json_object"]


def test_what_was_refused_is_kept_per_model_and_per_server(serve):
    server = serve({"json_schema"})
    judge(server, "small")
    judge(server, "big")  # another model on the same server: asked afresh
    judge(server, "small")
    assert server.asked == [
        ("small", "json_schema"),
        ("small", "json_object"),
        ("big", "json_schema"),
        ("big", "json_object"),
        ("small", "json_object"),
    ]
    other = serve(set())  # another server, the same model: json_schema, which it takes
    judge(other, "small")
    assert other.kinds() == ["json_schema"]


def test_an_unrelated_error_is_not_asked_past_nor_remembered(serve, caplog):
    server = serve({"json_schema"})
    server.broken = True
    with pytest.raises(CoachError, match=r"openai answered an error \(HTTP 500\)") as caught:
        judge(server)
    assert isinstance(caught.value, ServiceFailed) and caught.value.upstream == 500
    assert server.kinds() == ["json_schema"]  # one call, no second form
    # Logged as it always was: a warning with the server's words.
    warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert any("HTTP 500" in m and "KV cache is full" in m for m in warned)
    server.broken = False
    assert judge(server) == "on_task"
    assert server.kinds()[1:] == ["json_schema", "json_object"]  # the 500 taught nothing


def test_a_server_that_refuses_every_form_fails_with_its_last_error(serve):
    server = serve({"json_schema", "json_object", None})
    with pytest.raises(CoachError, match=r"HTTP 500"):
        judge(server)
    assert server.kinds() == ["json_schema", "json_object", None]
    with pytest.raises(CoachError, match=r"HTTP 500"):
        judge(server)
    assert server.kinds()[3:] == [None]


def test_asking_again_stays_within_the_calls_time(serve):
    server = serve({"json_schema"})
    server.delay = 0.35  # the refusal and the answer each take this long: 0.7 s in all
    backend = new_backend("openai", Options(ai_url=server.url))
    started = time.monotonic()
    with pytest.raises(CoachError, match=r"longer than 0.5 s"):
        JudgeService(backend, timeout=0.5).judge("Write", "Done", "code", "main.py")
    assert_within(time.monotonic() - started, 1.5, "the whole call's timeout")
    assert server.kinds() == ["json_schema", "json_object"]


def test_calls_at_once_fall_back_together_and_agree(serve):
    server = serve({"json_schema"})
    verdicts: list[str] = []
    errors: list[BaseException] = []

    def one() -> None:
        try:
            verdicts.append(judge(server))
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)

    threads = [threading.Thread(target=one) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert errors == [] and verdicts == ["on_task"] * 8
    before = len(server.kinds())
    judge(server)
    assert server.kinds()[before:] == ["json_object"]
    assert server.kinds().count("json_schema") <= 8  # each call refused at most once
