"""Task files: read with bounds, replaced atomically, never over an edit made meanwhile, one
write-back at a time, never by a rename over a read-only or hard-linked file."""

from __future__ import annotations

import os
import threading

import pytest

from antidrift.tasks import Conflict, SourceError, textfile
from antidrift.tasks.markdown import MarkdownSource


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


def test_a_read_only_file_is_refused_and_left_as_it_was(tmp_path):
    path = tmp_path / "todo.md"
    path.write_text("- [ ] one\n")
    path.chmod(0o444)
    snapshot = textfile.read(path, "todo.md")
    with pytest.raises(SourceError, match="todo.md is read-only: nothing was written"):
        textfile.replace(snapshot, "- [x] one\n", "todo.md")
    assert path.read_text() == "- [ ] one\n" and oct(path.stat().st_mode & 0o777) == "0o444"
    assert [p.name for p in tmp_path.iterdir()] == ["todo.md"]


def test_a_hard_linked_file_is_refused_and_its_links_stay_one_file(tmp_path):
    path = tmp_path / "todo.md"
    path.write_text("- [ ] one\n")
    other = tmp_path / "vault-copy.md"
    os.link(path, other)
    snapshot = textfile.read(path, "todo.md")
    with pytest.raises(SourceError, match="other hard links, which a write would cut"):
        textfile.replace(snapshot, "- [x] one\n", "todo.md")
    assert path.read_text() == "- [ ] one\n"
    assert os.path.samefile(path, other)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["todo.md", "vault-copy.md"]


def test_write_backs_to_one_file_at_once_take_turns_and_none_is_lost(tmp_path):
    """Real threads, started together: without the per-file turn, two read the same bytes,
    both find the file unchanged before renaming, and the second rename drops a note."""
    path = tmp_path / "todo.md"
    path.write_text("".join(f"- [ ] Task {n}\n" for n in range(8)))
    source = MarkdownSource(path)
    tasks = source.tasks()
    start = threading.Barrier(len(tasks))
    said: list[str] = []

    def write(task):
        start.wait()
        said.append(source.write_back(task, f"note for {task.title}", done=False))

    for _ in range(3):
        threads = [threading.Thread(target=write, args=(t,)) for t in tasks]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        tasks = source.tasks()
    text = path.read_text()
    assert len(said) == 24
    assert [text.count(f"note for Task {n}\n") for n in range(8)] == [3] * 8
