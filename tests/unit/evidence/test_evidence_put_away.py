"""The teeth's adapters, one per desktop, against fake tools on a temp PATH that record their
arguments: each probe names the exact window it sampled, each adapter acts on that one window
alone, and a failure is a sentence (CouldNotPutAway), never a window title.

sway and X11 also run for real: tests/integration/test_teeth_sway.py and test_teeth_x11.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from antidrift.drift.put_away import DesktopEnforcer
from antidrift.drift.teeth import CouldNotPutAway
from antidrift.evidence import desktops
from antidrift.evidence.hyprland import HyprlandProbe
from antidrift.evidence.kde import KdeProbe
from antidrift.evidence.macos import MacOSProbe
from antidrift.evidence.probe import WindowHandle
from antidrift.evidence.sway import SwayProbe
from antidrift.evidence.x11 import X11Probe

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "evidence"
SECRET = "Diagnosis — private"


def recording(answer: str = "", *, exit_status: int = 0, stderr: str = "") -> str:
    """A fake tool's body: append its arguments to calls.jsonl beside it, print `answer`."""
    return (
        "with open(os.path.join(os.path.dirname(__file__), 'calls.jsonl'), 'a') as f:\n"
        "    f.write(json.dumps(args) + '\\n')\n"
        f"sys.stdout.write({answer!r})\n"
        f"sys.stderr.write({stderr!r})\n"
        f"sys.exit({exit_status})\n"
    )


def calls(fake_bin) -> list[list[str]]:
    path = fake_bin / "calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def put_away(window: WindowHandle) -> str:
    return DesktopEnforcer()(window)


def test_every_desktop_but_gnome_can_put_a_window_away():
    able = {d.name for d in desktops.DESKTOPS if d.put_away is not None}
    assert able == {"sway", "x11", "hyprland", "kde", "macos"}


def test_sway_names_the_con_id_and_moves_that_container_to_the_scratchpad(fake_bin):
    tree = (FIXTURES / "sway-get_tree.json").read_text()
    fake_bin("swaymsg", recording(tree))
    seen = SwayProbe().active_window()
    assert seen.exact is not None and seen.exact.desktop == "sway"
    fake_bin("swaymsg", recording('[ { "success": true } ]'))
    said = put_away(seen.exact)
    assert calls(fake_bin)[-1] == [f"[con_id={seen.exact.id}] move scratchpad"]
    assert "scratchpad" in said and "swaymsg scratchpad show" in said


def test_sway_s_own_error_is_the_sentence(fake_bin):
    reply = '[{"success": false, "parse_error": false, "error": "No matching node."}]'
    fake_bin("swaymsg", recording(reply, exit_status=2))
    with pytest.raises(CouldNotPutAway, match="swaymsg could not move it: No matching node."):
        put_away(WindowHandle("sway", "41"))


def test_x11_minimizes_the_window_id_it_sampled(fake_bin):
    fake_bin("xdotool", _xdotool())
    fake_bin("xprop", 'print(\'WM_CLASS(STRING) = "xmessage", "Xmessage"\')')
    seen = X11Probe().active_window()
    assert seen.exact == WindowHandle("x11", "4194311")
    said = put_away(seen.exact)
    assert calls(fake_bin)[-1] == ["windowminimize", "4194311"]
    assert "minimized" in said


def _xdotool() -> str:
    # getactivewindow → an id; getwindowname → a title; windowminimize → recorded, silent.
    return (
        "with open(os.path.join(os.path.dirname(__file__), 'calls.jsonl'), 'a') as f:\n"
        "    f.write(json.dumps(args) + '\\n')\n"
        "if args == ['getactivewindow']: print(4194311)\n"
        f"elif args[0] == 'getwindowname': print({SECRET!r})\n"
    )


def test_x11_failure_is_a_sentence(fake_bin):
    fake_bin("xdotool", recording(stderr="X Error of failed request:  BadWindow\n", exit_status=1))
    with pytest.raises(CouldNotPutAway, match="xdotool windowminimize failed: X Error"):
        put_away(WindowHandle("x11", "77"))


def test_hyprland_sends_the_address_to_a_special_workspace_silently(fake_bin):
    fake_bin("hyprctl", recording((FIXTURES / "hyprctl-activewindow.json").read_text()))
    seen = HyprlandProbe().active_window()
    assert seen.exact == WindowHandle("hyprland", "0x5a3c1e0a8f10")
    fake_bin("hyprctl", recording("ok"))
    said = put_away(seen.exact)
    assert calls(fake_bin)[-1] == [
        "dispatch",
        "movetoworkspacesilent",
        "special:antidrift,address:0x5a3c1e0a8f10",
    ]
    assert "togglespecialworkspace antidrift" in said


def test_hyprland_answering_anything_but_ok_failed(fake_bin):
    fake_bin("hyprctl", recording("No such window found"))
    with pytest.raises(CouldNotPutAway, match="hyprctl dispatch failed: No such window found"):
        put_away(WindowHandle("hyprland", "0x5a3c1e0a8f10"))


