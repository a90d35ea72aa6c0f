"""Real components a test needs: skipped on a developer's machine without them, a failure in
CI (`ANTIDRIFT_REQUIRE_REAL=1`, set by .ci/run), where a missing component is a broken set-up."""

from __future__ import annotations

import os

import pytest


def required() -> bool:
    """Whether a missing real component fails the run instead of skipping."""
    return any(
        os.environ.get(name, "") not in ("", "0")
        for name in ("ANTIDRIFT_REQUIRE_REAL", "ANTIDRIFT_REQUIRE_BROWSER")
    )


def need(available: object, missing: str) -> None:
    """Skip (or, in CI, fail) the calling test unless `available` is truthy."""
    if available:
        return
    if required():
        pytest.fail(f"{missing} (required: ANTIDRIFT_REQUIRE_REAL is set)", pytrace=False)
    pytest.skip(missing)
