"""The standing rules partial's view data (`_rules.html`): the form's state and the rules
shown. Loaded with the rules' first answer (web/rules.py), not at every start (issue 40)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from antidrift.core.drift_records import Rule


@dataclass(frozen=True)
class RulesForm:
    """The standing rules partial's state: a message, and what was typed when it was refused."""

    message: str = ""
    app: str = ""
    title_contains: str = ""
    verdict: str = ""
    invalid: tuple[str, ...] = ()
    focus: str = ""  # "app" (the form, to add another) or "title" (the list's heading)
    site: str = ""
    error: bool = False  # the message is a refusal (shown as one), not a confirmation

    @classmethod
    def typed(cls, message: str, data: Mapping[str, object], invalid: tuple[str, ...]):
        """A refused rule: the sentence, the fields as typed, the ones at fault marked."""

        def text(key: str) -> str:
            value = data.get(key)
            return value if isinstance(value, str) else ""

        typed = (text("app"), text("title_contains"), text("verdict"))
        return cls(message, *typed, invalid, "app", error=True, site=text("site"))


@dataclass(frozen=True)
class RulesView:
    """The standing rules partial: the rules, its state, where a plain form returns."""

    rules: tuple[Rule, ...]
    form: RulesForm = RulesForm()
    back: str = "/rules"

    def context(self) -> dict[str, object]:
        return {"rules": self.rules, "rules_form": self.form, "rules_back": self.back}
