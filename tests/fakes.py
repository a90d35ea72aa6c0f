"""Fakes for the app's ports: a clock you advance, a store in memory, a coach you gate."""

from __future__ import annotations

import contextlib
import copy
import json
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

from antidrift.ai import Cancelled, CancelScope, JudgeVerdict, Proposal
from antidrift.core import insights
from antidrift.core.device_evidence import HERE, DeviceEvidence
from antidrift.core.domain import AWAY_MARK, Commitment, Outcome, RuntimeState, WindowSample
from antidrift.core.drift_records import Rule
from antidrift.core.insights import WindowTime
from antidrift.core.order_key import spread
from antidrift.core.ports import Persisted
from antidrift.session.snapshot import CoachInfo

START = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)


class FakeClock:
    """A clock that only moves when a test says so: wall and monotonic time move together
    (time passing) unless `jump_wall` moves the wall clock alone (NTP, a changed date)."""

    def __init__(self, start: datetime = START) -> None:
        self._now = start
        self._mono = 1000.0
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def monotonic(self) -> float:
        with self._lock:
            return self._mono

    def advance(self, seconds: float | timedelta) -> datetime:
        """Move time forward; returns the new now."""
        step = seconds if isinstance(seconds, timedelta) else timedelta(seconds=seconds)
        with self._lock:
            self._now += step
            self._mono += step.total_seconds()
            return self._now

    def set(self, when: datetime) -> None:
        """Let time pass until `when` (setting it earlier moves only the wall clock)."""
        with self._lock:
            self._mono += max(0.0, (when - self._now).total_seconds())
            self._now = when

    def jump_wall(self, seconds: float) -> None:
        """The wall clock alone jumps; no time passes."""
        with self._lock:
            self._now += timedelta(seconds=seconds)


