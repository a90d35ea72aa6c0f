"""`antidrift [flags]` means `antidrift serve [flags]`; the flags reach serve either way."""

from __future__ import annotations

import pytest

from antidrift.server import commands


@pytest.mark.parametrize("argv", [["--host", "0.0.0.0"], ["serve", "--host", "0.0.0.0"]])
def test_flags_without_or_with_the_serve_command_reach_serve(argv, capsys):
    assert commands.main(argv) == 2  # refused before anything binds: a non-loopback host
    assert "Refusing to listen on 0.0.0.0" in capsys.readouterr().err


def test_doctor_is_its_own_command(capsys):
    assert commands.main(["doctor"]) == 0
    out = capsys.readouterr().out
    for name in ("claude", "codex", "command"):
        assert f"  {name}" in out
