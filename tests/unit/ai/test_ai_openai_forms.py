"""The openai backend's response formats: the body of each form, and which server errors
name the response format (only those are asked past)."""

from __future__ import annotations

import json

import pytest

from antidrift.ai.backends.openai import FORMS, OpenAIBackend, names_format
from antidrift.ai.judge import VERDICT_SCHEMA
from tests.support.format_refusing import UNRELATED, refusal


def test_the_forms_go_from_the_strictest_to_none():
    assert FORMS == ("json_schema", "json_object", None)


def test_each_form_asks_for_what_it_names():
    backend = OpenAIBackend("http://127.0.0.1:1/v1", "m")
    strict = backend.request("p", VERDICT_SCHEMA)
    assert strict["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": VERDICT_SCHEMA, "strict": True},
    }
    loose = backend.request("p", VERDICT_SCHEMA, "json_object")
    assert loose["response_format"] == {"type": "json_object", "schema": VERDICT_SCHEMA}
    bare = backend.request("p", VERDICT_SCHEMA, None)
    assert "response_format" not in bare
    assert bare == {k: v for k, v in strict.items() if k != "response_format"}
    assert bare["model"] == "m" and bare["messages"] == [{"role": "user", "content": "p"}]
    assert "response_format" not in backend.request("p", None)  # no schema: no format


@pytest.mark.parametrize(
    "said",
    [
        json.dumps(refusal("json_schema")),  # llama-cpp-python 0.3.36
        '{"error": {"message": "Unsupported response_format type", "type": "invalid_request"}}',
        '{"detail": [{"loc": ["body", "responseFormat"], "msg": "extra field"}]}',
        "json_schema is not supported by this server",
        "Response format not supported",
    ],
)
def test_an_error_that_names_the_response_format_is_asked_past(said):
    assert names_format("json_schema", said)


@pytest.mark.parametrize(
    "said",
    [
        json.dumps(UNRELATED),
        '{"error": {"message": "model \'x\' not found", "type": "invalid_request_error"}}',
        '{"error": {"message": "Invalid API key", "code": "invalid_api_key"}}',
        "<html>502 Bad Gateway</html>",
        "",
    ],
)
def test_any_other_error_is_not(said):
    assert not names_format("json_schema", said)


def test_json_object_is_named_by_its_own_type_too():
    assert names_format("json_object", "json_object is not supported")
    assert not names_format("json_object", "json_schema is not supported")
