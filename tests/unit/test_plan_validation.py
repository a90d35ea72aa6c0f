"""One plan validator: what the coach proposes is validated by the domain, like a typed plan."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from antidrift.ai import CoachError, build_prompt, extract_json, parse_proposal
from antidrift.ai.coach import PROMPT_MINUTES, is_placeholder
from antidrift.core.domain import MAX_MINUTES, MIN_MINUTES, Plan, ValidationError, validate_plan
from antidrift.core.plaintext import CONTROL
from antidrift.session.coaching import proposed_plan
from tests.fakes import FakeCoach, wait_until


def plan_of(answer: str) -> Plan:
    """The controller's path: extract, parse, then the domain's validate_plan."""
    return proposed_plan(parse_proposal(extract_json(answer)))


def doc(**overrides) -> str:
    data = {"next_action": "Draft the summary", "success_condition": "3 paragraphs written"}
    data["timebox_minutes"] = 25
    data.update(overrides)
    return json.dumps({k: v for k, v in data.items() if v is not ...})


def test_the_prompt_asks_for_the_range_the_domain_accepts():
    assert PROMPT_MINUTES == (MIN_MINUTES, MAX_MINUTES)
    assert f"from {MIN_MINUTES} to {MAX_MINUTES}" in build_prompt("anything")


def test_a_valid_answer_becomes_a_trimmed_plan():
    plan = plan_of(doc(next_action="  Draft it \n", success_condition="\tdone  "))
    assert plan == Plan("Draft it", "done", 1500)


@pytest.mark.parametrize(
    ("minutes", "secs"),
    [(25, 1500), (1, 60), (480, 28800), (25.0, 1500), ("25", 1500), (" 25 ", 1500)],
)
def test_accepted_timebox_forms(minutes, secs):
    assert plan_of(doc(timebox_minutes=minutes)).timebox_secs == secs


@pytest.mark.parametrize(
    "minutes",
    [0, -5, 481, 10_000, 25.5, True, False, None, ..., "", "abc", "-5", "25 min", "1e2", [25], {}],
    ids=repr,
)
def test_rejected_timebox_forms(minutes):
    with pytest.raises(ValidationError) as err:
        plan_of(doc(timebox_minutes=minutes))
    assert err.value.field == "timebox_minutes"


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400", "9" * 5000])
def test_rejected_non_finite_or_huge_numbers(literal):
    text = doc().replace('"timebox_minutes": 25', f'"timebox_minutes": {literal}')
    assert literal in text
    with pytest.raises((CoachError, ValidationError)):
        plan_of(text)


@pytest.mark.parametrize("field", ["next_action", "success_condition"])
@pytest.mark.parametrize(
    "value", [..., None, "", "   \n", 42, ["x"], {"a": 1}, "\x00\x1b"], ids=repr
)
def test_rejected_texts(field, value):
    with pytest.raises(ValidationError) as err:
        plan_of(doc(**{field: value}))
    assert err.value.field == field


@pytest.mark.parametrize("field", ["next_action", "success_condition"])
def test_control_characters_in_a_proposal_are_taken_out_and_in_a_typed_plan_refused(field):
    """A model may emit an escape; the proposal is offered without it. Typed, it is a 400."""
    assert getattr(plan_of(doc(**{field: "a\x00b\x1b[2J\u202ec"})), field) == "ab[2Jc"
    plan = {"next_action": "Write", "success_condition": "Done", "timebox_minutes": 25}
    with pytest.raises(ValidationError, match="control character") as err:
        validate_plan(**{**plan, field: "a\x1b[2Jb"})
    assert err.value.field == field


@pytest.mark.parametrize("field", ["next_action", "success_condition"])
def test_text_length_bound_is_the_domains_after_trimming(field):
    assert plan_of(doc(**{field: "x" * 500 + "   "}))
    with pytest.raises(ValidationError, match="500"):
        plan_of(doc(**{field: "x" * 501}))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)
keys = st.sampled_from(["next_action", "success_condition", "timebox_minutes", "other"])


@given(st.dictionaries(keys, json_values, max_size=4))
def test_any_proposal_shaped_answer_is_a_plan_within_limits_or_a_sentence(data):
    try:
        plan = plan_of(json.dumps(data))
    except (CoachError, ValidationError) as exc:
        assert str(exc)
        return
    assert MIN_MINUTES * 60 <= plan.timebox_secs <= MAX_MINUTES * 60
    assert plan.next_action and plan.success_condition


texts = st.text(min_size=1, max_size=500).filter(lambda t: t.strip() and not CONTROL.search(t))
minute_forms = st.sampled_from([int, float, str, lambda m: f" {m} "])


@given(
    next_action=texts,
    success_condition=texts,
    m=st.integers(min_value=MIN_MINUTES, max_value=MAX_MINUTES),
    form=minute_forms,
    before=st.text().filter(lambda t: "{" not in t),
    after=st.text(),
)
def test_a_valid_proposal_in_chatter_round_trips(
    next_action, success_condition, m, form, before, after
):
    assume(not is_placeholder(next_action) and not is_placeholder(success_condition))
    data = {"next_action": next_action, "success_condition": success_condition}
    data["timebox_minutes"] = form(m)
    answer = before + json.dumps(data) + after
    expected = Plan(next_action.strip(), success_condition.strip(), m * 60)
    assert plan_of(answer) == expected


# -- in the controller: a refused proposal is a coach error sentence, never a 5xx ---------------


@pytest.mark.parametrize(
    "fields",
    [
        ("Write", "Done", 0),
        ("Write", "Done", 600),
        ("", "Done", 25),
        ("Write", None, 25),
        ("Write", "x" * 501, 25),
    ],
)
def test_the_controller_turns_a_refused_proposal_into_a_coach_error(make_controller, fields):
    from antidrift.ai import Proposal

    controller = make_controller(FakeCoach(Proposal(*fields)))
    controller.enter_planning()
    controller.coaching.request("write")
    wait_until(lambda: controller.snapshot().coach.status == "error")
    coach = controller.snapshot().coach
    # The coach's words, not the form's ("Next action is required." is about typed text).
    assert coach.error == "The coach's answer had no usable plan — try again or plan by hand."
    assert coach.proposal is None


def test_the_controller_offers_a_proposal_only_as_a_validated_plan(make_controller):
    from antidrift.ai import Proposal

    controller = make_controller(FakeCoach(Proposal("  Write it ", "Done", "30")))
    controller.enter_planning()
    controller.coaching.request("write")
    wait_until(lambda: controller.snapshot().coach.status == "ready")
    assert controller.snapshot().coach.proposal == Plan("Write it", "Done", 1800)
