"""One error base: every exception class under antidrift/ is an `antidrift.core.errors.Error`
(a sentence for people, an HTTP status, whether it was logged), or is listed below with the
reason it is not; the web maps an Error in one handler, the command line in one place."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import antidrift
from antidrift.ai import ServiceFailed
from antidrift.core.domain import IllegalTransitionError, NotFound, ValidationError
from antidrift.core.errors import Error, WriteFailed
from antidrift.server import commands

# Not for people, each for its reason.
NOT_DOMAIN = {
    # The subprocess seam stands below core (it imports nothing of the app): ai/, evidence/,
    # tasks/ and notify map its errors to their own sentences.
    "antidrift.process.ProcessError": "below core; mapped by the adapters above it",
    "antidrift.core.errors.OutsideChange": "a bug (a store write outside a change), not a refusal",
}


def exception_classes() -> dict[str, type[BaseException]]:
    """Every exception class defined in a module under antidrift/ (found by walking them)."""
    found: dict[str, type[BaseException]] = {}
    names = ["antidrift"] + [
        m.name for m in pkgutil.walk_packages(antidrift.__path__, "antidrift.")
    ]
    for name in names:
        if name == "antidrift.__main__":  # runs the command line when imported
            continue
        module = importlib.import_module(name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, BaseException) and cls.__module__ == name:
                found[f"{name}.{cls.__qualname__}"] = cls
    return found


def listed(cls: type[BaseException]) -> bool:
    return any(f"{c.__module__}.{c.__qualname__}" in NOT_DOMAIN for c in cls.__mro__)


def strays(classes: dict[str, type[BaseException]]) -> list[str]:
    return sorted(n for n, c in classes.items() if not issubclass(c, Error) and not listed(c))


def test_every_exception_class_under_antidrift_derives_from_the_one_error_base():
    classes = exception_classes()
    assert len(classes) > 40  # the walk found the wings' errors, not an empty package
    assert strays(classes) == [], "derive these from antidrift.core.errors.Error, or list them"
    unused = sorted(n for n in NOT_DOMAIN if n not in classes)
    assert unused == [], "a listed exception that is no longer there"


def test_every_error_answers_with_a_client_or_a_server_status():
    odd = {
        n: c.status
        for n, c in exception_classes().items()
        if issubclass(c, Error) and not (isinstance(c.status, int) and 400 <= c.status < 600)
    }
    assert odd == {}


def test_the_walk_finds_a_stray_exception_in_a_wing(monkeypatch):
    from antidrift.tasks import source

    stray = type("Stray", (ValueError,), {"__module__": source.__name__})
    monkeypatch.setattr(source, "Stray", stray, raising=False)
    below = type("Timeout", (Exception,), {"__module__": "antidrift.process"})
    monkeypatch.setattr(
        importlib.import_module("antidrift.process"), "Timeout", below, raising=False
    )
    assert strays(exception_classes()) == [
        "antidrift.process.Timeout",
        "antidrift.tasks.source.Stray",
    ]


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (ValidationError("Bad."), 400),
        (NotFound("Gone."), 404),
        (IllegalTransitionError("Not now."), 409),
        (WriteFailed("the disk is full"), 503),
    ],
)
def test_an_error_carries_its_status(error, status):
    assert error.status == status and error.message


@pytest.mark.parametrize(
    ("error", "code"),
    [(ValidationError("Bad."), 2), (WriteFailed("the disk is full"), 3)],
)
def test_the_command_line_maps_an_error_to_a_sentence_and_an_exit_code(error, code, capsys):
    def refuses(_args):
        raise error

    class Refusing:
        name, help = "refuse", "always refuses"

        def setup(self, parser):
            return refuses

    original = commands.COMMANDS
    commands.COMMANDS = (*original, Refusing())
    try:
        assert commands.main(["refuse"]) == code
    finally:
        commands.COMMANDS = original
    assert capsys.readouterr().err == f"antidrift: {error.message}\n"


@pytest.mark.parametrize("upstream", [None, 401, 500])
def test_a_model_servers_status_is_not_the_one_we_answer_with(upstream):
    # A coach failure is ours to answer with a 503, whatever the model server said (or if it
    # said nothing a status could be read from); its own status is kept beside it.
    failed = ServiceFailed("ollama", upstream)
    assert (failed.status, failed.upstream) == (503, upstream)
    assert commands.exit_code(failed) == 3
