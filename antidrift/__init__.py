"""AntiDrift: commit to one next action, keep the evidence, review it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from antidrift.server.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    # `antidrift:create_app()` (gunicorn) and `flask --app antidrift run` find the one app
    # factory here; it is imported on first use so that `import antidrift.core.domain` (or drift,
    # ai, the command line) loads no Flask, no controller and no web module.
    if name == "create_app":
        from antidrift.server.app import create_app

        return create_app
    raise AttributeError(f"module 'antidrift' has no attribute {name!r}")