def test_kde_names_kwin_s_internal_id_and_minimizes_that_window(fake_bin):
    fake_bin("kdotool", recording((FIXTURES / "kdotool-active-geometry.txt").read_text()))
    seen = KdeProbe().active_window()
    assert seen == ("org.kde.dolphin", "Documents — Dolphin")
    assert seen.exact == WindowHandle("kde", "{5f1c2e3a-8b7d-4c1e-9a0b-1d2e3f4a5b6c}")
    fake_bin("kdotool", recording(""))
    assert "minimized" in put_away(seen.exact)
    assert calls(fake_bin)[-1] == ["windowminimize", "{5f1c2e3a-8b7d-4c1e-9a0b-1d2e3f4a5b6c}"]


def test_kde_without_the_geometry_has_no_exact_window(fake_bin):
    fake_bin("kdotool", recording((FIXTURES / "kdotool-active.txt").read_text()))
    seen = KdeProbe().active_window()
    assert seen == ("org.kde.dolphin", "Documents — Dolphin") and seen.exact is None


def test_kde_error_on_stderr_with_exit_zero_failed(fake_bin):
    fake_bin("kdotool", recording(stderr="ERROR: KWin script failed\n"))
    with pytest.raises(CouldNotPutAway, match="kdotool failed: ERROR: KWin script failed"):
        put_away(WindowHandle("kde", "{5f1c2e3a-8b7d-4c1e-9a0b-1d2e3f4a5b6c}"))


def test_macos_names_the_process_and_window_and_minimizes_that_one(fake_bin):
    fake_bin("osascript", recording(f"Safari\t812\n{SECRET}\n"))
    seen = MacOSProbe().active_window()
    assert seen == ("Safari", SECRET) and seen.exact == WindowHandle("macos", f"812\n{SECRET}")
    fake_bin(
        "osascript",
        "with open(os.path.join(os.path.dirname(__file__), 'stdin.txt'), 'wb') as f:\n"
        "    f.write(sys.stdin.buffer.read())\n" + recording(""),
    )
    assert "Dock" in put_away(seen.exact)
    argv = calls(fake_bin)[-1]
    assert argv[-1] == "812", "the pid as the run handler's argument"
    assert not any(SECRET in arg for arg in argv), "a command line is visible in ps"
    assert (fake_bin / "stdin.txt").read_text(encoding="utf-8") == SECRET, "the name on stdin"
    script = " ".join(argv[1:-1:2])
    assert "unix id is ((item 1 of argv)" in script and "AXMinimized" in script
    assert '"/dev/stdin") as «class utf8»' in script


def test_macos_without_a_pid_or_a_title_has_no_exact_window(fake_bin):
    fake_bin("osascript", recording("Safari\nApple – Start Page\n"))
    assert MacOSProbe().active_window().exact is None
    fake_bin("osascript", recording("Finder\t90\n\n"))
    assert MacOSProbe().active_window().exact is None


def test_macos_failure_never_quotes_the_window_s_name(fake_bin):
    fake_bin(
        "osascript",
        recording(stderr=f'execution error: Can\'t get window "{SECRET}"', exit_status=1),
    )
    with pytest.raises(CouldNotPutAway) as caught:
        put_away(WindowHandle("macos", f"812\n{SECRET}"))
    assert SECRET not in str(caught.value) and "System Events" in str(caught.value)


@pytest.mark.parametrize(
    "window",
    [
        WindowHandle("sway", "4; exec rm"),
        WindowHandle("x11", "0"),
        WindowHandle("hyprland", "0xZZ,address:0x1"),
        WindowHandle("kde", '{1}"); workspace.activeWindow.closeWindow(); ("'),
        WindowHandle("macos", "not-a-pid\nwin"),
        WindowHandle("gnome", "1"),
        WindowHandle("amiga", "1"),
    ],
)
def test_an_id_that_is_not_the_desktop_s_form_runs_nothing(fake_bin, window):
    for tool in ("swaymsg", "xdotool", "hyprctl", "kdotool", "osascript"):
        fake_bin(tool, recording("ok"))
    with pytest.raises(CouldNotPutAway):
        put_away(window)
    assert calls(fake_bin) == []


def test_a_missing_tool_is_a_sentence(fake_bin):
    with pytest.raises(CouldNotPutAway, match="swaymsg"):
        put_away(WindowHandle("sway", "4"))


def test_x11_without_a_window_manager_names_no_exact_window(fake_bin):
    # No EWMH window manager (getactivewindow fails): the input focus is sampled, but nothing
    # would iconify it, so the teeth are given no window.
    fake_bin(
        "xdotool",
        "if args == ['getactivewindow']: sys.exit(1)\n"
        "elif args[:1] == ['getwindowfocus']: print(4194311)\n"
        "elif args[0] == 'getwindowname': print('Cat videos')\n",
    )
    fake_bin("xprop", 'print(\'WM_CLASS(STRING) = "xmessage", "Xmessage"\')')
    seen = X11Probe().active_window()
    assert seen == ("Xmessage", "Cat videos") and seen.exact is None
