"""The websocket hub: each connection knows what its page shows; pushes send only the change.

A push is a message of top-level elements that htmx's websocket extension swaps out of band
by id. After every change the hub takes one snapshot, renders each widget at most once for
all pages, and gives each connection what differs from what its page already shows:

* a different state (or commitment) → the whole view;
* the same view → only the widgets whose view model changed (coach, elapsed seconds, time
  left, evidence: antidrift/web/widgets.py; the model object is the key), never an input;
* a ready proposal the page has not applied → the three plan inputs, once, with a new socket
  URL that records it as applied (so a reconnect or a second push cannot apply it again);
* the planning draft saved anew (in this tab or another) → the plan fields that changed, each
  taken only where the page is not typing in it (a focused field keeps what is typed), and
  the draft version the page shows, moved on only when it took them all (_draft_sync.html);
* the running commitment's next action changed → its new words in the heading, and in the
  editor only while that is closed: a push never closes an editor being typed in
  (_active_renamed.html);
* /day (a socket that says `view=day`): only its proposal card and its seconds, each when
  it changed, never a view or an input (web/day_proposal.py);
* in every state, outside the view: the document title when its text changes, a fresh
  offline notice every second (its CSS delay shows it only when pushes stop; each copy a
  connection gets flips its beat, which restarts the same delay on the view's buttons), and
  a chime once when the page sees its timebox run out.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING

from antidrift.core.domain import RuntimeState
from antidrift.session.drafts import PLAN_FIELDS, Draft
from antidrift.session.snapshot import Snapshot
from antidrift.web.render import Renderer
from antidrift.web.views import Shows, Views

if TYPE_CHECKING:  # the widgets load with the first page (issue 40: the footprint)
    from antidrift.web.widgets import Widget

log = logging.getLogger("antidrift.push")

QUEUE_LIMIT = 64


@dataclass(eq=False)
class Connection:
    """One open page: what it shows, what it was sent, and its outbox."""

    shows: Shows
    sent: dict[str, Widget] = field(default_factory=dict)
    outbox: queue.Queue[str | None] = field(default_factory=lambda: queue.Queue(QUEUE_LIMIT))
    dead: bool = False
    beats: int = 0  # offline notices sent: the beat flips with each one
    draft: Draft | None = None  # the planning draft this page was last brought up to

    def beat(self) -> str:
        """The next offline notice's beat: "c" first (never what the page was served, "p",
        nor what an earlier socket's notices said once it had sent a second one), then
        "0" and "1" by turns, so every copy differs from the one before."""
        self.beats += 1
        return "c" if self.beats == 1 else str(self.beats % 2)

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

    def __init__(self, snap: Snapshot, views: Views, renderer: Renderer) -> None:
        self.snap = snap
        self.shows = Shows.of(snap)
        # Each widget's view model is its own change key (see antidrift/web/widgets.py).
        self.widgets: dict[str, Widget] = {w.name: w for w in views.widgets(snap)}
        self._views = views
        self._renderer = renderer
        self._cache: dict[str, str] = {}

    def _once(self, name: str, render: Callable[[], str]) -> str:
        if name not in self._cache:
            self._cache[name] = render()
        return self._cache[name]

    def view(self) -> str:
        widgets = tuple(self.widgets.values())
        return self._once("view", lambda: self._renderer.view(self._views.page(self.snap, widgets)))

    def widget(self, name: str, focus: bool = False) -> str:
        def render() -> str:
            return self._renderer.widget(self.widgets[name], self.widgets, focus=focus)

        return self._once(f"{name}+focus" if focus else name, render)

    def part(self, name: str, conn: Connection, focus: bool = False) -> str:
        """A widget as this connection gets it (the offline notice carries its beat)."""
        from antidrift.web.widgets import Offline

        if name != Offline.name:
            return self.widget(name, focus)
        beat = conn.beat()
        return self._once(
            f"{name}/{beat}", lambda: self._renderer.offline(self.widgets[name], beat)
        )

    @cached_property
    def day(self) -> dict[str, Widget]:
        """/day's widgets, built only when a /day page is open."""
        from antidrift.web import day_proposal

        shown = (*day_proposal.widgets(self.snap), *self._views.day_items(self.snap))
        return {w.name: w for w in shown}

    def day_part(self, name: str) -> str:
        return self._once(f"day/{name}", lambda: self._renderer.widget(self.day[name], self.day))

    def prefill(self) -> str:
        from antidrift.web.widgets import CoachWidget

        coach = self.widgets[CoachWidget.name]
        return self._once("prefill", lambda: self._renderer.prefill(coach, self.shows))

    def draft(self, seen: Draft) -> str:
        """The draft's plan fields that differ from `seen` (what a page was last brought up
        to), and its version after seen's (_draft_sync.html)."""
        draft = self.snap.draft
        fields = tuple(n for n in PLAN_FIELDS if draft.value(n) != seen.value(n))

        def render() -> str:
            context = {"draft": draft, "fields": fields, "after": seen.version}
            return self._renderer.template("_draft_sync.html", **context)

        return self._once(f"draft/{fields}/{seen.version}", render)

    def version(self, seen: Draft) -> str:
        """The draft's version for a page brought up to it (by a prefill): after seen's."""
        draft = self.snap.draft

        def render() -> str:
            context = {"draft": draft, "fields": (), "after": seen.version}
            return self._renderer.template("_draft_version.html", **context)

        return self._once(f"version/{seen.version}", render)

    def renamed(self) -> str:
        """The running commitment's new words, for a page that showed others."""
        commitment = self.snap.commitment
        return self._once(
            "renamed",
            lambda: self._renderer.template("_active_renamed.html", commitment=commitment),
        )

    def chime(self) -> str:
        return self._once("chime", self._renderer.chime)


