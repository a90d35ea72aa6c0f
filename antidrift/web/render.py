"""One renderer for the page, the htmx responses and the websocket pushes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlencode

from jinja2 import Environment

from antidrift.bootstrap import CoachInfo
from antidrift.domain import RuntimeState
from antidrift.guard import DriftInfo
from antidrift.session import CoachStatus, Controller, Snapshot


@dataclass(frozen=True)
class Shows:
    """What one page shows: the state, its commitment, the proposal it has applied."""

    state: str | None = None
    commitment_id: str = ""
    proposal_id: str = ""

    @classmethod
    def of(cls, snap: Snapshot) -> Shows:
        coach = snap.coach
        applied = coach.proposal_id if coach and coach.status == CoachStatus.READY else ""
        return cls(snap.state.value, snap.commitment.id if snap.commitment else "", applied or "")

    def query(self) -> str:
        return urlencode({"view": self.state or "", "c": self.commitment_id, "p": self.proposal_id})


def clock_text(seconds: int) -> str:
    minutes, secs = divmod(max(0, seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


def duration_text(seconds: float) -> str:
    if 0 < seconds < 0.5:
        return "<1 s"  # not "0 s" beside a non-zero share
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def local_time(value: datetime | None) -> str:
    return value.astimezone().strftime("%H:%M") if value else ""


def local_date(value: datetime | None) -> str:
    return value.astimezone().strftime("%a %d %b, %H:%M") if value else ""


class Renderer:
    """Renders partials from snapshots; the same partial serves page, response and push."""

    def __init__(
        self,
        env: Environment,
        controller: Controller,
        coach_info: CoachInfo,
        drift_info: DriftInfo | None = None,
    ) -> None:
        self.env = env
        self.controller = controller
        self.coach_info = coach_info
        self.drift_info = drift_info or DriftInfo(False, why_off="it is not configured")
        env.filters.update(
            clock=clock_text, duration=duration_text, hhmm=local_time, when=local_date
        )

    def _render(self, template: str, **context: object) -> str:
        return self.env.get_template(template).render(**context)

    def context(self, snap: Snapshot) -> dict[str, object]:
        ctx: dict[str, object] = {
            "snap": snap,
            "state": snap.state.value,
            "commitment": snap.commitment,
            "coach": snap.coach,
            "coach_info": self.coach_info,
            "drift": snap.drift,
            "drift_info": self.drift_info,
            "evidence": snap.evidence,
            "shows": Shows.of(snap),
        }
        if snap.state is RuntimeState.LOCKED:
            ctx["history"] = self.controller.history(limit=20)
        if snap.state is RuntimeState.REVIEW and snap.commitment:
            # Summed by the store: a long commitment has tens of thousands of samples.
            evidence = self.controller.window_time(snap.commitment, snap.now)
            ctx["shares"], ctx["apps"], ctx["sample_count"] = (
                evidence.windows,
                evidence.apps,
                evidence.sample_count,
            )
        if snap.state is RuntimeState.REVIEW and snap.commitment:
            cid = snap.commitment.id
            ctx["drift_summary"] = self.controller.drift_summaries([cid]).get(cid)
            ctx["drift_episodes"] = self.controller.drift_episodes(cid)
        if snap.commitment:
            ctx["seconds_left"] = snap.commitment.seconds_left(snap.now)
        if snap.coach:
            ctx["elapsed"] = snap.coach.elapsed(snap.now)
        return ctx

    def page(self, snap: Snapshot) -> str:
        return self._render("page.html", **self.context(snap))

    def view(self, snap: Snapshot) -> str:
        return self._render("_view.html", **self.context(snap))

    def fragment(self, name: str, snap: Snapshot) -> str:
        """A single widget (`_<name>.html`); pushed, htmx swaps it by its id."""
        return self._render(f"_{name}.html", **self.context(snap))

    def error(self, message: str) -> str:
        return self._render("_message.html", message=message)
