"""Sharpen the day in the session (session/day_coaching.py) over a fake coach: the coach is
told free stretches, never an event; a newer request supersedes an older one; a failure is a
sentence; an answer's unusable entries are left out (none usable: the coach's own sentence);
adding from the proposal (one, all) is one change that refuses what would pass fifty items or
names an entry it no longer has, and never touches an item the user made."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from antidrift.ai import NO_PLAN, CLITimeout
from antidrift.calendar import agenda_of
from antidrift.calendar.agenda import Event
from antidrift.core.day import MAX_ITEMS
from antidrift.core.domain import IllegalTransitionError, NotFound, ValidationError
from antidrift.core.errors import WriteFailed
from antidrift.session.day_coaching import CHANGED, NO_ENTRY, NO_PROPOSAL
from tests.fakes import START, FakeCoach, wait_until

NINE = START.astimezone().replace(hour=9, minute=0, second=0, microsecond=0)
THREE = [
    {
        "next_action": "Draft the grant summary",
        "success_condition": "A page",
        "timebox_minutes": 50,
    },
    {"next_action": "Review the first PR", "success_condition": "Sent", "timebox_minutes": 30},
    {"next_action": "Review the second PR", "success_condition": "Approved", "timebox_minutes": 20},
]


def day_answer(*entries: dict) -> str:
    return json.dumps({"commitments": list(entries or THREE)})


class Events:
    """The calendar as the session reads it: kept events, no I/O."""

    def __init__(self, *events: Event) -> None:
        self._events = tuple(events)

    def events(self) -> tuple[Event, ...]:
        return self._events

    def agenda(self, at):
        return agenda_of(self._events, at)

    def free_minutes(self, at):
        return self.agenda(at).free_minutes(at)

    def busy(self, at) -> bool:
        return self.agenda(at).now is not None


@pytest.fixture
def coach() -> FakeCoach:
    return FakeCoach().enqueue(day_answer())  # three, unless a test queues its own first


@pytest.fixture
def controller(make_controller, coach, clock):
    clock.set(NINE)
    return make_controller(coach)


def plan(controller):
    return controller.snapshot().day_plan


def ready(controller, intent="grant report, two PRs, gym at 6"):
    """The proposal once the coach answered (the test queued its answer first)."""
    controller.day_plans.request(intent)
    return wait_until(lambda: plan(controller).status in ("ready", "error") and plan(controller))


def queue(controller) -> list[tuple]:
    return [
        (i.id, i.next_action, i.success_condition, i.timebox_minutes) for i in _items(controller)
    ]


def _items(controller):
    return controller.day.view().items


# -- asking -------------------------------------------------------------------------------------


def test_the_coach_hears_the_free_stretches_and_never_an_events_title(make_controller, clock):
    clock.set(NINE)
    coach = FakeCoach().enqueue(day_answer())
    secret = Event(NINE + timedelta(hours=1), NINE + timedelta(hours=2), "Dentist: Dr Quill")
    controller = make_controller(coach, calendar=Events(secret))
    view = ready(controller)
    [prompt] = coach.intents
    assert "- from 09:00: 60 min\n- from 11:00: 420 min" in prompt
    assert "Dentist" not in prompt and "Quill" not in prompt
    assert 'DAY: "grant report, two PRs, gym at 6"' in prompt
    assert view.status == "ready" and len(view.items) == 3 and view.left_out == 0
    assert view.items[0].next_action == "Draft the grant summary"
    assert view.items[0].timebox_secs == 50 * 60


def test_it_is_asked_in_any_state_and_pending_first(controller, coach, clock):
    controller.enter_planning()
    controller.start_manual_commitment("Write", "Done", "20")  # active
    coach.gated = True
    assert controller.day_plans.request("the rest of the day").status == "pending"
    coach.wait_calls(1)
    clock.advance(4)
    assert plan(controller).elapsed(clock.now()) == 4
    coach.release_all()
    wait_until(lambda: plan(controller).status == "ready")
    assert controller.snapshot().state.value == "active"


def test_a_rough_day_is_checked_like_the_planning_intent(controller, coach):
    for bad, said in [("  ", "Your rough day is required."), ("x" * 2001, "too long")]:
        with pytest.raises(ValidationError, match=said):
            controller.day_plans.request(bad)
    assert coach.calls == [] and plan(controller).status == "idle"


def test_a_newer_request_supersedes_and_the_older_answer_never_lands(make_controller, clock):
    clock.set(NINE)
    coach = FakeCoach(gated=True, honour_cancel=False)  # the first answers late regardless
    controller = make_controller(coach)
    coach.enqueue(day_answer(dict(THREE[0], next_action="From the first")), day_answer())
    controller.day_plans.request("first")
    first = coach.wait_calls(1)[0]
    controller.day_plans.request("second")
    coach.wait_calls(2)
    assert first.scope.cancelled  # its CLI is killed
    coach.release(1)
    wait_until(lambda: plan(controller).status == "ready")
    coach.release(0)
    assert first.finished.wait(5)
    shown = plan(controller)
    assert [p.next_action for p in shown.items][0] == "Draft the grant summary"
    controller.shutdown()


def test_a_failing_cli_is_a_sentence_and_the_queue_works_by_hand(controller, coach):
    coach.reset()
    coach.enqueue(CLITimeout(60))
    view = ready(controller)
    assert view.status == "error" and "longer than 60 s" in view.error
    controller.day.add("Write the intro")
    assert [i.next_action for i in _items(controller)] == ["Write the intro"]


def test_without_a_coach_the_page_is_told_so_at_once(make_controller, clock):
    controller = make_controller(None)
    view = controller.day_plans.request("the day")
    assert view.status == "error" and view.error.startswith("coach unavailable")


def test_unusable_entries_are_left_out_and_counted(controller, coach):
    placeholder = dict(THREE[0], next_action="...")
    too_long = dict(THREE[1], timebox_minutes=9000)
    coach.reset()
    coach.enqueue(day_answer(placeholder, too_long, THREE[2]))
    view = ready(controller)
    assert [p.next_action for p in view.items] == ["Review the second PR"]
    assert view.left_out == 2


def test_an_answer_with_no_usable_entry_is_refused_in_the_coachs_words(controller, coach):
    coach.reset()
    coach.enqueue(
        day_answer(dict(THREE[0], timebox_minutes=0), dict(THREE[1], next_action="x" * 600))
    )
    view = ready(controller)
    assert view.status == "error"
    assert view.error == NO_PLAN[0].upper() + NO_PLAN[1:] + "."


# -- adding from it -----------------------------------------------------------------------------


def test_an_entry_added_leaves_the_proposal_and_the_last_one_takes_it_away(controller, coach):
    controller.day.add("Mine, typed by hand", "Sent", "15")
    mine = queue(controller)
    ready(controller)
    key = plan(controller).key
    [added] = controller.day_plans.use(index="1", key=key)
    assert added.next_action == "Review the first PR" and added.timebox_minutes == 30
    left = plan(controller)
    assert [p.next_action for p in left.items] == [
        "Draft the grant summary",
        "Review the second PR",
    ]
    assert left.key != key  # what the page showed is older now
    controller.day_plans.use(every="1")
    assert plan(controller).status == "idle" and plan(controller).items == ()
    got = queue(controller)
    assert got[0] == mine[0]  # the user's item: untouched, first
    assert [g[1] for g in got[1:]] == [
        "Review the first PR",
        "Draft the grant summary",
        "Review the second PR",
    ]


@pytest.mark.parametrize(
    ("use", "refusal", "said"),
    [
        ({"index": "3"}, NotFound, NO_ENTRY),  # a stale index: the proposal has 3
        ({"index": 0, "key": "another-page"}, IllegalTransitionError, CHANGED),
        ({"index": "first"}, ValidationError, "index=<n>"),
        ({}, ValidationError, "index=<n>"),
    ],
)
def test_a_refused_use_says_why_and_changes_nothing(controller, use, refusal, said):
    ready(controller)
    before, shown = queue(controller), plan(controller)
    with pytest.raises(refusal, match=said.replace("(", r"\(").replace(")", r"\)")):
        controller.day_plans.use(**use)
    assert queue(controller) == before and plan(controller) == shown


def test_nothing_to_add_from_is_refused(controller):
    with pytest.raises(IllegalTransitionError, match="no proposal"):
        controller.day_plans.use(index=0)
    assert NO_PROPOSAL.startswith("There is no proposal")


def test_all_that_would_pass_fifty_items_adds_none(controller, store):
    for n in range(MAX_ITEMS - 2):
        controller.day.add(f"Item {n}")
    ready(controller)
    before, shown = queue(controller), plan(controller)
    with pytest.raises(IllegalTransitionError, match="would make 51 items"):
        controller.day_plans.use(every="1")
    assert queue(controller) == before and plan(controller) == shown
    controller.day_plans.use(index=0)  # one still fits
    assert len(queue(controller)) == MAX_ITEMS - 1


def test_all_is_one_transaction(controller, store, monkeypatch):
    ready(controller)
    before, shown = queue(controller), plan(controller)
    real, calls = store.add_day_item, []

    def second_fails(item):
        calls.append(item)
        if len(calls) == 2:
            raise WriteFailed("the disk is full: nothing was saved.")
        real(item)

    monkeypatch.setattr(store, "add_day_item", second_fails)
    with pytest.raises(WriteFailed):
        controller.day_plans.use(every="1")
    assert queue(controller) == before and plan(controller) == shown


def test_a_server_stop_kills_the_running_call(controller, coach):
    coach.gated = True
    controller.day_plans.request("the day")
    [call] = coach.wait_calls(1)
    controller.shutdown()
    assert call.scope.cancelled and plan(controller).status == "idle"
