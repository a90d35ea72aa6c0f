"""The Markdown task file: open `- [ ]` lines listed; a write-back adds one line under the
task (and ticks it) and leaves every other byte of the file as it was."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from antidrift.tasks import Gone, Task
from antidrift.tasks.markdown import MarkdownSource
from antidrift.tasks.textfile import split_lines

NOTE = "AntiDrift 2026-12-03: met — drafted it (25 min)"


def write(tmp_path: Path, data: bytes | str, name: str = "todo.md") -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def only(source: MarkdownSource, title: str) -> Task:
    return next(t for t in source.tasks() if t.title == title)


def test_lists_open_boxes_top_to_bottom_and_skips_ticked_ones_and_code(tmp_path):
    path = write(
        tmp_path,
        "# Week\n"
        "- [ ] Write the intro\n"
        "- [x] Already done\n"
        "  * [ ] Nested, star bullet\n"
        "1. [ ] Numbered one\n"
        "```\n- [ ] inside a code block\n```\n"
        "- [ ]    \n"  # a box with no text is not a task
        "-[ ] no space after the marker\n"
        "+ [ ] Plus bullet\n",
    )
    titles = [t.title for t in MarkdownSource(path).tasks()]
    assert titles == ["Write the intro", "Nested, star bullet", "Numbered one", "Plus bullet"]


def test_ids_survive_edits_around_the_task_and_tell_same_titles_apart(tmp_path):
    path = write(tmp_path, "- [ ] Call Sam\n- [ ] Call Sam\n")
    first, second = MarkdownSource(path).tasks()
    assert first.id != second.id and first.source == "markdown"
    path.write_text("New heading\n\n- [x] Something else\n- [ ] Call Sam\n- [ ] Call Sam\n")
    assert [t.id for t in MarkdownSource(path).tasks()] == [first.id, second.id]


def test_a_note_goes_under_the_task_after_its_sub_items(tmp_path):
    path = write(
        tmp_path,
        "- [ ] Ship the report\n    - [ ] sub step\n    - earlier note\n\n- [ ] Next task\n",
    )
    source = MarkdownSource(path)
    said = source.write_back(only(source, "Ship the report"), NOTE, done=False)
    assert path.read_text() == (
        "- [ ] Ship the report\n    - [ ] sub step\n    - earlier note\n"
        f"  - {NOTE}\n\n- [ ] Next task\n"
    )
    assert "todo.md" in said


def test_done_ticks_the_box_and_keeps_the_line_ending_and_indent(tmp_path):
    path = write(tmp_path, "intro\r\n\t1. [ ] Ship it\r\nafter\r\n")
    source = MarkdownSource(path)
    source.write_back(only(source, "Ship it"), NOTE, done=True)
    assert path.read_bytes() == (
        f"intro\r\n\t1. [x] Ship it\r\n\t   - {NOTE}\r\nafter\r\n".encode()
    )
    assert source.tasks() == []


def test_a_last_line_without_newline_stays_without_one(tmp_path):
    path = write(tmp_path, "a\r\n- [ ] Last")
    source = MarkdownSource(path)
    source.write_back(only(source, "Last"), NOTE, done=False)
    assert path.read_bytes() == f"a\r\n- [ ] Last\r\n  - {NOTE}".encode()


def test_a_note_is_one_line_whatever_the_user_typed(tmp_path):
    path = write(tmp_path, "- [ ] Task\n")
    source = MarkdownSource(path)
    source.write_back(only(source, "Task"), "met\nsecond line\r\n- [ ] not a task", done=False)
    assert path.read_text() == "- [ ] Task\n  - met second line - [ ] not a task\n"
    assert [t.title for t in source.tasks()] == ["Task"]


def test_a_task_that_left_the_file_is_gone_and_nothing_is_written(tmp_path):
    path = write(tmp_path, "- [ ] Ship it\n")
    source = MarkdownSource(path)
    task = only(source, "Ship it")
    path.write_text("- [ ] Something else\n")
    with pytest.raises(Gone):
        source.write_back(task, NOTE, done=False)
    assert path.read_text() == "- [ ] Something else\n"


def test_permissions_survive_and_no_temporary_file_is_left(tmp_path):
    path = write(tmp_path, "- [ ] Ship it\n")
    path.chmod(0o640)
    source = MarkdownSource(path)
    source.write_back(only(source, "Ship it"), NOTE, done=True)
    assert oct(path.stat().st_mode & 0o777) == "0o640"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["todo.md"]


def test_a_symlinked_note_is_edited_where_it_lives(tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    real = write(vault, "- [ ] Ship it\n")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    source = MarkdownSource(link)
    source.write_back(only(source, "Ship it"), NOTE, done=False)
    assert link.is_symlink()
    assert real.read_text() == f"- [ ] Ship it\n  - {NOTE}\n"


# -- the property: nothing but the one added line (and the box) changes -----------------------

_DIR = tempfile.mkdtemp(prefix="antidrift-md-")
TITLE = "Ship the Qz7 report"  # hypothesis' text will not spell this by chance
ENDINGS = ["\n", "\r\n", "\r"]


def _surrounding() -> st.SearchStrategy[bytes]:
    # Text with many line breaks, list-like lines and invalid UTF-8 bytes mixed in.
    piece = st.one_of(
        st.text(max_size=30),
        st.sampled_from(ENDINGS + ["- [ ] other task", "    - child", "\t", "\ufeff", "[x]"]),
        st.binary(max_size=6),
    )
    return st.lists(piece, max_size=12).map(
        lambda parts: b"".join(
            p if isinstance(p, bytes) else p.encode("utf-8", "surrogatepass") for p in parts
        )
    )


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    before=_surrounding(),
    after=_surrounding(),
    indent=st.sampled_from(["", "  ", "\t", "    "]),
    marker=st.sampled_from(["-", "*", "+", "1.", "12)"]),
    ending=st.sampled_from(ENDINGS + [""]),
    joint=st.sampled_from(ENDINGS),
    tick=st.booleans(),
)
@example(before=b"", after=b"", indent="", marker="-", ending="", joint="\n", tick=True)
@example(
    before=b"\xef\xbb\xbf", after=b"", indent="", marker="-", ending="\n", joint="\n", tick=True
)
def test_write_back_changes_nothing_but_the_added_line_and_the_box(
    before, after, indent, marker, ending, joint, tick
):
    if before and not before.endswith((b"\n", b"\r")):
        before += joint.encode()
    if not ending:
        after = b""
    line = f"{indent}{marker} [ ] {TITLE}{ending}".encode()
    original = before + line + after
    assume(b"```" not in before and b"~~~" not in before)  # our task is not inside code
    path = Path(_DIR) / "prop.md"
    path.write_bytes(original)
    source = MarkdownSource(path)
    task = next((t for t in source.tasks() if t.title == TITLE), None)
    assert task is not None
    source.write_back(task, NOTE, done=tick)
    changed = path.read_bytes()
    os.unlink(path)

    expected_base = original
    if tick:
        at = len(before) + line.index(b"[ ]") + 1
        expected_base = original[:at] + b"x" + original[at + 1 :]
    # Exactly one line holds the note; taking it out gives back every other byte.
    text = changed.decode("utf-8", "surrogateescape")
    lines = split_lines(text)  # at \r\n, \n and \r only, as the source splits
    holding = [i for i, ln in enumerate(lines) if NOTE in ln]
    assert len(holding) == 1
    index = holding[0]
    removed = lines[index]
    assert removed.lstrip(" \t").startswith(f"{'-' if marker[0].isdigit() else marker} {NOTE}")
    rest = lines[:index] + lines[index + 1 :]
    if not removed.endswith(("\n", "\r")):  # added at the end: the line before gained an ending
        rest[index - 1] = rest[index - 1].rstrip("\r\n")
    assert "".join(rest).encode("utf-8", "surrogateescape") == expected_base
    # It sits below the task (after the task's own sub-items, which are more indented).
    task_line = next(i for i, ln in enumerate(lines) if TITLE in ln)
    assert task_line < index
