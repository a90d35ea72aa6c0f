"""The teeth's hands: put the exact off-task window away through its desktop's adapter.

Each desktop's module (evidence/) defines `put_away(id, env)` beside its probe and names it in
its registry entry (evidence/desktops.py); the probe hands out the id with the sample
(probe.Focused.exact). This runs the one for the window's desktop, in the session's
environment, and turns every failure into a sentence (CouldNotPutAway): never an error for
the commitment. The timing is the drift policy's (teeth.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from antidrift.drift.teeth import CouldNotPutAway

if TYPE_CHECKING:
    from antidrift.evidence.probe import WindowHandle


class DesktopEnforcer:
    """An `Enforcer` over the registry's adapters, in the session's environment (None: ours)."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._env = env

    def __call__(self, window: WindowHandle) -> str:
        """How the window was put away; CouldNotPutAway (a sentence) when it was not."""
        # Here, not at the top: a window to put away came from a probe, so the evidence wing
        # is loaded by then; a server whose window source is off never loads it (issue 40).
        from antidrift.evidence.desktops import desktop
        from antidrift.evidence.probe import ProbeError

        entry = desktop(window.desktop)
        if entry is None or entry.put_away is None:
            raise CouldNotPutAway(f"AntiDrift cannot put windows away on {window.desktop}")
        try:
            return entry.put_away(window.id, self._env)
        except ProbeError as exc:
            raise CouldNotPutAway(str(exc)) from None
