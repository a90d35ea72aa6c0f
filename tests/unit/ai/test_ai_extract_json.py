"""extract_json finds the first valid JSON object in a chatty CLI answer."""

from __future__ import annotations

import json
import time

import pytest

from antidrift.ai import EmptyResponse, NoJSON, extract_json

ANSWER = (
    '{"next_action": "Draft the summary", "success_condition": "3 paragraphs", '
    '"timebox_minutes": 25}'
)


def test_bare_object_is_returned_as_is():
    assert extract_json(ANSWER) == ANSWER


def test_object_wrapped_in_prose():
    s = f"Sure! Here is your commitment:\n{ANSWER}\nGood luck, you've got this."
    assert json.loads(extract_json(s)) == json.loads(ANSWER)


def test_object_in_a_code_fence():
    s = f"```json\n{ANSWER}\n```"
    assert extract_json(s) == ANSWER


def test_braces_inside_string_values_do_not_end_the_object():
    obj = {"next_action": "Write the } and { handling", "success_condition": "{ok}", "n": 1}
    s = "Answer: " + json.dumps(obj) + " done"
    assert json.loads(extract_json(s)) == obj


def test_prose_with_braces_before_the_object_is_skipped():
    s = "I considered {not json} and {also: not} then " + ANSWER
    assert extract_json(s) == ANSWER


def test_unbalanced_brace_in_prose_before_the_object():
    s = 'The set {"a", "b" is open, anyway: ' + ANSWER
    assert extract_json(s) == ANSWER


def test_multiple_objects_return_the_first_valid_one():
    first = '{"next_action": "one", "success_condition": "a", "timebox_minutes": 5}'
    second = '{"next_action": "two", "success_condition": "b", "timebox_minutes": 10}'
    assert extract_json(f"{first}\n{second}") == first


def test_nested_object_returns_the_outer_one():
    s = 'x {"a": {"b": 1}, "c": [1, {"d": 2}]} y'
    assert extract_json(s) == '{"a": {"b": 1}, "c": [1, {"d": 2}]}'


def test_a_json_array_alone_is_no_object():
    with pytest.raises(NoJSON):
        extract_json("[1, 2, 3]")


def test_no_json_at_all():
    with pytest.raises(NoJSON):
        extract_json("I cannot help with that.")


def test_only_broken_json():
    with pytest.raises(NoJSON):
        extract_json('{"next_action": "x", "success_condition": ')


@pytest.mark.parametrize("s", ["", "   ", "\n\t \n"])
def test_empty_or_whitespace_is_an_empty_response(s):
    with pytest.raises(EmptyResponse):
        extract_json(s)


def test_none_is_an_empty_response():
    with pytest.raises(EmptyResponse):
        extract_json(None)  # type: ignore[arg-type]


def test_error_messages_are_short_sentences_without_the_raw_answer():
    with pytest.raises(NoJSON) as err:
        extract_json("secret raw output " * 50)
    assert "secret" not in str(err.value)
    assert len(str(err.value)) < 100


@pytest.mark.parametrize(
    "hostile",
    [
        "{" * 100_000,
        '{"a":' * 200_000,
        '{"":"' * 200_000,
        '{"a":[1,' * 100_000,
        '{"a":{"b":"{"' * 50_000,
        "x" * 900_000 + '{"":"' * 20_000,
    ],
    ids=["braces", "deep", "strings", "arrays", "mixed", "late"],
)
def test_hostile_input_finishes_fast(hostile):
    # CPU time of this thread, not wall time: a busy machine stretches the wall clock (one
    # run at load 15 took over a second), never the work done; a scan without its budget
    # costs 6 to 35 s of CPU here.
    started = time.thread_time()
    with pytest.raises(NoJSON):
        extract_json(hostile)
    assert time.thread_time() - started < 1.0


def test_object_after_many_bare_braces_is_found():
    assert extract_json("{" * 100_000 + ANSWER) == ANSWER


def test_input_past_one_mebibyte_is_not_scanned():
    with pytest.raises(NoJSON):
        extract_json("x" * (1 << 20) + ANSWER)
