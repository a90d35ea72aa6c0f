"""Task files: read with bounds, replaced atomically, never over an edit made meanwhile."""

from __future__ import annotations

import os

import pytest

from antidrift.tasks import Conflict, SourceError, textfile


def test_a_file_changed_after_it_was_read_is_not_overwritten(tmp_path):
    path = tmp_path / "todo.md"
    path.write_text("- [ ] one\n")
    snapshot = textfile.read(path, "todo.md")
    path.write_text("- [ ] one\n- [ ] typed in the editor meanwhile\n")
    with pytest.raises(Conflict, match="changed"):
        textfile.replace(snapshot, "- [x] one\n", "todo.md")
    assert path.read_text() == "- [ ] one\n- [ ] typed in the editor meanwhile\n"
    assert [p.name for p in tmp_path.iterdir()] == ["todo.md"]


def test_an_unchanged_file_is_replaced_whole(tmp_path):
    path = tmp_path / "todo.md"
    path.write_bytes(b"caf\xe9 \r\n")  # not UTF-8: the bytes round-trip
    snapshot = textfile.read(path, "todo.md")
    textfile.replace(snapshot, snapshot.text + "more", "todo.md")
    assert path.read_bytes() == b"caf\xe9 \r\nmore"


def test_lines_split_only_at_line_breaks():
    text = "a\x0cb\u2028c\r\nd\re\nf"
    assert textfile.split_lines(text) == ["a\x0cb\u2028c\r\n", "d\r", "e\n", "f"]
    assert "".join(textfile.split_lines(text)) == text
    assert textfile.split_lines("") == []


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda p: None, "does not exist"),
        (lambda p: p.mkdir(), "not a regular file"),
        (lambda p: os.mkfifo(p), "not a regular file"),  # open() must not hang on a FIFO
        (lambda p: p.write_bytes(b"x" * (textfile.MAX_FILE + 1)), "larger than 1024 KiB"),
    ],
)
def test_a_file_that_cannot_be_a_task_file_is_one_sentence(tmp_path, make, says):
    path = tmp_path / "todo.md"
    make(path)
    with pytest.raises(SourceError, match=says):
        textfile.read(path, "todo.md")
