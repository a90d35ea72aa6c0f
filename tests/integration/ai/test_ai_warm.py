"""The warm claude: started while the user plans, used by one Sharpen, then replaced; gone
when planning ends or the server stops. Against a fake claude that speaks stream-json."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from antidrift import process
from antidrift.ai import (
    PROPOSAL_SCHEMA,
    Cancelled,
    CancelScope,
    ClaudeBackend,
    CLIOffline,
    CLITimeout,
    Service,
    warm,
)
from antidrift.ai.backends.claude import CLAUDE_ENV
from tests.support.procs import alive, wait_dead
from tests.support.settings import backend_from_env
from tests.support.timing import assert_within

ANSWER = {"next_action": "Outline it", "success_condition": "Outline saved", "timebox_minutes": 30}

# A claude that records each start (pid, argv, env) and, in stream-json mode, records each
# line it reads and answers it as its config file says (`/clear`: a conversation reset).
FAKE = """
here = os.path.dirname(os.path.abspath(__file__))
cfg = json.load(open(os.path.join(here, "claude.json")))
with open(os.path.join(here, "starts.jsonl"), "a") as f:
    start = {"pid": os.getpid(), "argv": sys.argv[1:], "env": dict(os.environ)}
    f.write(json.dumps(start) + "\\n")
if "--input-format" not in sys.argv:
    sys.stdin.read()
    print(json.dumps(cfg["answer"]))
    sys.exit(0)
if cfg.get("die_idle"):
    sys.exit(3)
for line in sys.stdin:
    cfg = json.load(open(os.path.join(here, "claude.json")))
    with open(os.path.join(here, "served.jsonl"), "a") as f:
        f.write(json.dumps({"pid": os.getpid(), "line": line}) + "\\n")
    if json.loads(line)["message"]["content"] == "/clear":
        print(json.dumps({"type": "conversation_reset"}), flush=True)
        print(json.dumps({"type": "result", "subtype": "success", "result": ""}), flush=True)
        continue
    if cfg.get("hang"):
        time.sleep(60)
    print(json.dumps({"type": "system", "subtype": "init"}), flush=True)
    result = {"type": "result", "subtype": "success", "is_error": bool(cfg.get("error"))}
    result["result"] = cfg.get("error") or json.dumps(cfg["answer"])
    result["structured_output"] = None if cfg.get("error") else cfg["answer"]
    print(json.dumps(result), flush=True)
"""


class FakeClaude:
    """The fake's files: its config, its starts and the prompts it served."""

    def __init__(self, write_cli, fake_bin: Path) -> None:
        self.dir = fake_bin
        self.configure()
        write_cli("claude", FAKE)

    def configure(self, **cfg: object) -> None:
        (self.dir / "claude.json").write_text(json.dumps({"answer": ANSWER, **cfg}))

    def _jsonl(self, name: str) -> list[dict]:
        path = self.dir / name
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

    def starts(self, at_least: int = 0, within: float = 10.0) -> list[dict]:
        deadline = time.monotonic() + within
        while len(found := self._jsonl("starts.jsonl")) < at_least:
            assert time.monotonic() < deadline, f"claude started {len(found)} times"
            time.sleep(0.02)
        return found

    def served(self, at_least: int = 0, within: float = 10.0) -> list[dict]:
        deadline = time.monotonic() + within
        while len(found := self._jsonl("served.jsonl")) < at_least:
            assert time.monotonic() < deadline, f"claude read {len(found)} lines"
            time.sleep(0.02)
        return found


def wait_for(condition, within: float = 10.0) -> None:
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.02)


@pytest.fixture
def claude(write_cli, fake_bin) -> FakeClaude:
    return FakeClaude(write_cli, fake_bin)


@pytest.fixture
def backend():
    made = ClaudeBackend()
    yield made
    made.keep_warm(False)


def test_planning_starts_one_claude_that_the_next_sharpen_uses(claude, backend, procs):
    service = Service(backend)
    service.keep_warm(True)
    (first,) = claude.starts(1)
    procs.track(first["pid"])
    assert alive(first["pid"])
    assert claude.served() == []  # it waits for a prompt: nothing sent yet

    proposal = service.coach("write the report")

    assert proposal.next_action == ANSWER["next_action"]
    served = claude.served(1)[0]
    assert served["pid"] == first["pid"]  # the warm one answered; no cold spawn
    prompt = json.loads(served["line"])["message"]["content"]
    assert '"write the report"' in prompt
    # The same call as a cold one, in stream-json: isolation, model, effort, schema, env.
    cold = backend.args(backend.binary(), PROPOSAL_SCHEMA)
    assert first["argv"] == warm.stream_argv(cold)[1:]
    assert {k: first["env"][k] for k in CLAUDE_ENV} == CLAUDE_ENV
    # Then it is cleared (nothing carries over to the next Sharpen) and waits again.
    cleared = claude.served(2)[1]
    assert cleared["pid"] == first["pid"]
    assert json.loads(cleared["line"])["message"]["content"] == "/clear"
    wait_for(lambda: backend.warm_slot.pid == first["pid"])
    assert len(claude.starts()) == 1

    service.keep_warm(False)
    assert wait_dead(first["pid"])


