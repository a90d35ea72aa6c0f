"""What `antidrift doctor` says about evidence: the source `auto` (or the setting) picks and
why, one sample from it, each source's tool, and what to install where none works; and where
the idle time (time away) comes from."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Mapping

from antidrift.evidence import desktops
from antidrift.evidence.activitywatch import ActivityWatchProbe
from antidrift.evidence.choose import choose, choose_idle
from antidrift.evidence.idle import close
from antidrift.evidence.probe import ProbeError

# One column for every label of the report ("activitywatch" is the longest), so each line's
# words start under the others'.
LABEL = len("activitywatch")


def doctor_lines(
    mode: str,
    env: Mapping[str, str],
    aw_url: str,
    *,
    which: Callable[[str], str | None] | None = None,
    platform: str = sys.platform,
    aw_answers: Callable[[str], bool] | None = None,
) -> list[str]:
    """Lines for people; a sample names the app only (titles stay private)."""
    answers = aw_answers or (lambda url: ActivityWatchProbe(url, timeout=1.0).answers())
    path = env.get("PATH")
    find = which or (lambda tool: shutil.which(tool, path=path))
    choice = choose(
        mode, env=env, aw_url=aw_url, which=find, platform=platform, aw_answers=answers,
        try_first=True,
    )  # fmt: skip
    lines = [
        f"ANTIDRIFT_WINDOW_SOURCE={mode}",
        f"  {'picked':{LABEL}} {choice.name}: {choice.reason}",
    ]
    if choice.probe is not None:
        try:
            window = choice.probe.active_window()
        except ProbeError as exc:
            lines.append(f"  {'sample':{LABEL}} failed: {exc}")
        else:
            lines.append(
                f"  {'sample':{LABEL}} ok: the focused app is {window[0]!r}" if window
                else f"  {'sample':{LABEL}} ok: no window has focus"
            )  # fmt: skip
    if choice.advice:
        lines.append(f"  {'to fix':{LABEL}} {choice.advice}")
    for desktop in desktops.DESKTOPS:
        found = find(desktop.tool)
        state = (
            f"{desktop.tool}: {found}" if found else f"{desktop.tool} not found: {desktop.install}"
        )
        lines.append(f"  {desktop.name:{LABEL}} {state}")
    aw_state = "answers" if answers(aw_url) else "does not answer"
    lines.append(f"  {'activitywatch':{LABEL}} aw-server {aw_state} at {aw_url} (ANTIDRIFT_AW_URL)")
    return lines + idle_lines(mode, env, aw_url, platform)


def idle_lines(mode: str, env: Mapping[str, str], aw_url: str, platform: str) -> list[str]:
    """Where the idle time comes from, and what it says now."""
    idle, why = choose_idle(mode, env=env, aw_url=aw_url, platform=platform)
    line = f"  {'idle time':{LABEL}} {why}"
    if idle is not None:
        try:
            line += f": no input for {idle.idle_secs():.0f} s"
        except ProbeError as exc:
            line += f": {exc}"
        finally:
            close(idle)  # doctor leaves nothing running
    return [line]
