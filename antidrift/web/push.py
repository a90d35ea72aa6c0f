"""The websocket hub: each connection knows what its page shows; pushes send only the change.

A push is a message of top-level elements that htmx's websocket extension swaps out of band
by id. After every change the hub takes one snapshot, renders each widget at most once for
all pages, and gives each connection what differs from what its page already shows:

* a different state (or commitment) → the whole view;
* the same view → only the widgets whose content changed (coach, elapsed seconds, time
  left, evidence), never an input;
* a ready proposal the page has not applied → the three plan inputs, once, with a new socket
  URL that records it as applied (so a reconnect or a second push cannot apply it again).
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from antidrift.domain import RuntimeState
from antidrift.session import Snapshot
from antidrift.web.render import Renderer, Shows

log = logging.getLogger("antidrift.push")

QUEUE_LIMIT = 64


# Widget name → (parent widget or None, what its content depends on). A widget is re-sent
# only when its key changes; a parent's render already contains its children.
def _widgets(
    snap: Snapshot, coach_source: Callable[[], object]
) -> dict[str, tuple[str | None, object]]:
    if snap.state is RuntimeState.PLANNING and snap.coach is not None:
        coach = snap.coach
        return {
            "coach": (None, (coach.status, coach.proposal, coach.error, coach_source())),
            "coach_elapsed": ("coach", coach.elapsed(snap.now)),
        }
    if snap.state is RuntimeState.ACTIVE and snap.commitment is not None:
        last = snap.evidence.last
        return {
            "time_left": (None, snap.commitment.seconds_left(snap.now)),
            "evidence": (
                None,
                (snap.evidence.health, last.app if last else None, last.title if last else None),
            ),
            "drift_guard": (None, snap.drift),
        }
    return {}


@dataclass(eq=False)
class Connection:
    """One open page: what it shows, what it was sent, and its outbox."""

    shows: Shows
    sent: dict[str, object] = field(default_factory=dict)
    outbox: queue.Queue[str | None] = field(default_factory=lambda: queue.Queue(QUEUE_LIMIT))
    dead: bool = False

    def put(self, message: str) -> None:
        try:
            self.outbox.put_nowait(message)
        except queue.Full:
            # A page that stopped reading: drop it rather than stall the others; when it
            # reconnects it is brought up to date.
            self.dead = True

    def next(self, timeout: float) -> str | None:
        try:
            return self.outbox.get(timeout=timeout)
        except queue.Empty:
            return None


class _Frame:
    """One snapshot, with each piece rendered at most once for every connection."""

    def __init__(
        self, snap: Snapshot, renderer: Renderer, coach_source: Callable[[], object]
    ) -> None:
        self.snap = snap
        self.shows = Shows.of(snap)
        self.widgets = _widgets(snap, coach_source)
        self._renderer = renderer
        self._cache: dict[str, str] = {}

    def _once(self, name: str, render: Callable[[], str]) -> str:
        if name not in self._cache:
            self._cache[name] = render()
        return self._cache[name]

    def view(self) -> str:
        return self._once("view", lambda: self._renderer.view(self.snap))

    def widget(self, name: str) -> str:
        return self._once(name, lambda: self._renderer.fragment(name, self.snap))

    def prefill(self) -> str:
        return self._once("prefill", lambda: self._renderer.fragment("prefill", self.snap))


class Hub:
    """Keeps every open page in step with the controller."""

    def __init__(self, snapshot: Callable[[], Snapshot], renderer: Renderer) -> None:
        self._snapshot = snapshot
        self._renderer = renderer
        self._lock = threading.Lock()
        self._connections: set[Connection] = set()

    def __len__(self) -> int:
        return len(self._connections)

    def _frame(self) -> _Frame:
        # Taken under the hub lock, so pushes leave in snapshot order: a slow older push can
        # never overwrite a newer one on the page.
        info = self._renderer.coach_info

        def source() -> object:
            # Whether the CLI is on PATH shows on the coach widget: looked up only while planning.
            return (info.name, info.binary_found())

        return _Frame(self._snapshot(), self._renderer, source)

    def connect(self, shows: Shows | None) -> Connection:
        """Register a page; bring it up to date at once (a page that says nothing gets all)."""
        with self._lock:
            conn = Connection(shows or Shows())
            self._sync(conn, self._frame(), first=True)
            self._connections.add(conn)
            return conn

    def disconnect(self, conn: Connection) -> None:
        with self._lock:
            self._connections.discard(conn)

    def refresh(self) -> None:
        """Push what changed to every page (after a transition, and once a second)."""
        with self._lock:
            if not self._connections:
                return
            frame = self._frame()
            for conn in list(self._connections):
                self._sync(conn, frame)
                if conn.dead:
                    self._connections.discard(conn)

    def close_all(self) -> None:
        """Wake every connection so it can close (server shutdown)."""
        with self._lock:
            for conn in self._connections:
                conn.dead = True
                with contextlib.suppress(queue.Full):  # a full outbox wakes it anyway
                    conn.outbox.put_nowait(None)

    def _sync(self, conn: Connection, frame: _Frame, *, first: bool = False) -> None:
        parts: list[str] = []
        current = frame.shows
        same_view = (conn.shows.state, conn.shows.commitment_id) == (
            current.state,
            current.commitment_id,
        )
        if not same_view:
            parts.append(frame.view())
            conn.shows = current
            conn.sent = {name: key for name, (_, key) in frame.widgets.items()}
        else:
            resent: set[str] = set()
            for name, (parent, key) in frame.widgets.items():
                if parent in resent:
                    conn.sent[name] = key
                elif first or conn.sent.get(name, _MISSING) != key:
                    parts.append(frame.widget(name))
                    conn.sent[name] = key
                    resent.add(name)
            proposal = current.proposal_id
            if proposal and proposal != conn.shows.proposal_id:
                parts.append(frame.prefill())
                conn.shows = current
        if parts:
            conn.put("".join(parts))


_MISSING = object()
