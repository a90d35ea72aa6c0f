"""The locked and planning views' line on the user's other machines (sync): "Active on
laptop: Write the intro, ends 14:05", from /state's `elsewhere` (session/syncing.py)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from antidrift.core.isotime import from_iso
from antidrift.web.widgets import Widget


@dataclass(frozen=True)
class Running:
    """A commitment running on another machine, as the line says it."""

    device: str
    next_action: str
    ends_at: datetime | None
    paused: bool


@dataclass(frozen=True)
class ElsewhereWidget(Widget):
    """id="elsewhere": what runs on the user's other machines now (nothing: hidden)."""

    name = "elsewhere"
    running: tuple[Running, ...] = ()

    @classmethod
    def of(cls, entries: Iterable[Mapping[str, object]]) -> ElsewhereWidget:
        running = []
        for e in entries:
            if e.get("state") != "active" or not isinstance(e.get("next_action"), str):
                continue
            ends = e.get("ends_at")
            running.append(
                Running(
                    str(e.get("device") or "another machine"),
                    str(e["next_action"]),
                    from_iso(ends) if isinstance(ends, str) else None,
                    e.get("paused") is True,
                )
            )
        return cls(tuple(running))
