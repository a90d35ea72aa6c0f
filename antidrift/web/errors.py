"""Errors carry their HTTP status; one handler renders them for htmx or for JSON clients."""

from __future__ import annotations

import logging

from flask import Flask, current_app, jsonify, request
from werkzeug.exceptions import HTTPException

from antidrift.core.domain import (
    DomainError,
    IllegalTransitionError,
    NotFound,
    NotPlanning,
    ValidationError,
)
from antidrift.core.errors import WriteFailed
from antidrift.settings import SettingsError
from antidrift.web.requests import HTML, from_htmx

log = logging.getLogger("antidrift.web")


class Refused(Exception):
    """A request the security checks turned away before any handler ran."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


STATUS: dict[type[DomainError], int] = {
    ValidationError: 400,
    NotPlanning: 400,
    IllegalTransitionError: 409,
    NotFound: 404,
}

# Plain words for the HTTP errors werkzeug raises on its own.
HTTP_MESSAGES = {
    400: "The request could not be read.",
    404: "There is nothing at this address.",
    405: "This address does not take that kind of request.",
    413: "The request is too large.",
    415: "Send a form or a JSON object.",
}


def respond_error(status: int, message: str):
    """Short text for htmx (it swaps it into the form's message slot), JSON for others."""
    if from_htmx():
        html = current_app.extensions["antidrift.renderer"].error(message)
        return html, status, HTML
    return jsonify(error=message), status


def register(app: Flask) -> None:
    @app.errorhandler(DomainError)
    def domain_error(exc: DomainError):
        # By class hierarchy: a subclass (e.g. "nothing to acknowledge") keeps its parent's code.
        status = next((STATUS[t] for t in type(exc).__mro__ if t in STATUS), 400)
        return respond_error(status, exc.message)

    @app.errorhandler(Refused)
    def refused(exc: Refused):
        return respond_error(exc.status, exc.message)

    @app.errorhandler(SettingsError)
    def settings_refused(exc: SettingsError):
        # 400 a value not accepted, 409 a key the environment sets, 503 not saved.
        return respond_error(exc.status, exc.message)

    @app.errorhandler(WriteFailed)
    def write_failed(exc: WriteFailed):
        # The store logged the cause once; the state is as it was before the request. JSON
        # clients get the cause first ("the disk is full: …"); the page, a sentence.
        text = exc.message
        if from_htmx():
            text = text[:1].upper() + text[1:]
        return respond_error(503, text)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        status = exc.code or 500
        return respond_error(status, HTTP_MESSAGES.get(status, exc.description or exc.name))

    @app.errorhandler(Exception)
    def unexpected(exc: Exception):
        log.exception("unexpected error on %s %s", request.method, request.path)
        return respond_error(500, "Something went wrong inside AntiDrift; the log has details.")