@dataclass
class FakeStore:
    """The Store protocol in memory; records every save so tests can read what was written."""

    state: RuntimeState = RuntimeState.LOCKED
    current: Commitment | None = None
    commitments: dict[str, Commitment] = field(default_factory=dict)
    sample_rows: list[tuple[str, WindowSample]] = field(default_factory=list)
    saves: list[tuple[RuntimeState, Commitment | None]] = field(default_factory=list)
    closed: bool = False
    fail_saves: BaseException | None = None
    fail_samples: BaseException | None = None  # add_sample raises it (a full disk, say)
    drift_judgements: dict = field(default_factory=dict)
    set_aside: set = field(default_factory=set)  # verdicts judged against an old next action
    drift_episodes: dict = field(default_factory=dict)
    summaries: dict = field(default_factory=dict)
    unclear: dict = field(default_factory=dict)  # commitment id -> seconds judged unclear
    drift_rules: list = field(default_factory=list)
    draft: str | None = None
    rhythm: str | None = None
    day_items: list = field(default_factory=list)  # the day's queue (core/day.DayItem), any order
    # Guard here too: this machine's evidence by followed commitment (core/device_evidence's
    # DeviceEvidence, replaced on change), and the commitments whose evidence went out.
    followed: dict = field(default_factory=dict)
    published: list = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._rule_ids = 0
        self._before: dict | None = None  # what a change found (its rollback gives it back)

    # -- a change: one transaction, as the SQLite store's (core/ports.Changes) -----------------

    _KEPT = [
        "state",
        "current",
        "commitments",
        "sample_rows",
        "saves",
        "drift_judgements",
        "set_aside",
        "drift_episodes",
        "summaries",
        "unclear",
        "drift_rules",
        "draft",
        "rhythm",
        "day_items",
        "followed",
        "published",
        "_rule_ids",
    ]

    def open_change(self) -> None:
        with self._lock:
            self._before = {name: copy.copy(getattr(self, name)) for name in self._KEPT}

    def commit_change(self) -> None:
        self._before = None

    def rollback_change(self) -> None:
        with self._lock:
            for name, value in (self._before or {}).items():
                setattr(self, name, value)
            self._before = None

    @contextlib.contextmanager
    def deferred_checkpoints(self):
        yield  # in memory: no log to copy

    def load(self) -> Persisted:
        with self._lock:
            samples = [
                s
                for cid, s in self.sample_rows
                if self.current and cid == self.current.id and (s.app, s.title) != AWAY_MARK
            ]
            return Persisted(self.state, self.current, sorted(samples, key=lambda s: s.at))

    def save(self, state: RuntimeState, commitment: Commitment | None) -> None:
        with self._lock:
            if self.fail_saves is not None:
                raise self.fail_saves
            self.saves.append((state, copy.deepcopy(commitment)))
            if commitment is not None:
                self.commitments[commitment.id] = commitment
            self.state = state
            self.current = commitment if commitment and commitment.outcome is None else None

    def load_draft(self) -> str | None:
        return self.draft

    def save_draft(self, draft: str | None) -> None:
        with self._lock:
            if self.fail_saves is not None:
                raise self.fail_saves
            self.draft = draft

    def load_rhythm(self) -> str | None:
        return self.rhythm

    # -- the day's queue (store/day_tables.py) ---------------------------------------------------

    def day_queue(self) -> list:
        with self._lock:
            queued = [i for i in self.day_items if i.started_at is None]
        return sorted(queued, key=lambda i: (i.order, i.position, i.created_at, i.id))

    def day_records(self, since) -> list:
        with self._lock:
            outcomes: dict = {}
            for c in self.commitments.values():
                if c.day_item_id and c.outcome is not None:
                    outcomes.setdefault(c.day_item_id, set()).add(str(c.outcome))
            items = [i for i in self.day_items if i.day >= since or i.started_at is None]
        records = []
        for i in items:
            said = outcomes.get(i.id, set())
            outcome = "met" if "met" in said else "missed" if "missed" in said else None
            records.append((i.day, i.started_at is not None, outcome))
        return records

    def add_day_item(self, item) -> None:
        with self._lock:
            if self.fail_saves is not None:
                raise self.fail_saves
            self.day_items = [*self.day_items, item]

    def delete_day_item(self, item_id: str) -> bool:
        with self._lock:
            kept = [i for i in self.day_items if i.id != item_id or i.started_at is not None]
            gone, self.day_items = len(kept) != len(self.day_items), kept
        return gone

    def order_day_items(self, ids) -> None:
        with self._lock:
            at = {item_id: index for index, item_id in enumerate(ids)}
            keys = spread(len(ids))
            self.day_items = [
                replace(i, position=at[i.id], order=keys[at[i.id]]) if i.id in at else i
                for i in self.day_items
            ]

    def move_day_item(self, item_id: str, order: str) -> None:
        with self._lock:
            self.day_items = [
                replace(i, order=order) if i.id == item_id else i for i in self.day_items
            ]

    def clear_day_queue(self) -> int:
        with self._lock:
            kept = [i for i in self.day_items if i.started_at is not None]
            gone, self.day_items = len(self.day_items) - len(kept), kept
        return gone

    def start_day_item(self, item_id: str, at: datetime) -> bool:
        with self._lock:
            found = [i for i in self.day_items if i.id == item_id and i.started_at is None]
            self.day_items = [
                replace(i, started_at=at) if i in found else i for i in self.day_items
            ]
        return bool(found)

    def unstart_day_item(self, item_id: str) -> None:
        with self._lock:
            self.day_items = [
                replace(i, started_at=None) if i.id == item_id else i for i in self.day_items
            ]

    def carry_day_items(self, today) -> int:
        with self._lock:
            old = [i for i in self.day_items if i.day < today and i.started_at is None]
            self.day_items = [
                replace(i, day=today, carried=True) if i in old else i for i in self.day_items
            ]
        return len(old)

    def save_rhythm(self, rhythm: str | None) -> None:
        with self._lock:
            if self.fail_saves is not None:
                raise self.fail_saves
            self.rhythm = rhythm

    def add_sample(self, commitment_id: str, sample: WindowSample) -> None:
        with self._lock:
            if self.fail_samples is not None:
                raise self.fail_samples
            self.sample_rows.append((commitment_id, sample))

    def history(self, limit: int | None = None, before: str | None = None) -> list[Commitment]:
        with self._lock:
            ended = [
                (c.ended_at, index, c)
                for index, c in enumerate(self.commitments.values())
                if c.outcome is not None
            ]
        ordered = [c for _, _, c in sorted(ended, key=lambda e: e[:2], reverse=True)]
        if before is not None:
            ids = [c.id for c in ordered]
            if before not in ids:
                raise KeyError(before)
            ordered = ordered[ids.index(before) + 1 :]
        return ordered[:limit]

    def window_time(self, commitment_id: str, until: datetime, top: int = 12) -> WindowTime:
        return insights.window_time(self._rows(commitment_id), until, top)

    def place_time(self, commitment_id: str, until: datetime) -> insights.PlaceTime:
        return insights.place_time(self._rows(commitment_id), until)

    def ended_since(self, since: datetime) -> list[Commitment]:
        return [c for c in self.history() if c.ended_at >= since]

    def met_times(self) -> list[datetime]:
        return [c.ended_at for c in self.history() if c.outcome == Outcome.MET]

    def ended_figures(self, limit: int | None = None) -> list[insights.Ended]:
        counted = [c for c in self.history() if c.outcome is not Outcome.DISCARDED]
        return [insights.ended(c) for c in counted[:limit]]

    def export_rows(self) -> list[tuple]:
        rows = []
        for c in self.history():
            count, share = self.summaries.get(c.id, (0, None))
            rows.append(
                (c.id, c.next_action, c.success_condition, c.timebox_secs)
                + (c.started_at.isoformat(), c.ended_at.isoformat(), c.outcome.value, c.note)
                + (c.extended_secs, insights.ended(c).actual_secs, count, share)
                + (c.task.title if c.task else None, c.paused_secs, c.away_secs, c.written_back)
                + (self._top_site(c.id), c.device)
            )
        return rows

    def top_sites(self, ids: list[str]) -> dict[str, str]:
        found = {cid: self._top_site(cid) for cid in ids}
        return {cid: site for cid, site in found.items() if site is not None}

    def _top_site(self, commitment_id: str) -> str | None:
        sites = Counter(s.site for s in self.samples(commitment_id) if s.site)
        return min(sites, key=lambda site: (-sites[site], site)) if sites else None

    def app_totals(self) -> dict[str, float]:
        totals: dict[str, float] = {}
        for c in self.history():
            if c.outcome is Outcome.DISCARDED:
                continue
            for share in insights.window_time(self.samples(c.id), c.ended_at).apps:
                totals[share.app] = totals.get(share.app, 0.0) + share.seconds
        return totals

    def entry(self, commitment_id: str) -> Commitment | None:
        with self._lock:
            c = self.commitments.get(commitment_id)
            return c if c is not None and c.outcome is not None else None

    def correct(self, commitment_id: str, outcome: Outcome, note: str) -> Commitment | None:
        with self._lock:
            c = self.commitments.get(commitment_id)
            if c is None or c.outcome is None:
                return None
            self.commitments[commitment_id] = replace(c, outcome=outcome, note=note)
            return self.commitments[commitment_id]

    def claim_write_back(self, commitment_id: str, action: str) -> bool:
        with self._lock:
            c = self.commitments.get(commitment_id)
            if c is None or c.written_back is not None:
                return False
            self.commitments[commitment_id] = replace(c, written_back=action)
            if self.current is not None and self.current.id == commitment_id:
                self.current = self.commitments[commitment_id]
            return True

    def release_write_back(self, commitment_id: str) -> None:
        with self._lock:
            if (c := self.commitments.get(commitment_id)) is not None:
                self.commitments[commitment_id] = replace(c, written_back=None)

    def delete(self, commitment_id: str) -> bool:
        with self._lock:
            c = self.commitments.get(commitment_id)
            if c is None or c.outcome is None:
                return False
            del self.commitments[commitment_id]
            self.summaries.pop(commitment_id, None)
            self.drift_judgements = {
                k: j for k, j in self.drift_judgements.items() if k[0] != commitment_id
            }
            self.drift_episodes = {
                k: e for k, e in self.drift_episodes.items() if k[0] != commitment_id
            }
            self.sample_rows = [(cid, s) for cid, s in self.sample_rows if cid != commitment_id]
            return True

    def samples(self, commitment_id: str) -> list[WindowSample]:
        """The windows seen (the away marks left out, as the SQLite store does)."""
        return [s for s in self._rows(commitment_id) if (s.app, s.title) != AWAY_MARK]

    def _rows(self, commitment_id: str) -> list[WindowSample]:
        with self._lock:
            found = [s for cid, s in self.sample_rows if cid == commitment_id]
        return sorted(found, key=lambda s: s.at)

    def mark_away(self, commitment_id: str, since: datetime) -> None:
        with self._lock:
            if self.fail_samples is not None:
                raise self.fail_samples
            self.sample_rows = [
                (cid, s) for cid, s in self.sample_rows if cid != commitment_id or s.at < since
            ]
            self.sample_rows.append((commitment_id, WindowSample(*AWAY_MARK, since)))

    # -- the drift guard, in memory ----------------------------------------------------------

    def save_judgement(self, commitment_id, window, judgement) -> None:
        with self._lock:
            self.drift_judgements[(commitment_id, window)] = judgement
            self.set_aside.discard((commitment_id, window))

    def judgements(self, commitment_id: str, *, current: bool = False) -> dict:
        with self._lock:
            return {
                w: j
                for (cid, w), j in self.drift_judgements.items()
                if cid == commitment_id and not (current and (cid, w) in self.set_aside)
            }

    def forget_verdicts(self, commitment_id: str) -> None:
        with self._lock:
            self.set_aside |= {
                (cid, w)
                for (cid, w), j in self.drift_judgements.items()
                if cid == commitment_id and j.source.value != "you"
            }

    def save_episode(self, commitment_id, episode) -> None:
        with self._lock:
            self.drift_episodes[(commitment_id, episode.number)] = episode

    def episodes(self, commitment_id: str) -> list:
        with self._lock:
            found = [e for (cid, _), e in self.drift_episodes.items() if cid == commitment_id]
        return sorted(found, key=lambda e: e.number)

    def episodes_of(self, ids: list[str]) -> dict:
        return {i: found for i in ids if (found := self.episodes(i))}

    def save_drift_summary(self, commitment_id, drift_count, on_task_share, unclear_secs=0.0):
        with self._lock:
            self.summaries[commitment_id] = (drift_count, on_task_share)
            self.unclear[commitment_id] = unclear_secs

    def unclear_secs(self, commitment_id: str) -> float:
        with self._lock:
            return self.unclear.get(commitment_id, 0.0)

    def rules(self) -> list:
        with self._lock:
            return list(self.drift_rules)

    def add_rule(self, app, title_contains, verdict, site=""):
        with self._lock:
            self.drift_rules = [
                r
                for r in self.drift_rules
                if (r.app.casefold(), r.title_contains.casefold(), r.site)
                != (app.casefold(), title_contains.casefold(), site)
            ]
            self._rule_ids += 1
            rule = Rule(f"{self._rule_ids:032x}", app, title_contains, verdict, site)
            self.drift_rules.append(rule)
            return rule

    def delete_rule(self, rule_id: str) -> bool:
        with self._lock:
            kept = [r for r in self.drift_rules if r.id != rule_id]
            found, self.drift_rules = len(kept) < len(self.drift_rules), kept
            return found

    def drift_summaries(self, ids: list[str]) -> dict:
        with self._lock:
            return {i: self.summaries[i] for i in ids if i in self.summaries}

    # -- Guard here too: this machine's evidence for another's commitment ---------------------

    def followed_begin(self, commitment_id: str, owner_id: str) -> None:
        with self._lock:
            self.followed.setdefault(commitment_id, DeviceEvidence(HERE, None))

    def followed_seen(self, commitment_id, samples, window) -> None:
        with self._lock:
            ev = self.followed[commitment_id]
            rows = {row[:3]: row for row in ev.windows}
            if window is not None:
                rows[window[:3]] = window
                if not window[3]:  # its time taken back: the row goes
                    del rows[window[:3]]
            self.followed[commitment_id] = replace(
                ev, windows=tuple(rows.values()), samples=samples
            )

    def followed_verdict(self, commitment_id, window, judgement) -> None:
        with self._lock:
            ev = self.followed[commitment_id]
            verdicts = {**ev.verdicts, window: judgement}
            self.followed[commitment_id] = replace(ev, verdicts=verdicts)

    def followed_set_aside(self, commitment_id: str) -> None:
        """(The fake keeps no verdict set aside: the guard's memory decides.)"""

    def followed_episode(self, commitment_id, episode) -> None:
        with self._lock:
            ev = self.followed[commitment_id]
            kept = {e.number: e for e in ev.episodes} | {episode.number: episode}
            self.followed[commitment_id] = replace(ev, episodes=tuple(kept.values()))

    def followed_publish(self, commitment_id: str) -> None:
        with self._lock:
            self.published.append(commitment_id)

    def followed_kept(self, commitment_id: str):
        with self._lock:
            return self.followed.get(commitment_id)

    def device_evidence_of(self, ids: list[str]) -> dict:
        """(No other machine here.)"""
        return {}

    def device_figures_of(self, ids: list[str]) -> dict:
        return {}

    def device_evidence_stamps(self, commitment_id: str) -> tuple:
        return ()

    def judged_secs(self, commitment_id: str) -> float:
        return 0.0

    def close(self) -> None:
        self.closed = True

    def snapshot(self) -> tuple:
        """Everything stored, for "nothing changed" assertions."""
        with self._lock:
            return (
                self.state,
                self.current,
                dict(self.commitments),
                list(self.sample_rows),
                len(self.saves),
            )


