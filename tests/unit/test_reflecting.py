"""The Reflect button's controller side: review only, off the request thread, discarded
once the commitment has left review, a missing coach said in place."""

from __future__ import annotations

import threading

import pytest

from antidrift.ai import CLITimeout
from antidrift.core.domain import IllegalTransitionError
from tests.fakes import wait_until
from tests.support.walk import walk


class FakeReflector:
    """Answers queued texts (or raises queued errors); gated calls wait for release()."""

    def __init__(self, *answers, gated: bool = False) -> None:
        self.answers = list(answers)
        self.facts = []
        self.scopes = []
        self.gate = threading.Event()
        if not gated:
            self.gate.set()

    def reflect(self, facts, *, scope=None):
        self.facts.append(facts)
        self.scopes.append(scope)
        while not self.gate.wait(0.01):
            if scope is not None and scope.cancelled:
                from antidrift.ai import Cancelled

                raise Cancelled()
        answer = self.answers.pop(0) if self.answers else "Fine. Keep going."
        if isinstance(answer, BaseException):
            raise answer
        return answer


def to_review(controller, clock) -> str:
    c = walk(controller, "active", success_condition="Intro done", timebox_minutes=30)
    controller.record_window("code", "intro.md")
    clock.advance(600)
    controller.finish()
    return c.id


def reflection(controller):
    return controller.snapshot().reflection


def test_reflect_is_only_for_review(make_controller, clock):
    controller = make_controller(reflector=FakeReflector())
    with pytest.raises(IllegalTransitionError):
        controller.reflections.request()
    assert reflection(controller) is None


def test_reflect_goes_pending_then_shows_the_text_with_the_facts_sent(make_controller, clock):
    reflector = FakeReflector("You stayed in the editor. Plan 10 minutes next time.", gated=True)
    controller = make_controller(reflector=reflector)
    cid = to_review(controller, clock)
    assert reflection(controller).status == "idle"
    controller.reflections.request()
    assert reflection(controller).status == "pending"
    reflector.gate.set()
    wait_until(lambda: reflection(controller).status == "ready")
    assert reflection(controller).text.startswith("You stayed in the editor.")
    facts = reflector.facts[0]
    assert (facts.next_action, facts.planned_minutes, facts.actual_minutes) == (
        "Write the intro",
        30,
        10,
    )
    assert facts.apps == [("code", 100)] and facts.ran_out is False
    assert reflection(controller).commitment_id == cid


def test_a_result_after_the_review_ended_is_dropped(make_controller, clock):
    reflector = FakeReflector(gated=True)
    controller = make_controller(reflector=reflector)
    to_review(controller, clock)
    controller.reflections.request()
    wait_until(lambda: reflector.scopes)
    controller.end("met")
    assert reflector.scopes[0].cancelled  # the CLI is killed, not left to run
    reflector.gate.set()
    to_review(controller, clock)
    assert reflection(controller).status == "idle"


def test_a_coach_error_is_said_in_place(make_controller, clock):
    controller = make_controller(reflector=FakeReflector(CLITimeout(60)))
    to_review(controller, clock)
    controller.reflections.request()
    wait_until(lambda: reflection(controller).status == "error")
    assert "60" in reflection(controller).error


def test_without_a_coach_the_review_says_so(make_controller, clock):
    controller = make_controller(coach_unavailable="coach unavailable: no claude")
    to_review(controller, clock)
    controller.reflections.request()
    assert reflection(controller).status == "error"
    assert reflection(controller).error == "coach unavailable: no claude"
