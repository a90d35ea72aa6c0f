"""The one bounded reader of outside data (core/outside.py): JSON's structure is bounded
before it costs memory, and Firefox's session store, however well it compresses, is read
through it (issue 41: a valid 514 KiB store took 12 s and 3.2 GB as JSON)."""

from __future__ import annotations

import lz4.block
import pytest

from antidrift.core.outside import MAX_CONTAINERS, Unreadable, Why, parse_json, read_file
from antidrift.evidence.firefox import MAGIC, MAX_LISTS, FirefoxSessions
from antidrift.evidence.probe import ProbeError

MANY = "[" + ",".join(["[]"] * (MAX_CONTAINERS + 1)) + "]"
MANY_TABS = "[" + ",".join(["[]"] * (MAX_LISTS + 1)) + "]"


def test_json_with_more_lists_than_the_bound_is_refused_before_it_is_parsed():
    with pytest.raises(Unreadable) as caught:
        parse_json(MANY, what="it")
    assert caught.value.why is Why.TOO_MANY and "more than 500,000" in caught.value.message
    assert parse_json("[" + ",".join(["[]"] * 1000) + "]", what="it") == [[]] * 1000


def test_json_nested_past_the_parser_is_a_refusal_not_a_crash():
    with pytest.raises(Unreadable) as caught:
        parse_json("[" * 50_000 + "]" * 50_000, what="it")
    assert caught.value.why is Why.TOO_DEEP


def test_a_file_that_grew_past_its_bound_is_refused(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"x" * 2048)
    assert read_file(path, max_bytes=2048) == b"x" * 2048
    with pytest.raises(Unreadable, match="larger than 1 KiB"):
        read_file(path, max_bytes=1024)


def test_a_session_store_that_decompresses_to_millions_of_lists_is_refused(tmp_path):
    home = tmp_path / "home"
    profile = home / ".mozilla" / "firefox" / "p"
    (profile / "sessionstore-backups").mkdir(parents=True)
    (profile.parent / "profiles.ini").write_text("[Profile0]\nPath=p\nDefault=1\n")
    raw = MANY_TABS.encode()
    packed = MAGIC + len(raw).to_bytes(4, "little") + lz4.block.compress(raw, store_size=False)
    assert len(packed) < len(raw) // 50  # it compresses to almost nothing
    (profile / "sessionstore-backups" / "recovery.jsonlz4").write_bytes(packed)
    with pytest.raises(ProbeError, match="holds more than 1,000,000 objects and lists"):
        FirefoxSessions({"HOME": str(home)}).tab("firefox", "Page — Mozilla Firefox")


def test_text_that_is_no_json_is_said_with_where_never_with_what():
    with pytest.raises(Unreadable) as caught:
        parse_json('{\n  "ai_model": "secret-model",\n}', what="it")
    assert caught.value.message == "it holds no JSON (line 3 column 1)"
