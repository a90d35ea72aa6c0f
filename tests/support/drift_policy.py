"""Drive one pure DriftPolicy the way the guard does, with a fake clock and scripted answers."""

from __future__ import annotations

from datetime import timedelta

from antidrift.core.drift_records import Judgement, Verdict
from antidrift.drift.budget import CallBudget
from antidrift.drift.policy import DriftPolicy, DriftSettings, DriftStatus, Effects
from antidrift.drift.teeth import Teeth
from antidrift.drift.window_key import is_own_page
from tests.fakes import FakeClock


class ScriptedAnswers:
    """The answers to the pure policy's judge effects, by window; held until settled
    (auto=True settles at once). Not a Judge: the policy never calls one — the one fake
    Judge for the guard and the app is tests.fakes.FakeJudge."""

    def __init__(self, verdicts: dict[tuple[str, str], bool | str], *, auto: bool = True) -> None:
        self.verdicts = verdicts
        self.auto = auto
        self.calls = []
        self.held = []
        self.fail_with: str | None = None


class Harness:
    """Drives one DriftPolicy the way the controller does."""

    def __init__(
        self, judge: ScriptedAnswers, budget: CallBudget | None = None, **settings
    ) -> None:
        self.clock = FakeClock()
        self.next_action = settings.pop("next_action", "Write the intro")  # the page's title
        self.judge = judge
        grace = timedelta(seconds=settings.pop("grace", 60))
        cooldown = timedelta(seconds=settings.pop("cooldown", 300))
        self.settings = DriftSettings(grace, cooldown, settings.pop("max_calls", 30))
        enforce_after = settings.pop("enforce_after", None)  # seconds: this commitment has teeth
        teeth = Teeth(timedelta(seconds=enforce_after)) if enforce_after is not None else None
        self.policy = DriftPolicy(
            self.settings,
            budget or CallBudget(self.settings.max_calls),
            exclude=settings.pop("exclude", None),
            rules=tuple(settings.pop("rules", ())),
            teeth=teeth,
        )
        self.nudges = []
        self.put_aways = []
        self.persisted_episodes = []
        self.persisted_judgements = []

    @property
    def now(self):
        return self.clock.now()

    def apply(self, effects: Effects) -> None:
        if effects.nudge:
            self.nudges.append(effects.nudge)
        if effects.put_away:
            self.put_aways.append(effects.put_away)
        self.persisted_episodes.extend(effects.episodes)
        self.persisted_judgements.extend(effects.judgements)
        if effects.judge:
            self.judge.calls.append(effects.judge)
            if self.judge.auto:
                self.settle(effects.judge)
            else:
                self.judge.held.append(effects.judge)

    def settle(self, call, error: str | None = None) -> None:
        error = error or self.judge.fail_with
        verdict = None
        if error is None:
            said = self.judge.verdicts[(call.window.app, call.window.title)]
            if isinstance(said, bool):
                said = Verdict.ON_TASK if said else Verdict.OFF_TASK
            verdict = Judgement(Verdict(said), f"the judge: {said}")
        self.apply(self.policy.settle(call.ticket, verdict, error, self.now))

    def release(self) -> None:
        while self.judge.held:
            self.settle(self.judge.held.pop(0))

    def set_rules(self, *rules) -> None:
        """The user added or removed rules (rules are the ones standing now)."""
        self.apply(self.policy.set_rules(tuple(rules), self.now))

    def focus(self, window: tuple[str, ...], exact=None) -> None:
        """A sample of window, (app, title) or (app, title, site) (exact: the probe's
        WindowHandle of it, if it identified it)."""
        own = is_own_page(window[1], self.next_action)  # as the controller, before redaction
        site = window[2] if len(window) > 2 else None
        self.apply(self.policy.observe(window[0], window[1], self.now, exact, own, site=site))

    def wait(
        self, seconds: float, window: tuple[str, ...] | None = None, step: float = 5, exact=None
    ) -> None:
        """Let time pass in sampler-sized steps (re-observing window, if given)."""
        end = self.now + timedelta(seconds=seconds)
        while self.now < end:
            self.clock.advance(min(step, (end - self.now).total_seconds()))
            if window is not None:
                self.focus(window, exact)
            self.apply(self.policy.tick(self.now))

    @property
    def status(self) -> DriftStatus:
        return self.policy.view(self.now).status