DEFAULT_PROPOSAL = Proposal("Write the intro paragraph", "The intro is in the doc", 25)
# Sharpen the day's answer when none is queued: two commitments, as the coach's CLI prints it.
DEFAULT_DAY_ANSWER = json.dumps(
    {
        "commitments": [
            {"next_action": "Draft the grant summary", "success_condition": "One page in the doc",
             "timebox_minutes": 50},
            {"next_action": "Review the first PR", "success_condition": "Comments posted",
             "timebox_minutes": 30},
        ]
    }
)  # fmt: skip


@dataclass(eq=False)
class CoachCall:
    """One call that reached the fake coach (it "started its CLI")."""

    intent: str
    scope: CancelScope | None
    track_record: tuple = ()
    gate: threading.Event = field(default_factory=threading.Event)
    finished: threading.Event = field(default_factory=threading.Event)
    outcome: str = "running"  # running | returned | raised | cancelled
    site: str | None = None  # the site the judge was sent (never a URL)
    next_action: str = ""  # what the window was judged against
    free_minutes: int | None = None  # what the calendar left free, as the coach was told


class FakeCoach:
    """A Coach whose answers are queued and whose return can be held on an event.

    gated=True: each call waits until `release()` lets it go. While it waits it honours
    its CancelScope (raises Cancelled, as the real Service does when its CLI is killed),
    unless honour_cancel=False, which models a call that returns late regardless.
    """

    name = "fake"

    def __init__(
        self,
        *results: Proposal | BaseException,
        gated: bool = False,
        honour_cancel: bool = True,
        poll: float = 0.005,
    ) -> None:
        self._results: deque[Proposal | BaseException] = deque(results)
        self.gated = gated
        self.honour_cancel = honour_cancel
        self._poll = poll
        self.calls: list[CoachCall] = []
        self._cond = threading.Condition()

    # -- configuring ------------------------------------------------------------------------

    def enqueue(self, *results: Proposal | BaseException) -> FakeCoach:
        with self._cond:
            self._results.extend(results)
        return self

    def release(self, index: int = -1) -> None:
        """Let one gated call return (the latest by default)."""
        with self._cond:
            self.calls[index].gate.set()

    def reset(self) -> None:
        """Forget calls and queued answers, ungated (one fake shared by a module's tests)."""
        self.release_all()
        with self._cond:
            self.calls.clear()
            self._results.clear()

    def release_all(self) -> None:
        with self._cond:
            self.gated = False
            for call in self.calls:
                call.gate.set()

    # -- observing --------------------------------------------------------------------------

    @property
    def intents(self) -> list[str]:
        with self._cond:
            return [c.intent for c in self.calls]

    def wait_calls(self, count: int, timeout: float = 5.0) -> list[CoachCall]:
        """Block until at least count calls have started."""
        with self._cond:
            if not self._cond.wait_for(lambda: len(self.calls) >= count, timeout):
                raise AssertionError(f"expected {count} coach calls, saw {len(self.calls)}")
            return list(self.calls)

    # -- the Coach protocol / Backend bits the page reads ------------------------------------

    def binary(self) -> str | None:
        return "/fake/bin/fake"

    def coach(
        self, intent: str, *, scope: CancelScope | None = None, track_record=(), free_minutes=None
    ) -> Proposal:
        call = CoachCall(intent, scope, tuple(track_record), free_minutes=free_minutes)
        return self._answer(call, DEFAULT_PROPOSAL)

    def ask(self, prompt: str, schema, *, scope: CancelScope | None = None) -> str:
        """Another of the coach's questions (Sharpen the day): the prompt is the call's
        `intent`; answered from the same queue (text, or an error raised)."""
        return self._answer(CoachCall(prompt, scope), DEFAULT_DAY_ANSWER)

    def _answer(self, call: CoachCall, default):
        scope = call.scope
        with self._cond:
            result = self._results.popleft() if self._results else default
            gated = self.gated
            self.calls.append(call)
            self._cond.notify_all()
        try:
            while gated and not call.gate.is_set():
                if self.honour_cancel and scope is not None and scope.cancelled:
                    raise Cancelled()
                call.gate.wait(self._poll)
            if self.honour_cancel and scope is not None and scope.cancelled:
                raise Cancelled()
            if isinstance(result, BaseException):
                call.outcome = "raised"
                raise result
            call.outcome = "returned"
            return result
        except Cancelled:
            call.outcome = "cancelled"
            raise
        finally:
            call.finished.set()


