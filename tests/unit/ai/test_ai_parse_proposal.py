"""parse_proposal hands back the three fields of one JSON object as given, or InvalidProposal.

Whether the values make a usable plan is the domain's call: tests/unit/test_plan_validation.py.
"""

from __future__ import annotations

import json

import pytest

from antidrift.ai import InvalidProposal, Proposal, parse_proposal


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
