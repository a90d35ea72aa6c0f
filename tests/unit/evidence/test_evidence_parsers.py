"""The pure parsers of each tool's answer, against the recorded real formats
(tests/fixtures/evidence/README.md says where each came from)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from antidrift.evidence import activitywatch, gnome, hyprland, kde, macos, sway
from antidrift.evidence.probe import ProbeError

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "evidence"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


# --- sway ---------------------------------------------------------------------------------


def test_sway_reports_the_focused_wayland_window_by_app_id_and_title():
    assert sway.parse(fixture("sway-get_tree.json")) == ("editor-x", "Notes — draft")


def test_sway_reports_an_xwayland_window_by_its_x11_class():
    assert sway.parse(fixture("sway-get_tree-xwayland.json")) == (
        "thunderbird",
        "Inbox — Thunderbird",
    )


def test_sway_reports_no_window_when_an_empty_workspace_has_focus():
    assert sway.parse(fixture("sway-get_tree-empty-workspace.json")) is None


def test_sway_finds_a_focused_floating_window():
    tree = json.loads(fixture("sway-get_tree.json"))
    for node in _walk(tree):
        node["focused"] = False
    workspace = next(n for n in _walk(tree) if n.get("type") == "workspace" and n["name"] == "1")
    workspace["floating_nodes"] = [
        {"type": "floating_con", "focused": True, "app_id": "pavucontrol", "name": "Volume"}
    ]
    assert sway.parse(json.dumps(tree)) == ("pavucontrol", "Volume")


def test_sway_tree_without_a_focused_node_is_no_window():
    tree = json.loads(fixture("sway-get_tree.json"))
    for node in _walk(tree):
        node["focused"] = False
    assert sway.parse(json.dumps(tree)) is None


@pytest.mark.parametrize("text", ["", "not json", "[1, 2]", "[" * 100_000])
def test_sway_output_that_is_no_tree_is_a_probe_error(text):
    with pytest.raises(ProbeError, match="no JSON tree"):
        sway.parse(text)


def _walk(node):
    yield node
    for child in node.get("nodes", []) + node.get("floating_nodes", []):
        yield from _walk(child)


# --- Hyprland -----------------------------------------------------------------------------


def test_hyprland_reports_class_and_title():
    assert hyprland.parse(fixture("hyprctl-activewindow.json")) == (
        "org.mozilla.firefox",
        'Pull requests · "antidrift" — Mozilla Firefox',
    )


def test_hyprland_reports_no_window_for_its_empty_object():
    assert hyprland.parse(fixture("hyprctl-activewindow-none.json")) is None


def test_hyprland_falls_back_to_the_initial_class():
    window = json.loads(fixture("hyprctl-activewindow.json")) | {"class": ""}
    assert hyprland.parse(json.dumps(window))[0] == "org.mozilla.firefox"


@pytest.mark.parametrize("text", ["Secret — Bank {", "unknown request", "[]", '"Secret"'])
def test_hyprland_output_that_is_no_window_is_a_probe_error_without_echoing_it(text):
    with pytest.raises(ProbeError) as raised:
        hyprland.parse(text)
    assert "Secret" not in str(raised.value) and "unknown" not in str(raised.value)


# --- KDE ----------------------------------------------------------------------------------


def test_kde_reports_class_then_caption():
    assert kde.parse(fixture("kdotool-active.txt")) == ("org.kde.dolphin", "Documents — Dolphin")


def test_kde_reports_no_window_when_kdotool_printed_nothing():
    assert kde.parse("") is None
    assert kde.parse("\n") is None


def test_kde_keeps_a_caption_that_spans_lines_on_one_line():
    assert kde.parse("konsole\nfirst\nsecond\n") == ("konsole", "first second")


# --- GNOME --------------------------------------------------------------------------------


def test_gnome_reports_wm_class_and_title_from_gdbus_output():
    assert gnome.parse(fixture("gdbus-focused-window.txt")) == (
        "org.gnome.TextEditor",
        "Notes — Text Editor",
    )


def test_gnome_undoes_gdbus_double_quoting_and_escapes():
    # gdbus switched to "…" because the title holds a ' ; the JSON inside has \" \\ \t.
    assert gnome.parse(fixture("gdbus-focused-window-quote.txt")) == (
        "org.gnome.TextEditor",
        'Bob\'s "notes" — a\\b\ttab',
    )


def test_gnome_reports_no_window_for_the_extensions_empty_object():
    assert gnome.parse(fixture("gdbus-focused-window-none.txt")) is None


@pytest.mark.parametrize(
    ("printed", "expected"),
    [
        (r"('a\\b',)", "a\\b"),
        (r"('it\'s',)", "it's"),
        (r"('\u00e9\U0001f3af\n',)", "é🎯\n"),
        ("('',)", ""),
    ],
)
def test_gvariant_strings_are_unescaped_like_glib_prints_them(printed, expected):
    assert gnome.gvariant_string(printed) == expected


@pytest.mark.parametrize("text", ["", "()", "('x')", "(42,)", "('{\"title\": 1',)", "('[]',)"])
def test_gnome_output_that_is_no_window_is_a_probe_error(text):
    with pytest.raises(ProbeError):
        gnome.parse(text)


# --- macOS --------------------------------------------------------------------------------


def test_macos_parses_app_then_title():
    assert macos.parse("Safari\nStart Page\n") == ("Safari", "Start Page")
    assert macos.parse("\n") is None


# --- ActivityWatch ------------------------------------------------------------------------

NOW = datetime(2026, 12, 3, 6, 45, tzinfo=UTC)


def aw_events(*, at: datetime, duration: float = 0.0, **data) -> str:
    event = {"id": 7, "timestamp": at.isoformat(), "duration": duration, "data": data}
    return json.dumps([event])


def test_activitywatch_reports_the_newest_events_app_and_title():
    text = aw_events(at=NOW - timedelta(seconds=3), app="Firefox", title="Inbox — Mail")
    assert activitywatch.parse_events(text, NOW) == ("Firefox", "Inbox — Mail")


def test_activitywatch_reports_no_window_before_the_first_event():
    assert activitywatch.parse_events("[]", NOW) is None


def test_activitywatch_an_event_extended_by_heartbeats_is_fresh():
    text = aw_events(at=NOW - timedelta(minutes=10), duration=595, app="code", title="x.py")
    assert activitywatch.parse_events(text, NOW) == ("code", "x.py")


def test_activitywatch_a_watcher_that_stopped_reporting_is_a_probe_error():
    text = aw_events(at=NOW - timedelta(minutes=10), duration=60, app="code", title="x.py")
    with pytest.raises(ProbeError, match="has not reported since 2026-12-03 06:36:00 UTC"):
        activitywatch.parse_events(text, NOW)
    # The same words a minute later: the sampler logs a dead watcher once, not every 5 s.
    with pytest.raises(ProbeError) as later:
        activitywatch.parse_events(text, NOW + timedelta(minutes=1))
    assert "since 2026-12-03 06:36:00 UTC" in str(later.value)


@pytest.mark.parametrize(
    "text",
    ["", "{}", "[1]", '[{"data": {}}]', '[{"timestamp": "yesterday", "data": {}}]', "[" * 50_000],
)
def test_activitywatch_answers_that_are_no_events_are_probe_errors(text):
    with pytest.raises(ProbeError):
        activitywatch.parse_events(text, NOW)


def test_activitywatch_bucket_is_named_for_the_host():
    assert activitywatch.bucket_id("vm") == "aw-watcher-window_vm"
