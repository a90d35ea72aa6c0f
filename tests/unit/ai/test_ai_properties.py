"""Properties: the parser never raises anything but CoachError, and valid answers round-trip."""

from __future__ import annotations

import contextlib
import json

from hypothesis import given
from hypothesis import strategies as st

from antidrift.ai import CoachError, Proposal, extract_json, parse_proposal

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
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


@given(proposal_like)
def test_parse_proposal_on_proposal_shaped_objects_raises_only_coach_errors(data):
    try:
        proposal = parse_proposal(json.dumps(data))
    except CoachError:
        return
    assert 60 <= proposal.timebox_secs <= 480 * 60


texts = st.text(min_size=1, max_size=500).filter(lambda t: t.strip())
minutes = st.integers(min_value=1, max_value=480)
minute_forms = st.sampled_from([int, float, str, lambda m: f" {m} "])


@given(
    next_action=texts,
    success_condition=texts,
    m=minutes,
    form=minute_forms,
    before=st.text().filter(lambda t: "{" not in t),
    after=st.text(),
)
def test_valid_proposal_in_chatter_round_trips(
    next_action, success_condition, m, form, before, after
):
    data = {"next_action": next_action, "success_condition": success_condition}
    data["timebox_minutes"] = form(m)
    answer = before + json.dumps(data) + after
    expected = Proposal(next_action.strip(), success_condition.strip(), m * 60)
    assert parse_proposal(extract_json(answer)) == expected
