"""The persistence port: what the controller, the drift guard and the read model need from a
store, and the shapes it answers in. `store.SQLiteStore` is the real one; tests have a fake."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from antidrift.domain import Commitment, Outcome, RuntimeState, WindowSample
from antidrift.drift import Episode, Judgement, Window
from antidrift.insights import Ended, WindowTime
from antidrift.verdicts import Rule, Verdict

# The columns of export_rows, the same names and order as a /history row's keys.
EXPORT_COLUMNS = (
    "id",
    "next_action",
    "success_condition",
    "timebox_secs",
    "started_at",
    "ended_at",
    "outcome",
    "note",
    "extended_secs",
    "actual_secs",
    "drift_count",
    "on_task_share",
    "task",  # the title of the task it served (the CSV's one column for /history's object)
)


class StoreError(Exception):
    """The data directory or database cannot be used; the message says how to fix it."""


@dataclass
class Persisted:
    """What a restart resumes from."""

    state: RuntimeState = RuntimeState.LOCKED
    commitment: Commitment | None = None
    samples: list[WindowSample] = field(default_factory=list)


class Store(Protocol):
    """The persistence port the controller depends on."""

    def load(self) -> Persisted: ...
    def save(self, state: RuntimeState, commitment: Commitment | None) -> None: ...
    def add_sample(self, commitment_id: str, sample: WindowSample) -> None: ...
    def history(self, limit: int | None = None, before: str | None = None) -> list[Commitment]: ...
    def samples(self, commitment_id: str) -> list[WindowSample]: ...
    def save_judgement(self, commitment_id: str, window: Window, judgement: Judgement) -> None: ...
    def judgements(self, commitment_id: str) -> dict[Window, Judgement]: ...
    def save_episode(self, commitment_id: str, episode: Episode) -> None: ...
    def episodes(self, commitment_id: str) -> list[Episode]: ...
    def save_drift_summary(
        self,
        commitment_id: str,
        drift_count: int,
        on_task_share: float | None,
        unclear_secs: float = 0.0,
    ) -> None: ...
    def drift_summaries(self, ids: list[str]) -> dict[str, tuple[int, float | None]]: ...
    def unclear_secs(self, commitment_id: str) -> float: ...
    def rules(self) -> list[Rule]: ...
    def add_rule(self, app: str, title_contains: str, verdict: Verdict) -> Rule: ...
    def delete_rule(self, rule_id: int) -> bool: ...
    def window_time(self, commitment_id: str, until: datetime, top: int) -> WindowTime: ...
    def ended_figures(self, limit: int | None = None) -> list[Ended]: ...
    def export_rows(self) -> list[tuple]: ...
    def app_totals(self) -> dict[str, float]: ...
    def entry(self, commitment_id: str) -> Commitment | None: ...
    def correct(self, commitment_id: str, outcome: Outcome, note: str) -> Commitment | None: ...
    def delete(self, commitment_id: str) -> bool: ...
    def close(self) -> None: ...
