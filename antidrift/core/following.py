"""Guard here too (sync), pure: another machine's running commitment as this one follows it,
taken from that machine's `now` (as /state's `elsewhere` lists it, with its done-when), and
why following ended by itself. The aggregate holds these values (core/session.py), time away
from this machine's keyboard among them; nothing here is stored: a restart ends following."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum

from antidrift.core.domain import MAX_TEXT, Commitment
from antidrift.core.errors import IllegalTransitionError, NotFound, ValidationError

MAX_DEVICE_ID = 64  # a device id is random hex (sync/identity.py); longer is no id of ours


class WhyEnded(StrEnum):
    """Why following ended by itself (the page says it, until the next follow or plan)."""

    THERE = "ended there"  # its machine's `now` shows it no longer running
    UNSEEN = "unseen"  # its machine's `now` was not seen changing for 3 minutes


@dataclass(frozen=True)
class Followed:
    """The commitment this machine guards for another one: whose, which, and what it is."""

    device: str
    device_id: str
    commitment_id: str
    next_action: str
    success_condition: str
    since: datetime  # followed from then (this machine's clock)
    paused: bool = False  # paused there: nothing is judged here meanwhile
    # Time away from this machine's keyboard (as for a commitment running here): input
    # stopped then, and the user is away (nothing judged, no window timed); and since when
    # the user is known here (back, or a pause there began or ended): never away from before.
    away_since: datetime | None = None
    present_at: datetime | None = None

    @classmethod
    def of(cls, seen: Mapping[str, object] | None, since: datetime) -> Followed:
        """From that machine's fresh `now` (None: not seen in the last 3 minutes): 404 when
        it was not seen, 409 when no commitment runs there."""
        if seen is None:
            raise NotFound(
                "No other machine with that id was seen in the last 3 minutes: there is"
                " nothing to guard here."
            )
        device = str(seen.get("device") or "another machine")
        cid, action = seen.get("commitment_id"), seen.get("next_action")
        if seen.get("state") != "active" or not isinstance(cid, str) or not cid:
            raise IllegalTransitionError(f"No commitment runs on {device} now: nothing to guard.")
        if not _words(action):
            raise IllegalTransitionError(f"{device}'s commitment has no next action to guard.")
        done = seen.get("success_condition")
        return cls(
            device,
            str(seen["device_id"]),
            cid,
            action[:MAX_TEXT],
            done[:MAX_TEXT] if isinstance(done, str) else "",
            since,
            seen.get("paused") is True,
        )

    def gone(self, seen: Mapping[str, object] | None) -> WhyEnded | None:
        """Why following ends now, by that machine's `now` (None: it still runs there)."""
        if seen is None:
            return WhyEnded.UNSEEN
        if seen.get("state") != "active" or seen.get("commitment_id") != self.commitment_id:
            return WhyEnded.THERE
        return None

    def seen(self, seen: Mapping[str, object]) -> Followed:
        """As that machine's `now` says it now: paused or running, its words maybe changed."""
        action, done = seen.get("next_action"), seen.get("success_condition")
        return replace(
            self,
            next_action=action[:MAX_TEXT] if _words(action) else self.next_action,
            success_condition=done[:MAX_TEXT] if isinstance(done, str) else self.success_condition,
            paused=seen.get("paused") is True,
        )

    def commitment(self) -> Commitment:
        """The commitment as this machine's drift guard watches it (no teeth: the window is
        this machine's, the commitment another's)."""
        at = self.since
        return Commitment(
            self.commitment_id, self.next_action, self.success_condition, 0, at, at,
            paused_at=at if self.paused else None,
        )  # fmt: skip


@dataclass(frozen=True)
class FollowEnd:
    """Following that ended by itself: whose commitment, and why (the page's sentence)."""

    device: str
    next_action: str
    why: WhyEnded

    def sentence(self) -> str:
        if self.why is WhyEnded.UNSEEN:
            return (
                f"Stopped guarding {self.device}'s commitment here: {self.device} has not been"
                " heard from for 3 minutes."
            )
        return f"Stopped guarding {self.device}'s commitment here: it ended there."


def _words(text: object) -> bool:
    return isinstance(text, str) and bool(text.strip())


def device_id_of(value: object) -> str:
    """POST /follow's `device_id`: another machine's id as /state's `elsewhere` names it."""
    if not isinstance(value, str) or not value:
        raise ValidationError(
            "Say which machine's commitment to guard: its device_id.", "device_id"
        )
    if len(value) > MAX_DEVICE_ID or not value.isascii() or not value.isalnum():
        raise ValidationError(
            "A device_id is the id /state's elsewhere gives a machine (letters and digits).",
            "device_id",
        )
    return value
