"""Standing rules ("firefox is always on task"): added and removed by the user, kept in the
store, followed by the drift guard in every commitment — the running one at once.

Each change is one unit of work of the session, like Corrections: the store is written, the
guard told, the version moved under the lock; the guard's work and the listeners after it.
"""

from __future__ import annotations

from typing import Protocol

from antidrift.core.domain import NotFound, ValidationError
from antidrift.core.drift_records import Rule
from antidrift.core.ports import Repository, Transaction
from antidrift.drift.verdicts import validate_rule

# A rule is one line on the rules page and one check per window: more than this is a list no
# one reads, and a page that grows without bound.
MAX_RULES = 500


class GuardWork(Protocol):
    def run(self) -> None: ...


class Guard(Protocol):
    """The drift guard, as far as rules go: the running commitment follows new rules."""

    def rules_changed(self, rules: tuple[Rule, ...]) -> GuardWork: ...


class StandingRules:
    """Add or remove a rule; ValidationError for bad input, NotFound for an unknown id."""

    def __init__(self, store: Repository, work: Transaction, *guards: Guard) -> None:
        self._store = store
        self._work = work
        self._guards = guards  # the running commitment's, and Guard here too's

    def add(
        self, app: object, title_contains: object, verdict: object, site: object = None
    ) -> Rule:
        """A rule for every commitment; one about the same app, site and text is replaced."""
        fields = validate_rule(app, title_contains, verdict, site)
        with self._work:
            rules = self._store.rules()
            same = [r for r in rules if _same(r, fields[0], fields[1], fields[3])]
            if len(rules) >= MAX_RULES and not same:
                raise ValidationError(
                    f"There are {len(rules)} standing rules, the most AntiDrift keeps: remove"
                    " one first.",
                    "app",
                )
            rule = self._store.add_rule(*fields)
            self._followed()
        return rule

    def remove(self, rule_id: str) -> Rule:
        """Remove one rule (the judge decides its windows again); the rule that was."""
        with self._work:
            found = next((r for r in self._store.rules() if r.id == rule_id), None)
            if found is None or not self._store.delete_rule(rule_id):
                raise NotFound("There is no such rule.")
            self._followed()
        return found

    def taken(self) -> None:
        """Rules came from another machine (sync): the running commitment follows them."""
        with self._work:
            self._followed()

    def _followed(self) -> None:
        """Under the unit of work: the running commitment follows the rules as they are now."""
        rules = tuple(self._store.rules())
        for guard in self._guards:
            self._work.then(guard.rules_changed(rules).run)
        self._work.changed()


def _same(rule: Rule, app: str, title_contains: str, site: str = "") -> bool:
    """The rule a new one about the same app, site and text replaces (the store's own test)."""
    return (
        rule.app.casefold() == app.casefold()
        and rule.title_contains.casefold() == title_contains.casefold()
        and rule.site == site
    )
