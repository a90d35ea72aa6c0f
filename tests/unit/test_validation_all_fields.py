"""validate_plan reports every field at fault in one error, in the form's order."""

from __future__ import annotations

import pytest

from antidrift.core.domain import ValidationError, validate_plan


@pytest.mark.parametrize(
    ("values", "fields"),
    [
        (("", "", "0"), ("next_action", "success_condition", "timebox_minutes")),
        (("do", "", "x"), ("success_condition", "timebox_minutes")),
        (("", "done", "25"), ("next_action",)),
        (("x" * 501, "done", "481"), ("next_action", "timebox_minutes")),
    ],
)
def test_every_field_at_fault_is_named(values, fields):
    with pytest.raises(ValidationError) as err:
        validate_plan(*values)
    assert err.value.fields == fields
    assert err.value.field == fields[0]
    assert err.value.message.count(".") >= len(fields)  # one sentence per field
