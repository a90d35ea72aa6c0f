"""`antidrift doctor` says which window source this session gets, why, and what to install."""

from __future__ import annotations

import json
import logging

from antidrift import settings
from antidrift.evidence.report import doctor_lines
from antidrift.server import bootstrap, commands
from antidrift.settings import SETTINGS

TREE = {"type": "root", "nodes": [{"type": "con", "focused": True, "app_id": "foot",
                                   "name": "secret title"}]}  # fmt: skip


def test_doctor_names_the_picked_source_the_reason_and_a_sample_without_its_title(
    fake_bin, monkeypatch, capsys, tmp_path
):
    fake_bin("swaymsg", f"sys.stdout.write({json.dumps(TREE)!r})")
    monkeypatch.setenv("PATH", str(fake_bin.dir))  # only the fake tools
    monkeypatch.setenv("SWAYSOCK", "/run/user/1000/sway-ipc.sock")
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-1")
    monkeypatch.setenv("ANTIDRIFT_DATA_DIR", str(tmp_path))
    assert commands.main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "ANTIDRIFT_WINDOW_SOURCE=auto" in out
    assert "picked        sway: SWAYSOCK is set" in out
    assert "sample        ok: the focused app is 'foot'" in out
    assert "secret title" not in out
    assert "kdotool not found: install kdotool" in out


def test_doctor_says_what_to_install_when_nothing_works(fake_bin):
    lines = doctor_lines(
        "auto",
        {"PATH": str(fake_bin.dir), "WAYLAND_DISPLAY": "wayland-0", "XDG_CURRENT_DESKTOP": "GNOME"},
        "http://127.0.0.1:5600",
        aw_answers=lambda url: False,
    )
    text = "\n".join(lines)
    assert "picked        none: the desktop's tool is missing: gdbus (gnome)" in text
    assert 'to fix        install and enable the "Focused Window D-Bus"' in text
    assert "aw-server does not answer at http://127.0.0.1:5600" in text


def _aligned(lines: list[str], column: int) -> list[str]:
    """The lines whose words do not start at `column` (a space before it, a word at it)."""
    return [line for line in lines if not (line[column - 1] == " " != line[column])]


def test_doctor_lines_up_every_label_and_every_setting(fake_bin, monkeypatch, tmp_path):
    # The longest labels ("activitywatch", the longest variable) set their columns.
    lines = doctor_lines(
        "auto", {"PATH": str(fake_bin.dir)}, "http://127.0.0.1:5600", aw_answers=lambda url: False
    )
    labelled = [line for line in lines if line.startswith("  ")]
    assert any(" activitywatch " in line for line in labelled)
    assert any(line.startswith("  idle time ") for line in labelled)
    assert _aligned(labelled, 2 + len("activitywatch") + 1) == []
    rows = [line for line in settings_lines(tmp_path) if line.startswith("  ANTIDRIFT_")]
    longest = max((s.variable for s in SETTINGS), key=len)
    assert any(longest in row for row in rows)
    assert _aligned(rows, 2 + len(longest) + 1) == []


def settings_lines(data_dir) -> list[str]:
    from antidrift.settings.report import doctor_lines as settings_doctor_lines

    return settings_doctor_lines({}, data_dir=data_dir)


def test_doctor_reports_a_failing_sample(fake_bin):
    fake_bin("hyprctl", "print('HYPRLAND_INSTANCE_SIGNATURE not set! (is hyprland running?)')\n"
                        "sys.exit(1)")  # fmt: skip
    lines = doctor_lines("hyprland", {"PATH": str(fake_bin.dir)}, "http://127.0.0.1:5600",
                         aw_answers=lambda url: False)  # fmt: skip
    sample = "  sample        failed: hyprctl activewindow failed: "
    sample += "HYPRLAND_INSTANCE_SIGNATURE not set!"
    assert any(line.startswith(sample) for line in lines), lines


def test_doctor_shows_a_bad_setting_as_a_sentence(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("ANTIDRIFT_WINDOW_SOURCE", "wayland")
    monkeypatch.setenv("ANTIDRIFT_DATA_DIR", str(tmp_path))
    assert commands.main(["doctor"]) == 1  # the server would refuse to start
    assert "ANTIDRIFT_WINDOW_SOURCE='wayland' is not accepted: use one of auto," in (
        capsys.readouterr().out
    )


# --- the start-up log says the same ---------------------------------------------------------


def test_the_start_up_log_names_the_picked_source_and_why(fake_bin, tmp_path, caplog):
    fake_bin("swaymsg", f"sys.stdout.write({json.dumps(TREE)!r})")
    env = {"PATH": str(fake_bin.dir), "SWAYSOCK": "/run/user/1000/s.sock", "WAYLAND_DISPLAY": "w"}
    config = settings.load(env, data_dir=tmp_path)
    with caplog.at_level(logging.INFO, logger="antidrift"):
        choice = bootstrap.choose_window_source(config)
    assert choice.name == "sway"
    assert "window source: sway (SWAYSOCK is set)" in caplog.text


def test_the_start_up_log_says_what_to_install_when_no_source_works(fake_bin, tmp_path, caplog):
    env = {
        "PATH": str(fake_bin.dir),
        "WAYLAND_DISPLAY": "w",
        "XDG_CURRENT_DESKTOP": "KDE",
        "ANTIDRIFT_AW_URL": "http://127.0.0.1:9",
    }  # fmt: skip  (the discard port: no aw-server)
    config = settings.load(env, data_dir=tmp_path)
    with caplog.at_level(logging.INFO, logger="antidrift"):
        assert bootstrap.choose_window_source(config).probe is None
    assert "no window source for this session: the desktop's tool is missing: kdotool" in (
        caplog.text
    )
    assert "install kdotool" in caplog.text and "run ActivityWatch" in caplog.text
