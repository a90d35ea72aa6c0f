"""The idle sources' parsing (aw-watcher-afk's events, gdbus's and ioreg's answers, on fake
tools where no real one runs here), and the sampler asking the idle source first: while the
user is away it looks at no window."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from antidrift.evidence.idle import gdbus_number, parse_afk
from antidrift.evidence.macos import MacIdle
from antidrift.evidence.probe import ProbeError
from antidrift.evidence.sampler import WindowSampler

NOW = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)


def afk_event(status: str, started: datetime, duration: float) -> str:
    return json.dumps([{"id": 1, "timestamp": started.isoformat(), "duration": duration,
                        "data": {"status": status}}])  # fmt: skip


def test_an_afk_event_counts_from_its_start_a_not_afk_one_from_its_end():
    started = NOW - timedelta(minutes=5)
    assert parse_afk(afk_event("afk", started, 295), NOW) == 300
    assert parse_afk(afk_event("not-afk", started, 280), NOW) == 20
    assert parse_afk("[]", NOW) == 0


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (afk_event("afk", NOW - timedelta(minutes=9), 60), "has not reported since"),
        (afk_event("not-afk", NOW - timedelta(minutes=9), 0), "has not reported since"),
        (afk_event("asleep", NOW, 0), "no status"),
        ('[{"data": {"status": "afk"}}]', "no valid timestamp"),
        ("{}", "no list"),
        ("<html>", "no JSON"),
    ],
)
def test_an_afk_answer_that_tells_nothing_is_a_sentence(text, said):
    with pytest.raises(ProbeError, match=said):
        parse_afk(text, NOW)


def test_gdbus_numbers_are_read_and_anything_else_refused():
    assert gdbus_number("(uint64 12345,)\n", "GNOME's idle monitor") == 12345
    assert gdbus_number("(uint32 7,)", "x") == 7
    with pytest.raises(ProbeError, match="GNOME's idle monitor answered no number"):
        gdbus_number("('12345',)", "GNOME's idle monitor")


IOREG = """\
+-o Root  <class IORegistryEntry, id 0x100000100, retain 30>
  +-o IOResources  <class IOResources, id 0x100000115, registered, matched, active>
    +-o IOHIDSystem  <class IOHIDSystem, id 0x1000003a7, registered, matched, active>
        {
          "IOClass" = "IOHIDSystem"
          "HIDIdleTime" = 4250000000
        }
"""


def test_macos_hid_idle_time_is_read_from_ioreg_in_nanoseconds(fake_bin):
    # No macOS here: a fake ioreg prints what ioreg prints (HIDIdleTime in ns).
    fake_bin("ioreg", f"assert args[:2] == ['-c', 'IOHIDSystem'], args\nprint({IOREG!r})")
    assert MacIdle().idle_secs() == pytest.approx(4.25)
    fake_bin("ioreg", "print('+-o Root')")
    with pytest.raises(ProbeError, match="no HIDIdleTime"):
        MacIdle().idle_secs()


# --- the sampler -------------------------------------------------------------------------


class FakeClock:
    """Five seconds on at each look."""

    def __init__(self):
        self.at = NOW

    def __call__(self):
        self.at += timedelta(seconds=5)
        return self.at


class FakeProbe:
    """The focused window, always the same; counts the looks."""

    name = "fake"

    def __init__(self, default):
        self.default, self.calls = default, 0

    def active_window(self):
        self.calls += 1
        return self.default


class FakeIdle:
    """Answers idle seconds from a list (an exception to raise), then the last one."""

    name = "fakeidle"

    def __init__(self, *answers):
        self.answers = list(answers)

    def idle_secs(self):
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, BaseException):
            raise answer
        return answer


def test_the_sampler_asks_the_idle_source_first_and_no_window_while_away():
    samples, told = [], []
    window = FakeProbe(default=("code", "intro.md"))

    def on_idle(secs, at):
        told.append(secs)
        return secs >= 180

    sampler = WindowSampler(
        window,
        lambda app, title, at: samples.append(app),
        now=FakeClock(),
        idle=FakeIdle(2.0, 200.0, 1.0),
        on_idle=on_idle,
    )
    for _ in range(3):
        sampler.sample_once()
    assert told == [2.0, 200.0, 1.0]
    assert window.calls == 2 and samples == ["code", "code"]  # none while away


def test_a_failing_idle_source_never_makes_anyone_away(caplog):
    window = FakeProbe(default=("code", "intro.md"))
    samples = []
    sampler = WindowSampler(
        window,
        lambda app, title, at: samples.append(app),
        now=FakeClock(),
        idle=FakeIdle(ProbeError("xprintidle failed: no display")),
        on_idle=lambda secs, at: True,
    )
    sampler.sample_once()
    sampler.sample_once()
    assert samples == ["code", "code"]
    said = [r.getMessage() for r in caplog.records if "idle source" in r.getMessage()]
    assert said == ["idle source fakeidle failed: xprintidle failed: no display"]  # once


def test_a_stopped_sampler_stops_what_its_idle_source_keeps_running():
    class KeepsAChild(FakeIdle):
        closed = 0

        def close(self):
            self.closed += 1

    idle = KeepsAChild(0.0)
    sampler = WindowSampler(FakeProbe(None), lambda *a: None, now=FakeClock(), idle=idle)
    sampler.start()
    sampler.stop()
    assert idle.closed == 1
