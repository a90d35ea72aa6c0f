"""Errors carry their HTTP status (antidrift.core.errors.Error); one handler renders them for
htmx or for JSON clients, and no route picks a status for one itself."""

from __future__ import annotations

import logging

from flask import Flask, current_app, jsonify, request
from werkzeug.exceptions import HTTPException

from antidrift.core.errors import Error
from antidrift.web.requests import HTML, from_htmx

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


def respond_error(status: int, message: str):
    """Short text for htmx (it swaps it into the form's message slot), JSON for others."""
    if from_htmx():
        html = current_app.extensions["antidrift.renderer"].error(message)
        return html, status, HTML
    return jsonify(error=message), status


def register(app: Flask) -> None:
    @app.errorhandler(Error)
    def error(exc: Error):
        # The one mapping: the error says its status (a subclass keeps its parent's) and its
        # sentence; nothing changed. A failed write was logged where it failed, once.
        return respond_error(exc.status, exc.for_page if from_htmx() else exc.message)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        status = exc.code or 500
        return respond_error(status, HTTP_MESSAGES.get(status, exc.description or exc.name))

    @app.errorhandler(Exception)
    def unexpected(exc: Exception):
        log.exception("unexpected error on %s %s", request.method, request.path)
        return respond_error(500, "Something went wrong inside AntiDrift; the log has details.")
