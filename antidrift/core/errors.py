"""The one error base: every refusal AntiDrift explains to a person is an `Error`, with the
sentence for people (`message`), the HTTP status it answers with (`status`) and whether it
was logged already where it happened (`logged`). The web layer maps it in one place
(`web/errors.py`), the command line in another (`commands.py`); no route or command
chooses a status of its own for one. tests/unit/test_errors.py holds every exception class
under antidrift/ to it (or to a short list of exceptions that are not for people, each with
its reason). The domain's refusals stand here too (bad input 400, not now 409, not there
404), so this stays a stdlib-only leaf that every wing may import."""

from __future__ import annotations

from collections.abc import Callable, Sequence


class Error(Exception):
    """A refusal with a sentence that says what to do."""

    status = 400
    logged = False

    def __init__(self, message: str = "") -> None:
        super().__init__(message)
        self.message = message

    @property
    def for_page(self) -> str:
        """The message as the page shows it (a sentence there)."""
        return self.message


class StoreError(Error):
    """The data directory or database cannot be used; the message says how to fix it."""

    status = 503


class WriteFailed(Error):
    """The database cannot save now (HTTP 503); nothing changed. Already logged."""

    status = 503
    logged = True  # read by background loops, so they do not log it again every tick

    @property
    def for_page(self) -> str:
        # JSON clients get the cause first ("the disk is full: …"); the page, a sentence.
        return self.message[:1].upper() + self.message[1:]


class OutsideChange(RuntimeError):
    """A store write outside a change: a bug in AntiDrift, not a refusal for people (every
    write belongs to the unit of work's one transaction)."""


class DomainError(Error):
    """An error whose message is written for the person using the page."""


class ValidationError(DomainError):
    """Bad input: nothing changed. `fields` names every field at fault (the first is `field`)."""

    status = 400

    def __init__(
        self, message: str, field: str | None = None, fields: tuple[str, ...] = ()
    ) -> None:
        super().__init__(message)
        self.field = field
        self.fields = fields or ((field,) if field else ())


class IllegalTransitionError(DomainError):
    """The transition does not exist from the current state: nothing changed."""

    status = 409


class NotFound(DomainError):
    """The request names something that is not there (e.g. a history entry): nothing changed."""

    status = 404


class NotPlanning(DomainError):
    """The coach was asked for outside planning (a client error, not a conflict)."""

    status = 400

    def __init__(self) -> None:
        super().__init__("The coach only helps while you are planning.")


def every_check(checks: Sequence[Callable[[], object]]) -> list[object]:
    """Each check's value; one ValidationError naming every field at fault at once."""
    values: list[object] = []
    errors: list[ValidationError] = []
    for check in checks:
        try:
            values.append(check())
        except ValidationError as exc:
            errors.append(exc)
    if errors:
        raise ValidationError(
            " ".join(e.message for e in errors),
            errors[0].field,
            tuple(e.field for e in errors if e.field),
        )
    return values
