"""What Guard here too records on this machine for another machine's commitment, keyed by
that commitment's id: the time per window this machine saw, the verdicts that decided them
and the drift episodes (with their nudges). It is the store the following drift guard
writes to (the few store methods DriftGuard calls). Each write goes to the store too
(store/evidence_tables.py: this machine's evidence, not tied to the commitments table) in
the change that made it — the guard's judgement and the verdict it kept are one
transaction — so it outlives a restart, and following that commitment again adds to it.
What it kept goes to the sync folder as that commitment's evidence from this machine
(`publish`): when following ends, and at most once an hour (PUBLISH) while it goes on —
each time is a segment in the folder, which holds about one an hour. The record is the
store's (`evidence_body`), its figures worked out there from the rows; the commitment's own
machine shows it by device.

Time away from this machine's keyboard is no window's (as for a commitment running here):
gone away, the time timed since input stopped is taken back and the window seen last ends
there (`away`); a pause there ends the window seen last at the pause (`cut`).

Bounded: the last MAX_KEPT commitments followed are at hand in memory (an older one is read
back from the store when followed again), MAX_WINDOWS windows and verdicts and MAX_EPISODES
episodes each. Kept by the unit of work: each entry is a value replaced on change (copy on
write), so a change's memento is a copy of at most MAX_KEPT references; a rollback puts it
back as the store's transaction puts the rows back.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from antidrift.core.device_evidence import DeviceEvidence
from antidrift.core.domain import AWAY_MARK, MAX_SAMPLE_SPAN, WindowSample
from antidrift.core.drift_records import Episode, Judgement, Rule, Source, Window
from antidrift.core.following import Followed
from antidrift.core.insights import WindowTime, place_of
from antidrift.core.ports import Repository

MAX_KEPT = 8  # followed commitments whose evidence is kept (the oldest goes first)
MAX_WINDOWS = 1000  # windows timed, and verdicts kept, per commitment
MAX_EPISODES = 500
MORE = ("(more windows)", "", "(more windows)")  # where the time of windows past the cap goes
PUBLISH = timedelta(hours=1)  # while following, what changed goes to the folder this often
MAX_RECENT = 1000  # spans timed since the last input seen here (older ones are kept for sure)

Key = tuple[str, str, str]  # (app, title, place): a window's time, by where it went
Span = tuple[Key, datetime, datetime]  # a window's time timed from, until


@dataclass(frozen=True)
class KeptEvidence:
    """One followed commitment's evidence from this machine (a value: replaced, never
    changed in place)."""

    device_id: str  # the machine the commitment runs on
    device: str
    seconds: dict[Key, float] = field(default_factory=dict)
    last: WindowSample | None = None  # its time runs until the next sample
    samples: int = 0
    verdicts: dict[Window, tuple[Judgement, bool]] = field(default_factory=dict)  # (…, stale)
    episodes: dict[int, Episode] = field(default_factory=dict)
    # The time timed since the last input seen here: taken back if no one was at the
    # keyboard then (the user went away).
    recent: tuple[Span, ...] = ()

    def timed(self, until: datetime) -> dict[Key, float]:
        """Seconds per window, the last sample's counted until `until` (at most a minute)."""
        seconds = dict(self.seconds)
        if self.last is not None:
            _add(seconds, self.last, until)
        return seconds


def _add(seconds: dict[Key, float], sample: WindowSample, until: datetime) -> Span | None:
    """The sample's time until `until` added to its window's; that window and the span
    timed (None: none)."""
    span = min(max(until - sample.at, timedelta(0)), MAX_SAMPLE_SPAN)
    if (sample.app, sample.title) == AWAY_MARK or not span:
        return None
    key = (sample.app, sample.title, place_of(sample))
    if key not in seconds and len(seconds) >= MAX_WINDOWS:
        key = MORE
    seconds[key] = seconds.get(key, 0.0) + span.total_seconds()
    return key, sample.at, sample.at + span


def _recent(recent: tuple[Span, ...], span: Span | None) -> tuple[Span, ...]:
    """`span` after the spans timed since the last input (one window's time on end to end
    is one span), at most MAX_RECENT."""
    if span is None:
        return recent
    if recent and recent[-1][0] == span[0] and recent[-1][2] == span[1]:
        return (*recent[:-1], (span[0], recent[-1][1], span[2]))
    return (*recent, span)[-MAX_RECENT:]


