"""Evidence: which window has focus, from the desktop's own tool or from ActivityWatch.

Modules: `probe` (the protocol, its error, the one way a probe runs a tool, the Desktop
entry), one module per source (each desktop's defines its `DESKTOP` entry; `activitywatch` is
the fallback), `desktops` (the registry: the one table of desktops), `choose` (the source
for ANTIDRIFT_WINDOW_SOURCE, `auto` included), `idle` (the idle sources, one table: time since
the last input), `report` (doctor) and `sampler` (the thread).
Probes never import the sampler."""

from antidrift.evidence.choose import MODES, Choice, choose, new_probe
from antidrift.evidence.idle import IdleProbe, choose_idle
from antidrift.evidence.probe import ProbeError, WindowProbe
from antidrift.evidence.sampler import WindowSampler

__all__ = [
    "MODES",
    "Choice",
    "IdleProbe",
    "ProbeError",
    "WindowProbe",
    "WindowSampler",
    "choose",
    "choose_idle",
    "new_probe",
]