def test_sharpens_take_turns_with_clears_in_one_process(claude, backend, procs):
    service = Service(backend)
    service.keep_warm(True)
    (first,) = claude.starts(1)
    procs.track(first["pid"])
    for intent in ("one", "two", "three"):
        wait_for(lambda: backend.warm_slot.pid is not None)
        service.coach(intent)
    claude.served(6)
    contents = [json.loads(s["line"])["message"]["content"] for s in claude.served()]
    assert ['"one"' in contents[0], '"two"' in contents[2], '"three"' in contents[4]] == [True] * 3
    assert contents[1::2] == ["/clear"] * 3
    assert {s["pid"] for s in claude.served()} == {first["pid"]}
    assert backend.warm_slot.handed_out == 3


def test_a_failed_warm_call_gives_way_to_a_fresh_process(claude, backend, procs):
    claude.configure(hang=True)
    service = Service(backend)
    service.keep_warm(True)
    (first,) = claude.starts(1)
    procs.track(first["pid"])
    with pytest.raises(CLITimeout):
        Service(backend, timeout=0.5).coach("x")
    assert wait_dead(first["pid"])
    claude.configure()
    second = claude.starts(2)[1]
    procs.track(second["pid"])
    wait_for(lambda: backend.warm_slot.pid == second["pid"])
    assert service.coach("y").next_action == ANSWER["next_action"]


def test_without_planning_no_claude_waits(claude, backend):
    Service(backend).coach("cold")
    (start,) = claude.starts(1)
    assert "--input-format" not in start["argv"]  # the cold call, nothing kept
    assert backend.warm_slot.pid is None


def test_an_error_result_reads_as_the_cold_sentence(claude, backend):
    claude.configure(error="API Error: Connection refused — a firewall or proxy (ECONNREFUSED)")
    service = Service(backend)
    service.keep_warm(True)
    claude.starts(1)
    with pytest.raises(CLIOffline):
        service.coach("x")


def test_a_claude_that_died_while_waiting_gives_way_to_a_cold_call(claude, backend):
    claude.configure(die_idle=True)
    service = Service(backend)
    service.keep_warm(True)
    (first,) = claude.starts(1)
    assert wait_dead(first["pid"])
    claude.configure()
    assert service.coach("x").next_action == ANSWER["next_action"]
    assert "--input-format" not in claude.starts(2)[1]["argv"]


def test_cancel_kills_the_warm_claude_mid_answer(claude, backend, procs):
    claude.configure(hang=True)
    backend.keep_warm(True, PROPOSAL_SCHEMA)
    (first,) = claude.starts(1)
    procs.track(first["pid"])
    scope = CancelScope()
    threading.Timer(0.5, scope.cancel).start()
    started = time.monotonic()
    with pytest.raises(Cancelled):
        Service(backend).coach("x", scope=scope)
    assert_within(time.monotonic() - started, 5, "the cancel")
    assert wait_dead(first["pid"])


def test_server_shutdown_kills_the_waiting_claude(claude, backend, procs):
    backend.keep_warm(True, PROPOSAL_SCHEMA)
    (first,) = claude.starts(1)
    procs.track(first["pid"])
    assert process.kill_all_running() >= 1
    assert wait_dead(first["pid"])


def test_planning_transitions_start_and_stop_it(claude, backend, make_controller, procs):
    controller = make_controller(Service(backend))
    controller.enter_planning()
    (first,) = claude.starts(1)
    procs.track(first["pid"])
    controller.cancel_planning()
    assert wait_dead(first["pid"])
    controller.enter_planning()
    second = claude.starts(2)[1]
    procs.track(second["pid"])
    controller.start_manual_commitment("Write", "Done", 20)
    assert wait_dead(second["pid"])
    controller.finish()
    controller.end("met")
    controller.enter_planning()
    third = claude.starts(3)[2]
    procs.track(third["pid"])
    controller.shutdown()
    assert wait_dead(third["pid"])


def test_unless_asked_for_planning_starts_nothing(claude, make_controller):
    backend = backend_from_env("claude", {})  # no ANTIDRIFT_AI_WARM
    controller = make_controller(Service(backend))
    controller.enter_planning()
    assert backend.warm_slot.pid is None
    Service(backend).coach("cold")
    (start,) = claude.starts(1)
    assert "--input-format" not in start["argv"]


def test_asked_for_planning_starts_one(claude, make_controller, procs):
    backend = backend_from_env("claude", {"ANTIDRIFT_AI_WARM": "1"})
    controller = make_controller(Service(backend))
    controller.enter_planning()
    assert (pid := backend.warm_slot.pid) is not None
    procs.track(pid)
    controller.cancel_planning()
    assert wait_dead(pid)
