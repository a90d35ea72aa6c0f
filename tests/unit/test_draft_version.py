"""Two tabs share one draft (0.6): each saved change moves its version on by one, kept through
the store and a restart; a Start that says its page shows another version, with a plan other
than the saved one, is refused with the saved text (409, nothing started); a Start that
names no version keeps the older contract."""

from __future__ import annotations

import json

import pytest

from antidrift.core.domain import IllegalTransitionError, RuntimeState, ValidationError
from antidrift.session.drafts import ChangedElsewhere, Draft

A_PLAN = ("Write the intro", "Intro in the doc", "20")
B_PLAN = {"next_action": "Call Dana", "success_condition": "Dana said yes", "timebox_minutes": "15"}


def version(controller) -> int:
    return controller.drafts.draft.version


def test_each_saved_change_of_the_plan_moves_the_version_on_by_one(controller):
    controller.enter_planning()
    assert version(controller) == 0
    controller.drafts.save({"next_action": "Write"})
    assert version(controller) == 1
    controller.drafts.save({"next_action": "Write"})  # nothing changed: the same version
    assert version(controller) == 1
    controller.drafts.save({"success_condition": "Done", "timebox_minutes": "30"})
    assert version(controller) == 2
    controller.drafts.save({"intent": "the report"})  # the intent is no part of the plan
    assert version(controller) == 2  # (a Start is weighed by its plan: nothing to lag behind)
    assert controller.snapshot().draft.version == 2


def test_the_version_is_kept_with_the_draft_through_a_restart(make_controller, store, controller):
    controller.enter_planning()
    for text in ("W", "Wr", "Wri"):
        controller.drafts.save({"next_action": text})
    assert json.loads(store.load_draft())["version"] == 3
    again = make_controller()  # a new server over the same store
    assert again.drafts.draft.version == 3 and again.drafts.draft.next_action == "Wri"


@pytest.mark.parametrize("stored", [None, -1, "3", True, 2.5])
def test_a_stored_version_out_of_shape_is_zero_and_the_draft_stays(stored):
    body = json.loads(Draft(next_action="kept").to_json()) | {"version": stored}
    if stored is None:
        del body["version"]  # a draft kept before versions
    draft = Draft.from_json(json.dumps(body))
    assert (draft.version, draft.next_action) == (0, "kept")


def test_a_start_from_an_older_version_with_another_plan_is_409_with_the_saved_text(
    controller, store
):
    controller.enter_planning()
    controller.drafts.save({"next_action": "Write the intro"})
    shown = version(controller)  # what this tab shows; another tab saves on
    controller.drafts.save(B_PLAN)
    before = store.load_draft()
    with pytest.raises(ChangedElsewhere) as refused:
        controller.start_commitment(*A_PLAN, draft_version=str(shown))
    assert isinstance(refused.value, IllegalTransitionError) and refused.value.status == 409
    message = refused.value.message
    assert message.startswith("Changed in another tab")
    assert "“Call Dana”" in message and "“Dana said yes”" in message and "15 min" in message
    assert refused.value.draft == controller.drafts.draft
    assert controller.snapshot().state is RuntimeState.PLANNING  # nothing started
    assert store.load_draft() == before


@pytest.mark.parametrize(
    "shown", [None, "", "current", "older, but the saved plan", "newer, from an older planning"]
)
def test_a_start_goes_through_when_nothing_would_be_lost(controller, shown):
    controller.enter_planning()
    controller.drafts.save({"next_action": "Write"})
    controller.drafts.save(B_PLAN)
    typed = A_PLAN
    if shown == "current":
        shown = version(controller)  # this tab took the other's change, then typed over it
    elif shown == "older, but the saved plan":
        shown, typed = 1, (" Call Dana ", "Dana said yes", 15)  # spaces aside; a JSON number
    elif shown == "newer, from an older planning":
        shown, typed = 99, tuple(B_PLAN.values())
    started = controller.start_commitment(*typed, draft_version=shown)
    assert started.state is RuntimeState.ACTIVE


def test_a_start_without_a_version_keeps_the_older_contract(controller):
    controller.enter_planning()
    controller.drafts.save(B_PLAN)
    assert controller.start_commitment(*A_PLAN).commitment.next_action == "Write the intro"


@pytest.mark.parametrize("bad", ["x", "-1", "1.5", " ", "٣", "9" * 19, True, -1, 2.0, [1]])
def test_a_version_that_is_no_whole_number_is_a_400(controller, bad):
    controller.enter_planning()
    with pytest.raises(ValidationError) as refused:
        controller.start_commitment(*A_PLAN, draft_version=bad)
    assert refused.value.field == "draft_version"
    assert controller.snapshot().state is RuntimeState.PLANNING


def test_the_state_is_checked_before_the_version(controller):
    with pytest.raises(IllegalTransitionError) as refused:
        controller.start_commitment(*A_PLAN, draft_version="x")
    assert not isinstance(refused.value, ChangedElsewhere)
