"""Bounds on how long something took that hold on a busy machine too.

A bound such as "refused within 3 s" catches a refusal that waited on something slow; on a
machine whose CPUs other work is using, the same process can take longer just to start. So
a time over the bound is compared, once more, with the bound plus what starting Python and
importing the server takes right now: a real wait still fails, a busy machine does not."""

from __future__ import annotations

import subprocess
import sys
import time


def startup_secs() -> float:
    """How long a Python process that imports the server takes to start on this machine now."""
    began = time.monotonic()
    subprocess.run(
        [sys.executable, "-c", "import antidrift.server.serve, antidrift.web.routes, gunicorn"],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return time.monotonic() - began


def assert_within(took: float, seconds: float, what: str = "it") -> None:
    """`took` ≤ `seconds`, allowing for this machine's present slowness to start a process."""
    if took <= seconds:
        return
    allowance = startup_secs()
    assert took <= seconds + allowance, (
        f"{what} took {took:.2f} s: over {seconds} s, and over {seconds + allowance:.2f} s "
        f"allowing for {allowance:.2f} s to start Python right now"
    )
