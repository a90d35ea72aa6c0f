"""Fixtures for the ai unit tests: a FakeBackend with queued answers instead of mocks."""

from __future__ import annotations

import pytest

from antidrift.ai import CancelScope


class FakeBackend:
    """A Backend that returns (or raises) queued answers and records every prompt."""

    name = "fake"

    def __init__(self) -> None:
        self.answers: list[str | BaseException] = []
        self.prompts: list[str] = []
        self.timeouts: list[float] = []
        self.scopes: list[CancelScope | None] = []
        self.schemas: list[object] = []

    def enqueue(self, answer: str | BaseException) -> FakeBackend:
        """Queue the next answer; an exception instance is raised instead of returned."""
        self.answers.append(answer)
        return self

    def run(
        self,
        prompt: str,
        *,
        timeout: float,
        scope: CancelScope | None = None,
        schema: object = None,
    ) -> str:
        """Record the call and hand out the next queued answer."""
        self.prompts.append(prompt)
        self.schemas.append(schema)
        self.timeouts.append(timeout)
        self.scopes.append(scope)
        if not self.answers:
            raise AssertionError("FakeBackend.run called with no answer queued")
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    def binary(self) -> str | None:
        """Fakes are always installed."""
        return "/fake/bin/fake"

    def version(self) -> str | None:
        """A fixed version."""
        return "fake 1.0"


@pytest.fixture
def fake_backend() -> FakeBackend:
    """A fresh FakeBackend with nothing queued."""
    return FakeBackend()
