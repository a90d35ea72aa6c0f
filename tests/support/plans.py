"""The plan a test starts its commitment with: one home for it, and `plan(...)` for a test
whose assertions lean on a field of its own (a deadline, a title, a hostile string), so that
field stands in the test itself."""

from __future__ import annotations

# As a form sends it (all text); the JSON routes take it as it is.
PLAN = {
    "next_action": "Write the intro",
    "success_condition": "Intro in the doc",
    "timebox_minutes": "20",
}


def plan(**fields: object) -> dict[str, object]:
    """PLAN with `fields` put in (each as given: `timebox_minutes=30` posts a JSON number)."""
    unknown = set(fields) - set(PLAN)
    assert not unknown, f"not a plan field: {sorted(unknown)}"
    return {**PLAN, **fields}