def wait_until(predicate, timeout: float = 10.0, interval: float = 0.005, message: str = ""):
    """Poll predicate until it returns something truthy; fail after timeout."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(message or f"condition not met within {timeout} s")
        time.sleep(interval)


class Recorder:
    """A listener that records a snapshot each time it is called."""

    def __init__(self, controller) -> None:
        self.controller = controller
        self.snapshots: list = []
        self._lock = threading.Lock()

    def __call__(self) -> None:
        snap = self.controller.snapshot()
        with self._lock:
            self.snapshots.append(snap)

    def __len__(self) -> int:
        with self._lock:
            return len(self.snapshots)

    @property
    def statuses(self) -> list[str | None]:
        with self._lock:
            return [s.coach.status if s.coach else None for s in self.snapshots]


class RecordingNotifier:
    """The notifier port in memory: records each (title, body) it was asked to show."""

    name = "recording"

    def __init__(self, *, fail: BaseException | None = None) -> None:
        self.shown: list[tuple[str, str]] = []
        self.fail = fail
        self._lock = threading.Lock()

    def notify(self, title: str, body: str) -> None:
        with self._lock:
            self.shown.append((title, body))
        if self.fail is not None:
            raise self.fail


@dataclass(eq=False)
class JudgeCallRecord:
    """One call that reached the fake judge."""

    app: str
    title: str | None
    scope: CancelScope | None
    gate: threading.Event = field(default_factory=threading.Event)
    finished: threading.Event = field(default_factory=threading.Event)
    outcome: str = "running"  # running | returned | raised | cancelled
    site: str | None = None  # the site the judge was sent (never a URL)
    next_action: str = ""  # what the window was judged against


class FakeJudge:
    """A Judge answering from tables by app (off task when absent); calls can be gated.

    A gated call waits for `release()` and honours its CancelScope meanwhile, as the real
    JudgeService does when its CLI is killed."""

    name = "fakejudge"
    label = "fakejudge (test model)"

    def __init__(
        self,
        on_task_apps: set[str] | None = None,
        *,
        gated: bool = False,
        unclear_apps: set[str] | None = None,
    ) -> None:
        self.on_task_apps = set(on_task_apps or ())
        self.unclear_apps = set(unclear_apps or ())
        self.gated = gated
        self.fail: BaseException | None = None
        self.calls: list[JudgeCallRecord] = []
        self._cond = threading.Condition()

    def wait_calls(self, count: int, timeout: float = 5.0) -> list[JudgeCallRecord]:
        with self._cond:
            if not self._cond.wait_for(lambda: len(self.calls) >= count, timeout):
                raise AssertionError(f"expected {count} judge calls, saw {len(self.calls)}")
            return list(self.calls)

    def release_all(self) -> None:
        with self._cond:
            self.gated = False
            for call in self.calls:
                call.gate.set()

    def judge(self, next_action, success_condition, app, title, *, site=None, scope=None):
        with self._cond:
            call = JudgeCallRecord(app, title, scope, site=site, next_action=next_action)
            self.calls.append(call)
            gated, fail = self.gated, self.fail
            self._cond.notify_all()
        try:
            while gated and not call.gate.is_set():
                if scope is not None and scope.cancelled:
                    raise Cancelled()
                call.gate.wait(0.005)
            if scope is not None and scope.cancelled:
                raise Cancelled()
            if fail is not None:
                call.outcome = "raised"
                raise fail
            call.outcome = "returned"
            if app in self.unclear_apps:
                verdict, reason = "unclear", f"cannot tell whether {app} serves it"
            elif app in self.on_task_apps:
                verdict, reason = "on_task", f"{app} serves it"
            else:
                verdict, reason = "off_task", f"{app} does not serve it"
            answer = json.dumps({"verdict": verdict, "reason": reason})
            return JudgeVerdict(verdict, reason, answer)
        except Cancelled:
            call.outcome = "cancelled"
            raise
        finally:
            call.finished.set()


def coach_info_for(coach) -> CoachInfo:
    """What the page is told of a (fake) coach, or of none."""
    if coach is None:
        return CoachInfo(None, "ANTIDRIFT_AI_BACKEND names no backend.")
    return CoachInfo(coach.name, None, coach)
