"""parse_proposal turns one JSON object into a validated Proposal, or InvalidProposal."""

from __future__ import annotations

import json

import pytest

from antidrift.ai import InvalidProposal, Proposal, parse_proposal


def doc(**overrides) -> str:
    data = {"next_action": "Draft the summary", "success_condition": "3 paragraphs written"}
    data["timebox_minutes"] = 25
    data.update(overrides)
    return json.dumps({k: v for k, v in data.items() if v is not ...})


def test_valid_proposal_converts_minutes_to_seconds():
    assert parse_proposal(doc()) == Proposal("Draft the summary", "3 paragraphs written", 1500)


def test_texts_are_trimmed():
    p = parse_proposal(doc(next_action="  Draft it \n", success_condition="\tdone  "))
    assert (p.next_action, p.success_condition) == ("Draft it", "done")


def test_extra_keys_are_ignored():
    assert parse_proposal(doc(why="because")).timebox_secs == 1500


@pytest.mark.parametrize(
    ("minutes", "secs"),
    [(25, 1500), (1, 60), (480, 28800), (25.0, 1500), ("25", 1500), (" 25 ", 1500), ("30.0", 1800)],
)
def test_accepted_timebox_forms(minutes, secs):
    assert parse_proposal(doc(timebox_minutes=minutes)).timebox_secs == secs


@pytest.mark.parametrize(
    "minutes",
    [0, -5, 481, 10_000, 25.5, True, False, None, ..., "", "abc", "-5", "25 min", "1e2", [25], {}],
    ids=repr,
)
def test_rejected_timebox_forms(minutes):
    with pytest.raises(InvalidProposal):
        parse_proposal(doc(timebox_minutes=minutes))


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400", "9" * 5000])
def test_rejected_non_finite_or_huge_numbers(literal):
    text = doc().replace('"timebox_minutes": 25', f'"timebox_minutes": {literal}')
    assert literal in text
    with pytest.raises(InvalidProposal):
        parse_proposal(text)


@pytest.mark.parametrize("field", ["next_action", "success_condition"])
@pytest.mark.parametrize("value", [..., None, "", "   \n", 42, ["x"], {"a": 1}], ids=repr)
def test_rejected_texts(field, value):
    with pytest.raises(InvalidProposal):
        parse_proposal(doc(**{field: value}))


@pytest.mark.parametrize("field", ["next_action", "success_condition"])
def test_text_length_bound_is_500_characters_after_trimming(field):
    assert parse_proposal(doc(**{field: "x" * 500 + "   "}))
    with pytest.raises(InvalidProposal, match="500"):
        parse_proposal(doc(**{field: "x" * 501}))


@pytest.mark.parametrize("text", ["[1, 2]", '"a string"', "42", "null", "{", "", "not json"])
def test_not_a_json_object(text):
    with pytest.raises(InvalidProposal):
        parse_proposal(text)


def test_deeply_nested_json_is_invalid_not_a_crash():
    with pytest.raises(InvalidProposal):
        parse_proposal('{"a":' * 100_000)


def test_messages_name_the_problem_for_a_person():
    with pytest.raises(InvalidProposal) as err:
        parse_proposal(doc(next_action=""))
    assert "next action" in str(err.value)
    assert err.value.message == str(err.value)
