"""todo.txt: open lines, priority first; done marks the line complete and changes nothing else."""

from __future__ import annotations

from datetime import date

import pytest

from antidrift.tasks import Gone
from antidrift.tasks.todotxt import TodoTxtSource

TODAY = date(2026, 12, 3)


def source_for(tmp_path, text: str | bytes) -> TodoTxtSource:
    path = tmp_path / "todo.txt"
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return TodoTxtSource(path, today=lambda: TODAY)


def test_open_lines_priority_first_then_file_order(tmp_path):
    source = source_for(
        tmp_path,
        "Water plants @home\n"
        "x 2026-12-01 Already done\n"
        "(B) 2026-11-30 Call the bank +money\n"
        "\n"
        "(A) Book flights\n"
        "Read chapter 3\n",
    )
    titles = [t.title for t in source.tasks()]
    assert titles == [
        "Book flights",
        "Call the bank +money",
        "Water plants @home",
        "Read chapter 3",
    ]
    assert all(t.source == "todotxt" and t.url is None for t in source.tasks())


def test_done_completes_the_line_keeping_date_and_priority(tmp_path):
    source = source_for(tmp_path, "first\r\n(B) 2026-11-30 Call the bank +money\r\nlast")
    task = next(t for t in source.tasks() if t.title.startswith("Call"))
    said = source.write_back(task, "ignored", done=True)
    assert source.path.read_bytes() == (
        b"first\r\nx 2026-12-03 2026-11-30 Call the bank +money pri:B\r\nlast"
    )
    assert said == "Marked the task done in todo.txt."
    with pytest.raises(Gone):
        source.write_back(task, "again", done=True)


def test_done_on_the_last_line_without_newline(tmp_path):
    source = source_for(tmp_path, b"caf\xe9\nRead chapter 3")
    (task,) = [t for t in source.tasks() if t.title == "Read chapter 3"]
    source.write_back(task, "", done=True)
    assert source.path.read_bytes() == b"caf\xe9\nx 2026-12-03 Read chapter 3"