class Hub:
    """Keeps every open page in step with the controller."""

    def __init__(self, snapshot: Callable[[], Snapshot], views: Views, renderer: Renderer) -> None:
        self._snapshot = snapshot
        self._views = views
        self._renderer = renderer
        self._lock = threading.Lock()
        self._connections: set[Connection] = set()

    def __len__(self) -> int:
        return len(self._connections)

    def _frame(self) -> _Frame:
        # Taken under the hub lock, so pushes leave in snapshot order: a slow older push can
        # never overwrite a newer one on the page.
        return _Frame(self._snapshot(), self._views, self._renderer)

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
        from antidrift.web.day_proposal import DAY_PAGE

        if conn.shows.state == DAY_PAGE:
            self._sync_day(conn, frame, first)
            return
        parts: list[str] = []
        current = frame.shows
        if first and not conn.shows.wording:  # a page that did not say: as it is now
            conn.shows = replace(conn.shows, wording=current.wording)
        same_view = (conn.shows.state, conn.shows.commitment_id) == (
            current.state,
            current.commitment_id,
        )
        if not same_view:
            parts.append(frame.view())
            parts += [frame.part(n, conn) for n, w in frame.widgets.items() if w.outside_view]
            if _ran_out_under(conn.shows, frame.snap) or _rested_under(conn.shows, frame.snap):
                parts.append(frame.chime())
            conn.shows = current
            conn.sent = dict(frame.widgets)
        else:
            if conn.shows.wording != current.wording:  # renamed while it runs
                parts.append(frame.renamed())
                conn.shows = replace(conn.shows, wording=current.wording)
            resent: set[str] = set()
            for name, model in frame.widgets.items():
                if model.parent in resent:
                    conn.sent[name] = model  # its parent's render already contains it
                elif first or conn.sent.get(name, _MISSING) != model:
                    # Changed under an open page: a widget that replaces the button pressed
                    # focuses its new one (never when a page connects: its heading keeps it).
                    focus = model.focus_on_change and not first
                    parts.append(frame.part(name, conn, focus))
                    conn.sent[name] = model
                    resent.add(name)
            proposal = current.proposal_id
            prefilled = bool(proposal and proposal != conn.shows.proposal_id)
            if prefilled:
                parts.append(frame.prefill())
                conn.shows = current
                if conn.draft is not None and frame.snap.draft is not None:
                    # The proposal is in the draft: the page that shows it has seen that version
                    # (a Start from it is no "Changed in another tab").
                    parts.append(frame.version(conn.draft))
            # The draft saved anew (in another tab): its plan fields that changed. Not with a
            # prefill (it brought the page the proposal the draft holds), and nothing when no
            # plan field changed (a saved intent: a Start is weighed by its plan, not only its
            # version, so the page's version may lag then).
            seen, draft = conn.draft, frame.snap.draft
            if (
                not prefilled
                and seen is not None
                and draft is not None
                and seen.version != draft.version
                and any(draft.value(n) != seen.value(n) for n in PLAN_FIELDS)
            ):
                parts.append(frame.draft(seen))
        conn.draft = frame.snap.draft  # a whole view, or a page that connects, shows it as is
        if parts:
            conn.put("".join(parts))

    def _sync_day(self, conn: Connection, frame: _Frame, first: bool) -> None:
        """/day: the proposal card (or only its seconds) when it changed. A page connecting
        with the key of the card it shows (its socket's `p`) is sent nothing for it."""
        from antidrift.web.day_proposal import DayProposal

        widgets = frame.day
        if first and conn.shows.proposal_id == widgets[DayProposal.name].key:
            conn.sent.update(widgets)
            return
        parts: list[str] = []
        resent: set[str] = set()
        for name, model in widgets.items():
            if model.parent not in resent and conn.sent.get(name, _MISSING) != model:
                parts.append(frame.day_part(name))
                resent.add(name)
            conn.sent[name] = model
        if parts:
            conn.put("".join(parts))


_MISSING = object()


def _ran_out_under(shows: Shows, snap: Snapshot) -> bool:
    """Whether this page showed the commitment running that has now run out."""
    c = snap.commitment
    return (
        shows.state == RuntimeState.ACTIVE.value
        and snap.state is RuntimeState.REVIEW
        and c is not None
        and shows.commitment_id == c.id
        and c.ran_out
    )


def _rested_under(shows: Shows, snap: Snapshot) -> bool:
    """Whether this page showed the break whose time has now run out ("Break over")."""
    return shows.state == "break" and snap.rested