def _kept(found: DeviceEvidence, followed: Followed) -> KeptEvidence:
    """What the store kept of a commitment guarded here before, at hand again."""
    seconds: dict[Key, float] = {}
    for app, title, place, secs in found.windows:
        seconds[(app, title, place)] = secs
    return KeptEvidence(
        followed.device_id,
        followed.device,
        seconds,
        samples=found.samples,
        verdicts={w: (j, False) for w, j in found.verdicts.items()},
        episodes={e.number: e for e in found.episodes},
    )


class FollowedEvidence:
    """The following drift guard's store: evidence in memory and in `store`, whose standing
    rules it reads."""

    def __init__(self, store: Repository) -> None:
        self._store = store
        self._kept: dict[str, KeptEvidence] = {}  # by commitment id, oldest first
        self._current: str | None = None  # the one followed now
        self._changed = False  # since it last went to the folder
        self._published: datetime | None = None  # when it last did

    # -- the unit of work keeps it -----------------------------------------------------------

    def memento(self) -> tuple:
        return dict(self._kept), self._current, self._changed, self._published

    def restore(self, memento: object) -> None:
        kept, self._current, self._changed, self._published = memento  # type: ignore[misc]
        self._kept = dict(kept)

    # -- written by Following, under the unit of work ----------------------------------------

    def begin(self, followed: Followed) -> None:
        """Following begins (or begins again): its evidence so far is kept and added to."""
        cid = followed.commitment_id
        if cid not in self._kept:
            while len(self._kept) >= MAX_KEPT:
                del self._kept[next(iter(self._kept))]
            found = self._store.followed_kept(cid)  # guarded before a restart
            kept = KeptEvidence(followed.device_id, followed.device)
            self._kept[cid] = _kept(found, followed) if found is not None else kept
        self._store.followed_begin(cid, followed.device_id)
        self._current, self._changed, self._published = cid, False, followed.since

    def close(self, at: datetime) -> None:
        """Following ended at `at`: the last window's time ends there (followed again later,
        the time between is no window's), and what was kept goes to the folder."""
        cid = self._current
        self.cut(at)
        self._current = None
        ev = self._kept.get(cid) if cid is not None else None
        if ev is None:
            return
        if ev.samples or ev.episodes:  # nothing seen here: nothing to say there
            self._store.followed_publish(cid)
        self._changed, self._published = False, at

    def cut(self, at: datetime) -> None:
        """The window seen last ends at `at` (a pause there: the paused time is no window's;
        the next window seen counts from itself)."""
        cid = self._current
        ev = self._kept.get(cid) if cid is not None else None
        if ev is None or (ev.last is None and not ev.recent):
            return
        seconds = dict(ev.seconds)
        span = _add(seconds, ev.last, at) if ev.last is not None else None
        self._kept[cid] = replace(ev, seconds=seconds, last=None, recent=())
        if span is not None:
            self._seen(cid, [span[0]])

    def present(self, at: datetime) -> None:
        """Input here at `at`: the time timed until then was the user's, never taken back."""
        cid = self._current
        ev = self._kept.get(cid) if cid is not None else None
        if ev is not None and ev.recent and ev.recent[0][2] <= at:
            self._kept[cid] = replace(ev, recent=tuple(s for s in ev.recent if s[2] > at))

    def away(self, since: datetime) -> None:
        """The user went away (input stopped at `since`): the time timed after it was no
        one's at the keyboard and is taken back, and the window seen last ends there (as at
        `close`); the next window seen, on coming back, counts from itself."""
        cid = self._current
        ev = self._kept.get(cid) if cid is not None else None
        if ev is None:
            return
        seconds, changed = dict(ev.seconds), set()
        for key, start, end in ev.recent:
            taken = (end - max(start, since)).total_seconds()
            if taken > 0 and key in seconds:
                seconds[key] -= taken
                changed.add(key)
        if ev.last is not None and (span := _add(seconds, ev.last, since)) is not None:
            changed.add(span[0])
        for key in changed:
            if seconds[key] < 0.001:  # all of its time was after input stopped
                del seconds[key]
        self._kept[cid] = replace(ev, seconds=seconds, last=None, recent=())
        if changed:
            self._seen(cid, sorted(changed))

    def publish(self, now: datetime) -> None:
        """While following: what changed goes to the folder, at most every PUBLISH (the
        commitment's machine shows it during the commitment)."""
        cid = self._current
        due = self._published is None or now - self._published >= PUBLISH
        if cid is not None and self._changed and due:
            self._store.followed_publish(cid)
            self._changed, self._published = False, now

    def add_sample(self, commitment_id: str, sample: WindowSample) -> bool:
        """A window this machine saw: the one before it is timed until it. Whether it is the
        newest seen (an older one, delivered late, is not kept)."""
        ev = self._kept.get(commitment_id)
        if ev is None or (ev.last is not None and sample.at < ev.last.at):
            return False
        seconds = dict(ev.seconds)
        span = _add(seconds, ev.last, sample.at) if ev.last is not None else None
        recent = _recent(ev.recent, span)
        taken = replace(ev, seconds=seconds, last=sample, samples=ev.samples + 1, recent=recent)
        self._kept[commitment_id] = taken
        self._seen(commitment_id, [span[0]] if span is not None else [])
        return True

    def _seen(self, commitment_id: str, keys: list[Key]) -> None:
        """How many windows were seen, and these windows' time as it now stands (none left:
        0, and the store drops the row), to the store."""
        ev = self._kept[commitment_id]
        windows = [(*key, ev.seconds.get(key, 0.0)) for key in keys]
        for window in windows or [None]:
            self._store.followed_seen(commitment_id, ev.samples, window)
        self._changed = True

    def last(self, commitment_id: str) -> WindowSample | None:
        ev = self._kept.get(commitment_id)
        return ev.last if ev is not None else None

    # -- what DriftGuard writes and reads (the Repository methods it calls) ------------------

    def rules(self) -> list[Rule]:
        return self._store.rules()

    def save_judgement(self, commitment_id: str, window: Window, judgement: Judgement) -> None:
        ev = self._kept.get(commitment_id)
        if ev is None or (window not in ev.verdicts and len(ev.verdicts) >= MAX_WINDOWS):
            return
        verdicts = {**ev.verdicts, window: (judgement, False)}
        self._kept[commitment_id] = replace(ev, verdicts=verdicts)
        self._store.followed_verdict(commitment_id, window, judgement)
        self._changed = True

    def judgements(self, commitment_id: str, *, current: bool = False) -> dict[Window, Judgement]:
        ev = self._kept.get(commitment_id)
        if ev is None:
            return {}
        return {w: j for w, (j, stale) in ev.verdicts.items() if not (current and stale)}

    def forget_verdicts(self, commitment_id: str) -> None:
        """Its next action changed there: the verdicts but the user's own no longer decide."""
        ev = self._kept.get(commitment_id)
        if ev is not None:
            kept = {w: (j, s or j.source is not Source.YOU) for w, (j, s) in ev.verdicts.items()}
            self._kept[commitment_id] = replace(ev, verdicts=kept)
            self._store.followed_set_aside(commitment_id)

    def save_episode(self, commitment_id: str, episode: Episode) -> None:
        ev = self._kept.get(commitment_id)
        if ev is None or (episode.number not in ev.episodes and len(ev.episodes) >= MAX_EPISODES):
            return
        self._kept[commitment_id] = replace(ev, episodes={**ev.episodes, episode.number: episode})
        self._store.followed_episode(commitment_id, episode)
        self._changed = True

    def episodes(self, commitment_id: str) -> list[Episode]:
        ev = self._kept.get(commitment_id)
        return sorted(ev.episodes.values(), key=lambda e: e.number) if ev is not None else []

    def window_time(self, commitment_id: str, until: datetime, top: int = 12) -> WindowTime:
        ev = self._kept.get(commitment_id)
        if ev is None:
            return WindowTime()
        windows: dict[tuple[str, str], float] = {}
        places: dict[str, float] = {}
        for (app, title, place), secs in ev.timed(until).items():
            windows[(app, title)] = windows.get((app, title), 0.0) + secs
            places[place] = places.get(place, 0.0) + secs
        tops = sorted(windows.items(), key=lambda kv: -kv[1])[:top]
        return WindowTime.of(
            [(app, title, secs) for (app, title), secs in tops],
            places.items(),
            sum(places.values()),
            ev.samples,
        )

    def save_drift_summary(
        self, commitment_id: str, drift_count: int, on_task_share: float | None, unclear_secs=0.0
    ) -> None:
        """(The figures are the store's, worked out from the rows when the evidence goes to
        the folder: store/evidence_tables.py. Nothing is kept here.)"""
