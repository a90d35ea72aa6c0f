"""Persist → mutate → notify, for every call that changes the state or the commitment: when the
save fails (a full disk), the controller is as it was, nobody hears of a change, and the same
call works once the disk is back."""

from __future__ import annotations

import pytest

from antidrift.core.domain import RuntimeState
from tests.fakes import Recorder
from tests.support.walk import walk

# (name, the state to walk to, the call, the state it leads to)
CHANGES = [
    ("plan", "locked", lambda c: c.enter_planning(), RuntimeState.PLANNING),
    ("cancel", "planning", lambda c: c.cancel_planning(), RuntimeState.LOCKED),
    (
        "start",
        "planning",
        lambda c: c.start_manual_commitment("Write the intro", "Intro in the doc", 10),
        RuntimeState.ACTIVE,
    ),
    ("extend while active", "active", lambda c: c.extend(5), RuntimeState.ACTIVE),
    ("extend after time ran out", "expired", lambda c: c.extend(5), RuntimeState.ACTIVE),
    ("finish", "active", lambda c: c.finish(), RuntimeState.REVIEW),
    ("end", "review", lambda c: c.end("met", ""), RuntimeState.LOCKED),
]


@pytest.mark.parametrize(
    ("state", "change", "after"), [c[1:] for c in CHANGES], ids=[c[0] for c in CHANGES]
)
def test_a_change_whose_save_fails_changes_nothing_and_notifies_nobody(
    controller, store, clock, state, change, after
):
    walk(controller, state, clock=clock)
    before = controller.snapshot()
    rec = Recorder(controller)
    controller.subscribe(rec)
    store.fail_saves = OSError("disk full")
    with pytest.raises(OSError):
        change(controller)
    now = controller.snapshot()
    assert (now.state, now.commitment, now.version) == (
        before.state,
        before.commitment,
        before.version,
    )
    assert len(rec) == 0
    store.fail_saves = None
    change(controller)
    assert controller.snapshot().state is after
    assert store.state is after and len(rec) == 1
