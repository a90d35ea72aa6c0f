"""Walk a controller, a Flask test client or a running server to a state by its own routes.

One table of steps for every test: locked → planning → active → review (finished by hand) or
expired (the timebox ran out). Each step is the ordinary user action, so walking also checks
that the way there still works.
"""

from __future__ import annotations

from collections.abc import Callable

from antidrift.core.domain import RuntimeState
from tests.support import plans

# Ten minutes: the tests that walk a controller or a server count their deadlines from it.
TEN_MINUTES = plans.plan(timebox_minutes="10")

# The user's steps from locked to each state.
STEPS: dict[str, tuple[str, ...]] = {
    "locked": (),
    "planning": ("plan",),
    "active": ("plan", "start"),
    "review": ("plan", "start", "finish"),
}


def walk(controller, state: str | RuntimeState, *, clock=None, **plan) -> object:
    """Drive a Controller from locked to `state`; returns the commitment started (if any).

    state "expired" is review by the deadline: it needs the FakeClock (`clock=`)."""
    fields = {**TEN_MINUTES, **{k: str(v) for k, v in plan.items()}}
    started = None
    for step in _steps(state):
        if step == "plan":
            controller.enter_planning()
        elif step == "start":
            started = controller.start_manual_commitment(
                fields["next_action"], fields["success_condition"], fields["timebox_minutes"]
            )
        elif step == "finish":
            controller.finish()
        elif step == "expire":
            clock.set(started.deadline)
            assert controller.expire_if_due()
    return started


def walk_http(post: Callable[[str, dict], int], state: str | RuntimeState, **plan) -> None:
    """Drive a server from locked to `state` through its routes; `post(path, form)` returns
    the status (see `client_post` and `server_post`)."""
    fields = {**TEN_MINUTES, **{k: str(v) for k, v in plan.items()}}
    routes = {
        "plan": ("/planning", {}),
        "start": ("/commitment", fields),
        "finish": ("/finish", {}),
    }
    for step in _steps(state):
        path, form = routes[step]
        status = post(path, form)
        assert status == 200, f"POST {path} answered {status} on the way to {state}"


def client_post(client) -> Callable[[str, dict], int]:
    """`post` for walk_http over a Flask test client."""
    return lambda path, form: client.post(path, data=form).status_code


def server_post(server) -> Callable[[str, dict], int]:
    """`post` for walk_http over a RunningServer."""
    return lambda path, form: server.post(path, form)[0]


def _steps(state: str | RuntimeState) -> tuple[str, ...]:
    name = state.value if isinstance(state, RuntimeState) else state
    if name == "expired":
        return (*STEPS["active"], "expire")
    return STEPS[name]
