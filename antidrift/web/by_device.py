"""The review's evidence by device (Guard here too): the table of where the focus went, with
the windows the user's other machines watched for the commitment beside its own, each of
those rows naming its machine ("on laptop") and carrying that machine's verdict. Shares are
of all the window time watched, on every machine; without another machine's evidence the
table is the commitment's own, as before."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from antidrift.core.device_evidence import DeviceEvidence
from antidrift.core.drift_records import Episode, Judgement, Window
from antidrift.core.insights import WindowTime
from antidrift.drift.window_key import window_of

OWN_ROWS = 12  # the commitment's own longest windows shown (as before)
DEVICE_ROWS = 8  # and each other machine's


@dataclass(frozen=True)
class ReviewRow:
    """One window's row in the review's table."""

    app: str
    title: str
    seconds: float
    fraction: float  # of all the window time watched, on every machine
    mark: Judgement | None  # what decided it (that machine's verdict for another's row)
    judged: bool  # whether its machine's guard judged any window (else no "not judged")
    device: str | None = None  # another machine's name; None: the commitment's own


def device_name(evidence: DeviceEvidence) -> str:
    return evidence.device or "another machine"


def review_rows(
    focus: WindowTime,
    marks: Mapping[tuple[str, str], Judgement],
    others: Sequence[DeviceEvidence] = (),
) -> tuple[ReviewRow, ...]:
    """The commitment's longest windows and each other machine's, longest first."""
    whole = sum(a.seconds for a in focus.apps) + sum(e.seconds for e in others)
    rows = [
        ReviewRow(
            s.app,
            s.title,
            s.seconds,
            s.seconds / whole if others and whole > 0 else s.fraction,
            marks.get((s.app, s.title)),
            bool(marks),
        )
        for s in focus.windows[:OWN_ROWS]
    ]
    for e in others:
        windows: dict[tuple[str, str], float] = {}
        for app, title, _place, secs in e.windows:  # one row per window, all its sites
            windows[(app, title)] = windows.get((app, title), 0.0) + secs
        longest = sorted(windows.items(), key=lambda kv: (-kv[1], kv[0]))[:DEVICE_ROWS]
        rows += [
            ReviewRow(
                app,
                title,
                secs,
                secs / whole if whole > 0 else 0.0,
                e.verdicts.get(window_of(app, title)),
                bool(e.verdicts),
                device_name(e),
            )
            for (app, title), secs in longest
        ]
    return tuple(sorted(rows, key=lambda r: (-r.seconds, r.device is not None, r.app, r.title)))


def episodes_by_device(
    own: Sequence[Episode], others: Sequence[DeviceEvidence] = ()
) -> tuple[tuple[Episode, str | None], ...]:
    """The drift episodes of every machine, in the order they began, each with the name of
    the other machine it was on (None: the commitment's own)."""
    found = [(e, None) for e in own] + [(e, device_name(d)) for d in others for e in d.episodes]
    return tuple(sorted(found, key=lambda pair: pair[0].started_at))


def verdicts_by_device(
    own: Sequence[tuple[Window, Judgement]], others: Sequence[DeviceEvidence] = ()
) -> tuple[tuple[Window, Judgement, str | None], ...]:
    """What decided each window: the commitment's own, then each other machine's."""
    return tuple((w, j, None) for w, j in own) + tuple(
        (w, j, device_name(d)) for d in others for w, j in d.verdicts.items()
    )
