"""Evidence: which window has focus, from the desktop's own tool or from ActivityWatch.

Modules: `probe` (the protocol, its error, the one way a probe runs a tool, the Desktop
entry), one module per source (each desktop's defines its `DESKTOP` entry; `activitywatch` is
the fallback), `tabs` (a browser's active tab, from ActivityWatch's browser watchers or
`firefox`'s session store), `desktops` (the registry: the one table of desktops), `choose`
(the source for ANTIDRIFT_WINDOW_SOURCE, `auto` included, and the idle source), `idle`
(what an idle source is: time since the last input; each desktop's module defines its own),
`report` (doctor) and `sampler` (the thread). Probes never import the sampler."""

from antidrift.evidence.choose import MODES, SourceChoice, choose, choose_idle, new_probe, with_tabs
from antidrift.evidence.idle import IdleProbe
from antidrift.evidence.probe import ProbeError, WindowProbe
from antidrift.evidence.sampler import WindowSampler

__all__ = [
    "MODES",
    "SourceChoice",
    "IdleProbe",
    "ProbeError",
    "WindowProbe",
    "WindowSampler",
    "choose",
    "choose_idle",
    "new_probe",
    "with_tabs",
]
