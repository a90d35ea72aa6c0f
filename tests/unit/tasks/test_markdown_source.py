"""The Markdown task file: open `- [ ]` lines listed; a note adds one line under the task, done
turns its box to `[x]`, and every other byte of the file stays as it was."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from antidrift.tasks import Gone, Task
from antidrift.tasks.markdown import MarkdownSource, Moved
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


def test_ids_tell_same_titles_apart_and_follow_a_task_through_edits_around_it(tmp_path):
    path = write(tmp_path, "- [ ] Call Sam\n- [ ] Call Sam\n- [ ] Ship it\n")
    first, second, ship = MarkdownSource(path).tasks()
    assert first.id != second.id and first.source == "markdown"
    path.write_text("New heading\n\n- [ ] Call Sam\n- [ ] Call Sam\n- [ ] Ship it\n- [x] Done\n")
    source = MarkdownSource(path)
    source.write_back(first, "one", done=False)
    source.write_back(second, "two", done=False)
    source.write_back(ship, "three", done=False)
    assert path.read_text() == (
        "New heading\n\n- [ ] Call Sam\n  - one\n- [ ] Call Sam\n  - two\n- [ ] Ship it\n"
        "  - three\n- [x] Done\n"
    )


def test_a_same_titled_task_added_beside_the_chosen_one_never_takes_its_write(tmp_path):
    """The id by title and occurrence alone would now name the newcomer above: the place
    (the lines around the task) matches neither line, so nothing is written (409)."""
    path = write(tmp_path, "# Week\n- [ ] Call the bank\n- [ ] Ship it\n")
    source = MarkdownSource(path)
    task = only(source, "Call the bank")
    added = "# Week\n- [ ] Call the bank\n- [ ] Call the bank\n- [ ] Ship it\n"
    path.write_text(added)
    for done in (True, False):
        with pytest.raises(Moved, match="same title: nothing was written"):
            source.write_back(task, NOTE, done=done)
    assert path.read_text() == added
    assert source.current(task) is None, "nor can it be picked again from an old listing"


def test_the_chosen_one_of_same_titled_tasks_is_found_where_it_moved(tmp_path):
    path = write(tmp_path, "# Home\n- [ ] Call Sam\n\n# Work\n- [ ] Call Sam\n")
    source = MarkdownSource(path)
    work = source.tasks()[1]
    path.write_text("# Work\n- [ ] Call Sam\n\n# Home\n- [ ] Call Sam\n")  # sections swapped
    source.write_back(work, NOTE, done=True)
    assert path.read_text() == "# Work\n- [x] Call Sam\n\n# Home\n- [ ] Call Sam\n"


def test_notes_and_ticks_do_not_move_a_same_titled_neighbour(tmp_path):
    path = write(tmp_path, "- [ ] Call Sam\n- [ ] Call Sam\n")
    source = MarkdownSource(path)
    first, second = source.tasks()
    source.write_back(first, "one", done=False)
    source.write_back(first, NOTE, done=True)
    source.write_back(second, "two", done=False)
    source.write_back(second, NOTE, done=True)
    assert path.read_text() == "- [x] Call Sam\n  - one\n- [x] Call Sam\n  - two\n"


def test_an_id_from_before_places_were_kept_still_finds_its_task(tmp_path):
    path = write(tmp_path, "- [ ] Call Sam\n- [ ] Call Sam\n")
    source = MarkdownSource(path)
    second = source.tasks()[1]
    older = Task("markdown", second.id.rsplit("-", 1)[0], second.title)  # as 0.4 kept it
    source.write_back(older, NOTE, done=True)
    assert path.read_text() == "- [ ] Call Sam\n- [x] Call Sam\n"


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


def test_done_turns_that_box_to_x_and_changes_no_other_byte(tmp_path):
    original = "intro\r\n\t1. [ ] Ship it  \r\n   - sub\r\nafter"
    path = write(tmp_path, original)
    source = MarkdownSource(path)
    said = source.write_back(only(source, "Ship it"), NOTE, done=True)
    assert path.read_bytes() == original.replace("[ ]", "[x]").encode()  # spaces kept, no line
    assert said == "Ticked the task in todo.md." and source.tasks() == []


@pytest.mark.parametrize("box", ["x", "X"])
def test_done_on_a_task_ticked_meanwhile_leaves_the_file_as_it_is(tmp_path, box):
    path = write(tmp_path, "- [ ] Ship it   \n- [ ] Other\n")
    source = MarkdownSource(path)
    task = only(source, "Ship it")
    ticked = f"- [{box}] Ship it   \n- [ ] Other\n"  # ticked in the editor, trailing spaces
    path.write_text(ticked)
    assert source.write_back(task, NOTE, done=True) == "The task was already ticked in todo.md."
    assert path.read_bytes() == ticked.encode()


def test_a_note_under_a_ticked_task_keeps_its_box_and_its_trailing_spaces(tmp_path):
    path = write(tmp_path, "- [ ] Ship it \t \n")
    source = MarkdownSource(path)
    task = only(source, "Ship it")
    path.write_text("- [X] Ship it \t \n")
    source.write_back(task, NOTE, done=False)
    assert path.read_text() == f"- [X] Ship it \t \n  - {NOTE}\n"


def test_a_last_line_without_newline_stays_without_one(tmp_path):
    path = write(tmp_path, "a\r\n- [ ] Last")
    source = MarkdownSource(path)
    source.write_back(only(source, "Last"), NOTE, done=False)
    assert path.read_bytes() == f"a\r\n- [ ] Last\r\n  - {NOTE}".encode()


@pytest.mark.parametrize("done", [True, False])
def test_trailing_spaces_of_a_last_line_without_newline_stay(tmp_path, done):
    path = write(tmp_path, "a\n- [ ] Last \t ")
    source = MarkdownSource(path)
    source.write_back(only(source, "Last"), NOTE, done=done)
    expected = "a\n- [x] Last \t " if done else f"a\n- [ ] Last \t \n  - {NOTE}"
    assert path.read_bytes() == expected.encode()


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


# -- the property: nothing but the box (done) or the one added line (note) changes -------------

_KEPT = tempfile.TemporaryDirectory(prefix="antidrift-md-")  # removed as the run ends
_DIR = _KEPT.name
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
def test_write_back_changes_nothing_but_the_box_or_the_added_line(
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

    if tick:  # done: that box and not another byte
        at = len(before) + line.index(b"[ ]") + 1
        assert changed == original[:at] + b"x" + original[at + 1 :]
        return
    expected_base = original
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
