"""What each source makes of its CLI's output, and the `tasks` setting's syntax."""

from __future__ import annotations

import json
import re

import pytest

from antidrift.settings.kinds import Tasks
from antidrift.tasks import SOURCES, SourceError, SourceSpec, parse
from antidrift.tasks.github import parse_issues
from antidrift.tasks.source import MAX_TITLE, clean_title
from antidrift.tasks.taskwarrior import parse_export

UUID = "13841924-e10e-45de-821d-9c9ceeb65dc8"


def test_the_setting_names_sources_and_file_paths():
    assert parse(" taskwarrior , GitHub,markdown:~/notes/todo.md,, todotxt:/srv/a:b/todo.txt") == (
        SourceSpec("taskwarrior"),
        SourceSpec("github"),
        SourceSpec("markdown", "~/notes/todo.md"),
        SourceSpec("todotxt", "/srv/a:b/todo.txt"),
    )
    assert parse("") == ()
    assert parse("github, github") == (SourceSpec("github"),)


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("jira", "'jira' is not a task source"),
        ("markdown", "markdown needs the file's path, as markdown:/path/to/file"),
        ("markdown:", "markdown needs the file's path, as markdown:/path/to/file"),
        ("todotxt:notes/todo.txt", "todotxt:notes/todo.txt is not a full path: start it with /"),
        ("github:me", "github takes no path"),
        ("markdown:/tmp/a\x07b.md", "the path after markdown: contains control characters"),
    ],
)
def test_a_bad_setting_names_its_one_fault(value, says):
    with pytest.raises(ValueError, match="^" + re.escape(says)):
        parse(value)


def test_the_settings_reader_refuses_with_the_registrys_words():
    # settings/kinds.py reads ANTIDRIFT_TASKS through this registry: one validator.
    with pytest.raises(ValueError) as refused:
        Tasks().parse("taskwarrior, jira")
    assert str(refused.value) == (
        "task sources separated by commas: taskwarrior, github, markdown:<path>,"
        " todotxt:<path> ('jira' is not a task source)"
    )
    assert Tasks().parse(" GitHub ,markdown:~/n.md, github") == ("github", "markdown:~/n.md")


def test_the_registry_is_the_one_list_of_sources():
    assert list(SOURCES) == ["taskwarrior", "github", "markdown", "todotxt"]


def test_titles_are_one_printable_line_and_bounded():
    assert clean_title("  Fix\tthe\n\nbug\u2028now\x1b[31m ") == "Fix the bug now [31m"
    assert clean_title(None) == "" and clean_title(42) == ""
    long = clean_title("x" * 2000)
    assert len(long) == MAX_TITLE and long.endswith("…")


def test_taskwarrior_export_keeps_pending_tasks_in_the_reports_order():
    text = json.dumps(
        [
            {"uuid": UUID, "description": "Write the report", "status": "pending"},
            {"uuid": "not-a-uuid", "description": "odd", "status": "pending"},
            {"uuid": UUID.replace("1", "2"), "description": "Gone", "status": "completed"},
            {"uuid": UUID.replace("3", "4"), "description": " ", "status": "pending"},
            "junk",
        ]
    )
    tasks = parse_export(text)
    assert [(t.source, t.id, t.title, t.url) for t in tasks] == [
        ("taskwarrior", UUID, "Write the report", None)
    ]


def test_a_control_character_in_one_description_hides_no_task():
    """task writes an escape or a bell into its JSON raw (strict JSON refuses them): that
    title is cleaned, and a row that is still not JSON is left out alone."""
    good = {"uuid": UUID, "description": "Write the report", "status": "pending"}
    raw = json.dumps({"uuid": UUID.replace("1", "2"), "description": "Red", "status": "pending"})
    raw = raw.replace("Red", "\x1b[31mRed\x1b[0m \x07bell")
    broken = '{"uuid": "' + UUID.replace("1", "3") + '", "description": "bad \\x", "status"'
    text = f"[\n{json.dumps(good)},\n{raw},\n{broken},\n{json.dumps(good)}\n]\n"
    tasks = parse_export(text)
    assert [t.title for t in tasks] == ["Write the report", "[31mRed [0m bell", "Write the report"]


@pytest.mark.parametrize("text", ["", "TASKRC override: x\n[]", '{"a": 1}', "[" * 100000])
def test_taskwarrior_output_that_is_no_export_is_a_sentence(text):
    with pytest.raises(SourceError, match="Taskwarrior"):
        parse_export(text)


def test_github_issues_become_tasks_with_their_page():
    text = json.dumps(
        [
            {
                "number": 7,
                "title": "Fix login",
                "url": "https://github.com/o/r/issues/7",
                "repo": "o/r",
            },
            {"number": "8", "title": "number as text", "url": "https://x", "repo": "o/r"},
            {"number": 9, "title": "bad repo", "url": "https://x", "repo": "../evil"},
            {"number": 10, "title": "dot repo", "url": "https://x", "repo": "o/.."},
            {"number": 11, "title": "odd url", "url": "javascript:alert(1)", "repo": "o/r"},
        ]
    )
    tasks = parse_issues(text)
    assert [(t.id, t.title, t.url) for t in tasks] == [
        ("o/r#7", "Fix login", "https://github.com/o/r/issues/7"),
        ("o/r#11", "odd url", None),
    ]
