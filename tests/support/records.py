"""What other machines send, as the sync tests build it: an ended commitment's record body and
another machine's running commitment as its `now` shows it (one shape for every test)."""

from __future__ import annotations

ENDED = {
    "next_action": "Write the intro",
    "success_condition": "Two pages",
    "timebox_secs": 1500,
    "started_at": "2026-03-02T09:00:00+00:00",
    "deadline": "2026-03-02T09:25:00+00:00",
    "ended_at": "2026-03-02T09:25:00+00:00",
    "outcome": "met",
}


def ended(cid: str, device_id: str | None = None, device: str | None = None, **changed) -> dict:
    """An ended commitment's record body (met, 25 minutes on 2 March), made on `device_id`
    (named `device`; both left out when None), with `changed` fields over it."""
    body: dict[str, object] = {"id": cid, **ENDED}
    if device_id is not None:
        body["device_id"] = device_id
    if device is not None:
        body["device"] = device
    return body | changed


def running_on(device: str = "desk", **changed) -> dict[str, object]:
    """Another machine's running commitment as /state's `elsewhere` (and Guard here too)
    sees it."""
    return {
        "device": device,
        "device_id": "desk0id",
        "state": "active",
        "commitment_id": "c-desk",
        "next_action": "Write the intro",
        "success_condition": "The intro is in the doc",
        "ends_at": None,
        "paused": False,
    } | changed
