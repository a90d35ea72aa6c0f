"""Properties: the parser never raises anything but CoachError, and hands fields back as given."""

from __future__ import annotations

import contextlib
import json

from hypothesis import given
from hypothesis import strategies as st

from antidrift.ai import CoachError, Proposal, extract_json, parse_proposal

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)
keys = st.sampled_from(["next_action", "success_condition", "timebox_minutes", "other"])
proposal_like = st.dictionaries(keys, json_values, max_size=4)


@given(st.text())
def test_extract_json_raises_only_coach_errors(text):
    with contextlib.suppress(CoachError):
        assert isinstance(json.loads(extract_json(text)), dict)


@given(st.text())
def test_parse_proposal_raises_only_coach_errors(text):
    with contextlib.suppress(CoachError):
        parse_proposal(text)


@given(proposal_like, st.text().filter(lambda t: "{" not in t), st.text())
def test_any_object_in_chatter_comes_back_field_for_field(data, before, after):
    answer = before + json.dumps(data) + after
    expected = Proposal(
        data.get("next_action"), data.get("success_condition"), data.get("timebox_minutes")
    )
    assert parse_proposal(extract_json(answer)) == expected
