"""The backends' registry is the one table of AI backends: a backend added there (its module
and one line) is built and reported with nothing else changed, and accepted by the settings
once its word is in core/choices.py's AI_BACKENDS (the words gunicorn's arbiter reads without
loading this wing; issue 40); an HTTP backend fits the protocol (schema, timeout,
cancellation), and no other module lists the backends."""

from __future__ import annotations

import ast
import json
import threading
from pathlib import Path

import pytest

from antidrift import ai
from antidrift.ai import (
    PROPOSAL_SCHEMA,
    Cancelled,
    CancelScope,
    CLITimeout,
    Options,
    Service,
    UnknownBackend,
    backends,
    new_backend,
)
from antidrift.ai.backends import BACKENDS, BackendEntry, names
from antidrift.ai.backends.http import post_json
from antidrift.core import choices
from antidrift.server import commands
from antidrift.settings import table
from tests.support.http_standin import StandIn

PACKAGE = Path(ai.__file__).resolve().parents[1]
ANSWER = {"next_action": "Outline it", "success_condition": "Outline saved", "timebox_minutes": 25}


class LoopbackBackend:
    """How an HTTP backend is written: a model server at ai_url that takes the prompt and the
    JSON schema and answers {"content": "<the model's text>"}."""

    name = "loopback"
    env_var = "ANTIDRIFT_AI_URL"
    tuning = None

    def __init__(self, url: str) -> None:
        self.url = url

    def run(self, prompt, *, timeout, scope=None, schema=None) -> str:
        body = {"prompt": prompt, "format": dict(schema) if schema else None}
        answer = post_json(f"{self.url}/chat", body, timeout=timeout, scope=scope, name=self.name)
        return answer["content"] if isinstance(answer, dict) else ""

    def binary(self) -> str | None:
        return self.url or None

    def version(self) -> str | None:
        return None


def build_loopback(options: Options) -> LoopbackBackend:
    if not options.ai_url:
        raise UnknownBackend("ANTIDRIFT_AI_BACKEND=loopback needs ANTIDRIFT_AI_URL")
    return LoopbackBackend(options.ai_url)


@pytest.fixture
def with_loopback(monkeypatch):
    """The registry with one more line."""
    monkeypatch.setitem(BACKENDS, "loopback", BackendEntry(build_loopback))


@pytest.fixture
def model_server():
    """A loopback model server: answers each POST with ANSWER, unless told to hold it."""
    held, arrived = threading.Event(), threading.Event()
    state = {"hold": False}

    def answer(handler):
        arrived.set()
        if state["hold"]:
            held.wait(10)  # until the test lets go (or gives up)
            return
        handler.reply(200, {"content": f"Here:\n{json.dumps(ANSWER)}"})

    server = StandIn(answer)
    server.held, server.arrived, server.state = held, arrived, state
    yield server
    held.set()
    server.close()


def test_one_line_makes_a_backend_that_new_backend_builds(with_loopback, model_server):
    assert "loopback" in names()
    backend = new_backend("loopback", Options(ai_url=model_server.url))
    assert isinstance(backend, LoopbackBackend) and backend.url == model_server.url
    with pytest.raises(UnknownBackend, match="needs ANTIDRIFT_AI_URL"):
        new_backend("loopback", Options())


def test_without_its_line_the_backend_is_unknown():
    with pytest.raises(UnknownBackend, match="use one of: claude, codex, command"):
        new_backend("loopback", Options(ai_url="http://127.0.0.1:9"))


def test_an_http_backend_gets_the_schema_and_answers_a_coach(with_loopback, model_server):
    backend = new_backend("loopback", Options(ai_url=model_server.url))
    proposal = Service(backend).coach("write the outline")
    assert proposal.next_action == "Outline it"
    (sent,) = model_server.bodies
    assert sent["format"] == PROPOSAL_SCHEMA
    assert '"write the outline"' in sent["prompt"]


def test_an_http_backend_is_cut_short_by_the_scope(with_loopback, model_server):
    model_server.state["hold"] = True
    backend = new_backend("loopback", Options(ai_url=model_server.url))
    scope = CancelScope()
    threading.Thread(target=lambda: model_server.arrived.wait(10) and scope.cancel()).start()
    with pytest.raises(Cancelled):
        Service(backend, timeout=30).coach("x", scope=scope)
    assert not model_server.held.is_set()  # ended by the cancel, not by the server


def test_an_http_backend_keeps_to_the_timeout(with_loopback, model_server):
    model_server.state["hold"] = True
    backend = new_backend("loopback", Options(ai_url=model_server.url))
    with pytest.raises(CLITimeout) as err:
        Service(backend, timeout=0.3).coach("x")
    assert err.value.seconds == 0.3
    assert not model_server.held.is_set()


def test_doctor_lists_every_registered_backend(with_loopback, model_server, monkeypatch, capsys,
                                               tmp_path):  # fmt: skip
    for name, value in {
        "ANTIDRIFT_DATA_DIR": str(tmp_path),
        "ANTIDRIFT_WINDOW_SOURCE": "off",
        "ANTIDRIFT_AI_URL": model_server.url,
        "PATH": str(tmp_path),
    }.items():
        monkeypatch.setenv(name, value)
    assert commands.main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert f"  loopback {model_server.url}" in out
    for name in names():
        assert f"  {name:8} " in out


def test_the_settings_accept_every_registered_backend_and_no_other():
    """The settings' closed set (core/choices.py, read without loading the AI wing) is the
    table's, in its order."""
    assert table.BACKENDS == choices.AI_BACKENDS
    assert names() == choices.AI_BACKENDS, "add the backend's word to core/choices.py"


def test_the_settings_carry_every_option_a_backend_is_built_from(tmp_path):
    from tests.support.settings import settings_from_env

    got = settings_from_env({"ANTIDRIFT_AI_MODEL": "sonnet", "ANTIDRIFT_AI_WARM": "1"}, tmp_path)
    assert Options.of(got) == Options(ai_model="sonnet", ai_warm=True)


def _lists_of_backends(path: Path) -> list[int]:
    """Lines where a tuple, list, set or dict literal names two or more backends."""
    known = set(names())
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        items = node.keys if isinstance(node, ast.Dict) else getattr(node, "elts", None)
        if not isinstance(node, ast.Tuple | ast.List | ast.Set | ast.Dict) or items is None:
            continue
        words = {i.value for i in items if isinstance(i, ast.Constant) and i.value in known}
        if len(words) >= 2:
            found.append(node.lineno)
    return found


def test_no_module_but_the_registry_lists_the_backends():
    allowed = {Path(backends.__file__).resolve(), Path(choices.__file__).resolve()}
    offenders = {
        str(path.relative_to(PACKAGE.parent)): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.resolve() not in allowed and (lines := _lists_of_backends(path))
    }
    assert offenders == {}


def test_the_check_sees_a_list_of_backends(tmp_path):
    module = tmp_path / "m.py"
    module.write_text('for name in ("claude", "codex", "command"):\n    pass\n')
    assert _lists_of_backends(module) == [1]
