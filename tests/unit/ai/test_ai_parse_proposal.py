"""parse_proposal hands back the three fields of one JSON object as given, or InvalidProposal.

Whether the values make a usable plan is the domain's call: tests/unit/test_plan_validation.py.
"""

from __future__ import annotations

import json

import pytest

from antidrift.ai import InvalidProposal, Proposal, build_prompt, parse_proposal
from antidrift.ai.coach import EXAMPLE, is_placeholder


def doc(**overrides) -> str:
    data = {"next_action": "Draft the summary", "success_condition": "3 paragraphs written"}
    data["timebox_minutes"] = 25
    data.update(overrides)
    return json.dumps({k: v for k, v in data.items() if v is not ...})


def test_the_three_fields_come_back_as_given():
    assert parse_proposal(doc()) == Proposal("Draft the summary", "3 paragraphs written", 25)
    raw = parse_proposal(doc(next_action="  Draft it \n", timebox_minutes=" 25 "))
    assert raw == Proposal("  Draft it \n", "3 paragraphs written", " 25 ")


def test_extra_keys_are_ignored_and_missing_ones_are_none():
    assert parse_proposal(doc(why="because", confidence=0.9)) == parse_proposal(doc())
    assert parse_proposal("{}") == Proposal(None, None, None)


@pytest.mark.parametrize("text", ["[1, 2]", '"a string"', "42", "null", "{", "", "not json"])
def test_not_a_json_object(text):
    with pytest.raises(InvalidProposal):
        parse_proposal(text)


@pytest.mark.parametrize("text", ['{"a":' * 100_000, '{"timebox_minutes": ' + "9" * 5000 + "}"])
def test_too_deep_or_too_long_a_number_is_invalid_not_a_crash(text):
    with pytest.raises(InvalidProposal):
        parse_proposal(text)


def test_messages_name_the_problem_for_a_person():
    with pytest.raises(InvalidProposal) as err:
        parse_proposal("[]")
    assert "JSON object" in str(err.value)
    assert err.value.message == str(err.value)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("next_action", "..."),
        ("next_action", "…"),
        ("next_action", " TODO "),
        ("success_condition", "N/A"),
        ("success_condition", "---"),
        ("next_action", "<next step>"),
        # The prompt's own example text, copied back by a small model.
        ("next_action", EXAMPLE["next_action"]),
        ("success_condition", EXAMPLE["success_condition"].upper()),
    ],
)
def test_a_placeholder_is_no_plan_in_the_coach_s_words(field, value):
    with pytest.raises(InvalidProposal) as refused:
        parse_proposal(doc(**{field: value}))
    assert str(refused.value) == "the coach's answer had no usable plan — try again or plan by hand"


@pytest.mark.parametrize("value", ["Write the intro...", "Fix the TODO in parse.py", "Read <b>"])
def test_words_around_a_placeholder_are_a_plan(value):
    assert parse_proposal(doc(next_action=value)).next_action == value


def test_the_prompt_s_example_holds_neutral_placeholders_and_no_real_value():
    prompt = build_prompt("write the intro")
    example = prompt.split("exactly these keys:\n", 1)[1].split("\n-", 1)[0]
    assert all(str(v) in example for v in EXAMPLE.values())
    assert not any(ch.isdigit() for ch in example) and "..." not in example
    assert all(is_placeholder(v) for v in EXAMPLE.values())
