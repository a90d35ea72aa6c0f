"""sway: the focused node of `swaymsg -t get_tree`.

Recorded with sway 1.7 (tests/fixtures/evidence/sway-get_tree*.json). The tree nests outputs,
workspaces and containers under `nodes` and `floating_nodes`; exactly one node has
`"focused": true`. A window is a node of type `con` or `floating_con`: a Wayland-native one
names its app in `app_id`, an XWayland one has `app_id` null and `window_properties.class`.
When an empty workspace has focus, the focused node is the workspace: no window. Every node
has an `id` (sway's con_id), unique for the container's life: the exact window for the teeth.

Putting a window away (the teeth): `swaymsg '[con_id=<id>] move scratchpad'` — criteria then
a command, one argument (sway 1.7, sway(5) "CRITERIA", "move scratchpad"; run here against a
real headless sway 1.7). It prints `[ { "success": true } ]` and exits 0; with no such
container it prints `[ { "success": false, "parse_error": false, "error": "No matching
node." } ]` on stdout (nothing on stderr) and exits 2. `swaymsg scratchpad show` brings the
window back.

Idle time (time away): swayidle as a child, `swayidle -w timeout 5 'echo idle' resume 'echo
back'` (swayidle 1.8 on sway 1.7, its idle protocol; run here against the real headless sway
with wtype's input): it prints `idle` five seconds after the last input and `back` at the
next. The commands are swayidle's own (it runs them with sh -c); AntiDrift runs it as an
argument list through the seam.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping

from antidrift import process
from antidrift.evidence.idle import IdleSource
from antidrift.evidence.probe import (
    Desktop,
    Fit,
    Focused,
    ProbeError,
    ToolFailed,
    ToolProbe,
    Window,
    WindowHandle,
    load_json,
    run_tool,
    socket_or_name,
    text_field,
)
from antidrift.process import warm

WINDOW_TYPES = ("con", "floating_con")


def focused_window(tree: object) -> Window | None:
    """The focused window of a get_tree answer, None when no window has focus."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        if node.get("focused") is True:
            if node.get("type") not in WINDOW_TYPES:
                return None  # a workspace or an output has focus
            props = node.get("window_properties")
            props = props if isinstance(props, dict) else {}
            app = text_field(node.get("app_id")) or text_field(props.get("class"))
            app = app or text_field(props.get("instance"))
            title = text_field(node.get("name")) or text_field(props.get("title"))
            con_id = node.get("id")
            exact = None
            if isinstance(con_id, int) and not isinstance(con_id, bool) and con_id > 0:
                exact = WindowHandle("sway", str(con_id))
            return Focused(app, title, exact) if app or title else None
        for key in ("nodes", "floating_nodes"):
            children = node.get(key)
            if isinstance(children, list):
                stack.extend(children)
    return None


def parse(text: str) -> Window | None:
    """swaymsg's JSON tree → the focused window."""
    tree = load_json(text, "swaymsg -t get_tree printed no JSON tree")
    if not isinstance(tree, dict):
        raise ProbeError("swaymsg -t get_tree printed no JSON tree")
    return focused_window(tree)


class SwayProbe(ToolProbe):
    """Asks sway over its IPC socket (SWAYSOCK) through swaymsg."""

    name = "sway"
    argv = ("swaymsg", "-t", "get_tree")
    parse = staticmethod(parse)


def put_away(window: str, env: Mapping[str, str] | None = None) -> str:
    """Move the container with this con_id (and no other) to sway's scratchpad."""
    if not window.isdigit():
        raise ProbeError("not a sway container id")
    try:
        run_tool(["swaymsg", f"[con_id={window}] move scratchpad"], env=env)
    except ToolFailed as exc:
        raise ProbeError(f"swaymsg could not move it: {_sway_error(exc)}") from None
    return "moved to the scratchpad (swaymsg scratchpad show brings it back)"


def _sway_error(failed: ToolFailed) -> str:
    """sway's own words for a failed command (its JSON reply), else the tool's first line."""
    try:
        replies = json.loads(failed.result.stdout) if failed.result else None
    except ValueError:
        replies = None
    if isinstance(replies, list):
        for reply in replies:
            if isinstance(reply, dict) and isinstance(reply.get("error"), str):
                return reply["error"][:200]
    return str(failed)


class SwayIdle:
    """swayidle kept running: idle since it said `idle` (plus its timeout), 0 since `back`.
    Until its first word it counts from its own start, so an absence under way when it
    started is counted from then."""

    name = "sway"
    TIMEOUT = 5  # seconds without input before swayidle says idle

    def __init__(
        self, env: Mapping[str, str] | None = None, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._env, self._clock = env, clock
        self._child: warm.Warm | None = None
        self._idle_at: float | None = None

    def idle_secs(self) -> float:
        child = self._child or self._start()
        for line in child.printed():
            word = line.strip()
            if word == b"idle":
                self._idle_at = self._clock()
            elif word == b"back":
                self._idle_at = None
            elif line == b"":  # its stdout closed: it ended (the compositor went, say)
                self.close()
                said = child.stderr().strip().splitlines()[-1:] or ["no reason given"]
                raise ProbeError(f"swayidle ended: {said[0][:200]}")
        return 0.0 if self._idle_at is None else self.TIMEOUT + self._clock() - self._idle_at

    def _start(self) -> warm.Warm:
        argv = ["swayidle", "-w", "timeout", str(self.TIMEOUT), "echo idle", "resume", "echo back"]
        env = dict(self._env) if self._env is not None else None
        try:
            self._child = warm.start(argv, env=env, name="swayidle", max_line=4096)
        except process.ProcessError as exc:
            raise ProbeError(str(exc)) from None
        self._idle_at = None
        return self._child

    def close(self) -> None:
        """Stop swayidle (a new sampler, or the server, is going)."""
        child, self._child = self._child, None
        if child is not None:
            child.stop()


def fits(env: Mapping[str, str], platform: str) -> Fit | None:
    """sway's socket, else its name in XDG_CURRENT_DESKTOP."""
    return socket_or_name(env, "SWAYSOCK", "sway")


DESKTOP = Desktop(
    "sway", SwayProbe, fits, "swaymsg", "swaymsg comes with sway: put it on PATH", put_away
)
IDLE = IdleSource("sway", SwayIdle, fits, "swayidle")  # time since the last input
