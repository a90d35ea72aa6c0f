"""A warm process answers one exchange at a time: a second caller is refused at once, even
when both ask in the same instant."""

from __future__ import annotations

import contextlib
import threading
import time

import pytest

from antidrift.process.warm import Warm, start

ECHO = "for line in sys.stdin:\n    print(line, end='', flush=True)\n"


class BothAskAtOnce(Warm):
    """Holds the first reader of a `_busy` flag until a second caller has read it too: the
    instant in which a check-then-set without a lock lets both callers through. Code that
    takes a lock instead never reads the flag, and this changes nothing."""

    meeting = threading.Barrier(2, timeout=2)

    @property
    def _busy(self) -> bool:
        flag = self.__dict__.get("_busy", False)
        with contextlib.suppress(threading.BrokenBarrierError):  # only one caller came
            self.meeting.wait()
        return flag

    @_busy.setter
    def _busy(self, value: bool) -> None:
        self.__dict__["_busy"] = value


@pytest.fixture
def kept(write_cli):
    made = start([str(write_cli("echo", ECHO))], name="echo")
    yield made
    made.stop()


class Caller(threading.Thread):
    """One exchange in a thread; its answer stays inside the exchange until `release`."""

    def __init__(self, kept: Warm, line: bytes, release: threading.Event, told: threading.Event):
        super().__init__()
        self.kept, self.line, self.release, self.told = kept, line, release, told
        self.outcome: list[bytes] | Exception | None = None

    def hold(self, _line: bytes) -> bool:
        self.release.wait(2)
        return True

    def run(self) -> None:
        try:
            self.outcome = self.kept.exchange(self.line, done=self.hold, timeout=10)
        except RuntimeError as err:
            self.outcome = err
        self.told.set()


def test_two_callers_in_the_same_instant_one_is_refused(kept):
    kept.__class__ = BothAskAtOnce
    BothAskAtOnce.meeting.reset()
    release, told = threading.Event(), threading.Event()
    callers = [Caller(kept, line, release, told) for line in (b"a\n", b"b\n")]
    for caller in callers:
        caller.start()
    # The refusal comes at once, while the caller let in is still inside its exchange.
    told.wait(2)
    refused = [c.outcome for c in callers if isinstance(c.outcome, RuntimeError)]
    release.set()
    for caller in callers:
        caller.join(5)
    assert len(refused) == 1, f"both callers were let in: {[c.outcome for c in callers]}"
    assert "already answering" in str(refused[0])
    answered = [c for c in callers if isinstance(c.outcome, list)]
    assert len(answered) == 1 and answered[0].outcome == [answered[0].line]


def test_after_an_exchange_the_next_one_is_welcome(kept):
    assert kept.ready
    assert kept.exchange(b"one\n", done=lambda line: True, timeout=10) == [b"one\n"]
    assert kept.ready
    assert kept.exchange(b"two\n", done=lambda line: True, timeout=10) == [b"two\n"]


def test_a_process_that_speaks_on_its_own_is_read_without_waiting(write_cli):
    # A watcher (swayidle) prints when something happens: printed() takes what came, at once.
    speaker = start([str(write_cli("speaker", "print('idle', flush=True)\ntime.sleep(0.3)\n"
                                   "print('back', flush=True)\n"))], name="speaker")  # fmt: skip
    try:
        seen = speaker.printed()
        assert seen in ([], [b"idle\n"])  # nothing waits for it
        deadline = time.monotonic() + 10
        while b"" not in seen and time.monotonic() < deadline:
            seen += speaker.printed()
            time.sleep(0.05)
        assert seen == [b"idle\n", b"back\n", b""]  # its end, last
    finally:
        speaker.stop()
