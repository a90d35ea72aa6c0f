"""The subprocess seam's tests use the same fake-CLI fixtures as the AI backends'."""

from tests.integration.ai.conftest import fake_bin, procs, write_cli  # noqa: F401
