"""Errors carry their HTTP status (antidrift.core.errors.Error); one handler renders them for
htmx or for JSON clients, and no route picks a status for one itself."""

from __future__ import annotations

import logging

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from antidrift.core.errors import Error
from antidrift.web.answer import Reply, respond
from antidrift.web.requests import renderer

log = logging.getLogger("antidrift.web")


class Refused(Error):
    """A request the security checks turned away before any handler ran."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


# Plain words for the HTTP errors werkzeug raises on its own.
HTTP_MESSAGES = {
    400: "The request could not be read.",
    404: "There is nothing at this address.",
    405: "This address does not take that kind of request.",
    413: "The request is too large.",
    415: "Send a form or a JSON object.",
}


def respond_error(status: int, message: str, for_page: str | None = None):
    """Short text for htmx (it swaps it into the form's message slot: `for_page`, else the
    message), JSON for others."""
    return respond(
        Reply(
            json=lambda: (jsonify(error=message), status),
            fragment=lambda: (renderer().error(for_page or message), status),
        )
    )


def register(app: Flask) -> None:
    @app.errorhandler(Error)
    def error(exc: Error):
        # The one mapping: the error says its status (a subclass keeps its parent's) and its
        # sentence; nothing changed. A failed write was logged where it failed, once.
        return respond_error(exc.status, exc.message, exc.for_page)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        status = exc.code or 500
        return respond_error(status, HTTP_MESSAGES.get(status, exc.description or exc.name))

    @app.errorhandler(Exception)
    def unexpected(exc: Exception):
        log.exception("unexpected error on %s %s", request.method, request.path)
        return respond_error(500, "Something went wrong inside AntiDrift; the log has details.")
