"""The one test of "loopback": what counts as this machine, and that nothing else decides it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from antidrift.core.loopback import is_loopback

PACKAGE = Path(__file__).resolve().parents[2] / "antidrift"


@pytest.mark.parametrize(
    "host",
    ["localhost", "LOCALHOST", "127.0.0.1", "127.9.9.9", "127.1", "0x7f.1", "2130706433",
     "::1", "[::1]", "0:0:0:0:0:0:0:1"],
)  # fmt: skip
def test_this_machine(host):
    assert is_loopback(host)


@pytest.mark.parametrize(
    "host",
    ["", "10.1.2.3", "0.0.0.0", "::", "[::]", "192.0.2.7", "example.com", "localhost.example",
     "127.0.0.1.example", "127.0.0.1 evil.example", "127.0.0.1\tx", "127.0.0.1\n", "[::1",
     "::ffff:10.0.0.1", "128.0.0.1", "1.2.3.4 127.0.0.1"],
)  # fmt: skip
def test_not_this_machine(host):
    assert not is_loopback(host)


def test_no_other_module_decides_what_loopback_is():
    """settings (the AI URL, ActivityWatch's URL), serve's --host, the page's Host check and
    the ActivityWatch connection all ask antidrift.core.loopback."""
    deciding = re.compile(r"\.is_loopback\b|def \w*loopback\w*\(")
    found = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if path.name != "loopback.py" and deciding.search(path.read_text())
    ]
    assert found == []
    users = {
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "from antidrift.core.loopback import is_loopback" in path.read_text()
    }
    assert {
        "settings/kinds.py",
        "settings/reader.py",
        "server/serve.py",
        "web/security.py",
        "evidence/activitywatch.py",
    } <= users
