"""How a route answers: the handler says what it did, in every form it can be told; one
function here picks the form from the request.

Three forms, decided by `asked()` alone:

* FRAGMENT: the page's htmx sent it (`HX-Request: true`); it swaps HTML into the page;
* PAGE: a browser navigating, or posting a plain form: it prefers text/html (Accept) and
  sent no JSON; it gets a whole page, or a redirect to one;
* JSON: everyone else (the command line, scripts, the tests).

A handler returns a `Reply`: a body for each form it has (zero-argument callables, so only
the one sent is built), and the error to raise when the request asks for a form it lacks
(the one error handler, antidrift/web/errors.py, then answers). A form without a body falls
back to the JSON one. A view of a blueprint made with `Blueprint` below may return a Reply;
any other return value (a page's HTML, a Response) goes out as it is.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

import flask
from flask import jsonify, request
from flask.typing import ResponseReturnValue

from antidrift.core.errors import Error
from antidrift.session.snapshot import Snapshot
from antidrift.web.requests import controller, state_of, with_left

Body = Callable[[], ResponseReturnValue]


class Form(Enum):
    FRAGMENT = "fragment"  # htmx: HTML for the element it swaps
    PAGE = "page"  # a browser: a whole page, or a redirect to one
    JSON = "json"  # API clients


def asked() -> Form:
    """The form this request asks for: the one place that reads HX-Request and Accept."""
    if request.headers.get("HX-Request") == "true":
        return Form.FRAGMENT
    if request.mimetype != "application/json" and (
        request.accept_mimetypes.best_match(["application/json", "text/html"]) == "text/html"
    ):
        return Form.PAGE
    return Form.JSON


@dataclass(frozen=True)
class Reply:
    """What a handler did, as each form tells it. A body returns what a Flask view may
    (a str is HTML, with a status in a tuple when not 200). `refused`: the error raised for a
    form with no body, the JSON one included (None: that form is an error of ours)."""

    json: Body | None = None
    fragment: Body | None = None
    page: Body | None = None
    refused: Error | None = None


def respond(reply: Reply) -> ResponseReturnValue:
    """The response to this request: the body of the form it asks for, else the JSON one,
    else the refusal raised."""
    body = {Form.FRAGMENT: reply.fragment, Form.PAGE: reply.page}.get(asked()) or reply.json
    if body is not None:
        return body()
    if reply.refused is not None:
        raise reply.refused
    raise LookupError(f"this reply has no {asked().value} form and no refusal")


def moved(snap: Snapshot | None = None, *, fragment: Body | None = None) -> Reply:
    """A move went through. htmx swaps `fragment` (else nothing: the empty answer clears the
    form's message slot; the new state reaches every page through the websocket). Others get
    the state: `snap`, the one the move itself took (under its lock), else as it is now."""

    def state() -> ResponseReturnValue:
        now = snap or controller().snapshot()
        return with_left(jsonify(state_of(now)), now)

    return Reply(json=state, fragment=fragment or _nothing)


def refusal(
    exc: Error,
    *,
    fragment: Callable[[Error], str] | None = None,
    page: Callable[[Error], str] | None = None,
) -> Reply:
    """A refusal shown in place: the fragment or page made from the error, with its status;
    any other form raises it (JSON, and whatever the handler gives no body). The bodies take
    the error: a closure over `except … as exc` would find the name gone by the time the
    body is built."""

    def shown(render: Callable[[Error], str] | None) -> Body | None:
        return None if render is None else lambda: (render(exc), exc.status)

    return Reply(fragment=shown(fragment), page=shown(page), refused=exc)


def _nothing() -> ResponseReturnValue:
    return ""


class Blueprint(flask.Blueprint):
    """A Flask blueprint whose views may return a Reply: `respond` makes it the response."""

    def add_url_rule(self, rule, endpoint=None, view_func=None, *args, **options) -> None:
        if view_func is not None:
            view_func = _answering(view_func)
        super().add_url_rule(rule, endpoint, view_func, *args, **options)


def _answering(view: Callable[..., object]) -> Callable[..., ResponseReturnValue]:
    @functools.wraps(view)
    def answering(*args: object, **kwargs: object) -> ResponseReturnValue:
        result = view(*args, **kwargs)
        return respond(result) if isinstance(result, Reply) else result  # type: ignore[return-value]

    return answering
