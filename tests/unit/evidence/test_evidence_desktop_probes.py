"""The sway, Hyprland, KDE and GNOME probes against fake tools on a temporary PATH that print
what the real tools print (tests/fixtures/evidence), through the real subprocess seam."""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from antidrift.evidence.gnome import GnomeProbe
from antidrift.evidence.hyprland import HyprlandProbe
from antidrift.evidence.kde import KdeProbe
from antidrift.evidence.probe import ProbeError
from antidrift.evidence.sway import SwayProbe

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "evidence"


def printing(fixture: str, *, expect: list[str], exit_status: int = 0) -> str:
    """A fake tool's body: check its arguments, print a recorded answer, exit."""
    return (
        f"assert args == {expect!r}, args\n"
        f"sys.stdout.write(open({str(FIXTURES / fixture)!r}, encoding='utf-8').read())\n"
        f"sys.exit({exit_status})"
    )


def calls_logged(fake_bin, name: str, body: str) -> Path:
    """Install a fake tool that appends its arguments to a log, one JSON line per call."""
    log = fake_bin.dir / f"{name}.calls"
    fake_bin(name, f"open({str(log)!r}, 'a').write(__import__('json').dumps(args) + '\\n')\n{body}")
    return log


def logged(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


# --- sway ---------------------------------------------------------------------------------


def test_sway_probe_runs_swaymsg_get_tree_and_reports_the_focused_window(fake_bin):
    fake_bin("swaymsg", printing("sway-get_tree.json", expect=["-t", "get_tree"]))
    assert SwayProbe().active_window() == ("editor-x", "Notes — draft")


def test_sway_probe_hands_the_sessions_swaysock_to_swaymsg(fake_bin):
    fake_bin(
        "swaymsg",
        "import os\nassert os.environ.get('SWAYSOCK') == '/run/user/1000/sway-ipc.sock'\n"
        + printing("sway-get_tree.json", expect=["-t", "get_tree"]),
    )
    env = {"PATH": os.environ["PATH"], "SWAYSOCK": "/run/user/1000/sway-ipc.sock"}
    assert SwayProbe(env).active_window() == ("editor-x", "Notes — draft")


def test_sway_probe_error_says_what_swaymsg_said_without_its_log_prefix(fake_bin):
    fake_bin(
        "swaymsg",
        "sys.stderr.write('00:00:00.000 [ERROR] [common/ipc-client.c:67] Unable to connect"
        " to /run/user/1000/sway-ipc.sock\\n')\nsys.exit(1)",
    )
    with pytest.raises(ProbeError) as raised:
        SwayProbe().active_window()
    assert str(raised.value) == (
        "swaymsg failed: Unable to connect to /run/user/1000/sway-ipc.sock"
    )


def test_sway_probe_error_when_swaymsg_is_missing(fake_bin, monkeypatch):
    monkeypatch.setenv("PATH", str(fake_bin.dir))
    with pytest.raises(ProbeError, match="swaymsg is not installed"):
        SwayProbe().active_window()


# --- Hyprland -----------------------------------------------------------------------------


def test_hyprland_probe_runs_hyprctl_activewindow_json(fake_bin):
    fake_bin("hyprctl", printing("hyprctl-activewindow.json", expect=["activewindow", "-j"]))
    assert HyprlandProbe().active_window() == (
        "org.mozilla.firefox",
        'Pull requests · "antidrift" — Mozilla Firefox',
    )


def test_hyprland_probe_reports_no_window_for_an_empty_object(fake_bin):
    fake_bin("hyprctl", printing("hyprctl-activewindow-none.json", expect=["activewindow", "-j"]))
    assert HyprlandProbe().active_window() is None


def test_hyprland_probe_error_carries_the_message_hyprctl_prints_on_stdout(fake_bin):
    fake_bin(
        "hyprctl",
        printing("hyprctl-no-instance.txt", expect=["activewindow", "-j"], exit_status=1),
    )
    with pytest.raises(ProbeError, match="HYPRLAND_INSTANCE_SIGNATURE not set"):
        HyprlandProbe().active_window()


# --- KDE ----------------------------------------------------------------------------------

KDOTOOL_ARGS = ["getactivewindow", "getwindowclassname", "getwindowname", "getwindowgeometry"]


def test_kde_probe_chains_the_kdotool_queries_and_reports_class_and_caption(fake_bin):
    fake_bin("kdotool", printing("kdotool-active.txt", expect=KDOTOOL_ARGS))
    assert KdeProbe().active_window() == ("org.kde.dolphin", "Documents — Dolphin")


def test_kde_probe_reports_no_window_when_kdotool_prints_nothing(fake_bin):
    fake_bin("kdotool", f"assert args == {KDOTOOL_ARGS!r}")
    assert KdeProbe().active_window() is None


def test_kde_probe_error_when_kdotool_reports_an_error_and_exits_zero(fake_bin):
    fake_bin("kdotool", "sys.stderr.write('ERROR: Invalid window stack selection\\n')")
    with pytest.raises(ProbeError, match="kdotool failed: ERROR: Invalid window stack"):
        KdeProbe().active_window()


def test_kde_probe_error_when_kdotool_fails(fake_bin):
    fake_bin(
        "kdotool",
        "sys.stderr.write('Error: D-Bus error: The name org.kde.KWin was not provided\\n')\n"
        "sys.exit(1)",
    )
    with pytest.raises(ProbeError, match="org.kde.KWin was not provided"):
        KdeProbe().active_window()


# --- GNOME --------------------------------------------------------------------------------

CODE_PATH = "/org/gnome/shell/extensions/FocusedWindow"
README_PATH = "/org/gnome/Shell/Extensions/FocusedWindow"
UNKNOWN_METHOD = (
    "sys.stderr.write('Error: GDBus.Error:org.freedesktop.DBus.Error.UnknownMethod: Method"
    ' "Get" with signature "" on interface "x" doesn\\\'t exist\\n\')\n'
    "sys.exit(1)"
)


def gdbus_answering_at(path: str) -> str:
    """A fake gdbus where the extension lives at one object path only."""
    return (
        f"i = args.index('--object-path')\n"
        f"if args[i + 1] != {path!r}:\n"
        + "\n".join("    " + line for line in UNKNOWN_METHOD.splitlines())
        + "\n"
        + f"sys.stdout.write(open({str(FIXTURES / 'gdbus-focused-window.txt')!r},"
        " encoding='utf-8').read())"
    )


def test_gnome_probe_calls_the_extension_at_the_path_its_code_exports(fake_bin):
    log = calls_logged(fake_bin, "gdbus", gdbus_answering_at(CODE_PATH))
    assert GnomeProbe().active_window() == ("org.gnome.TextEditor", "Notes — Text Editor")
    assert logged(log) == [
        [
            "call", "--session", "--dest", "org.gnome.Shell",
            "--object-path", CODE_PATH,
            "--method", "org.gnome.shell.extensions.FocusedWindow.Get",
        ]
    ]  # fmt: skip


def test_gnome_probe_tries_the_readmes_path_next_and_then_keeps_to_it(fake_bin):
    log = calls_logged(fake_bin, "gdbus", gdbus_answering_at(README_PATH))
    probe = GnomeProbe()
    assert probe.active_window() == ("org.gnome.TextEditor", "Notes — Text Editor")
    assert probe.active_window() == ("org.gnome.TextEditor", "Notes — Text Editor")
    paths = [call[call.index("--object-path") + 1] for call in logged(log)]
    assert paths == [CODE_PATH, README_PATH, README_PATH]
    methods = [call[call.index("--method") + 1] for call in logged(log)]
    assert methods[1] == "org.gnome.Shell.Extensions.FocusedWindow.Get"


def test_gnome_probe_without_the_extension_says_which_to_install(fake_bin):
    fake_bin("gdbus", UNKNOWN_METHOD)
    with pytest.raises(ProbeError, match='install and enable the "Focused Window D-Bus"'):
        GnomeProbe().active_window()


def test_gnome_probe_without_gnome_shell_on_the_bus_fails_at_once(fake_bin):
    log = calls_logged(
        fake_bin,
        "gdbus",
        "sys.stderr.write('Error: GDBus.Error:org.freedesktop.DBus.Error.ServiceUnknown: The"
        " name org.gnome.Shell was not provided by any .service files\\n')\nsys.exit(1)",
    )
    with pytest.raises(ProbeError, match="org.gnome.Shell was not provided"):
        GnomeProbe().active_window()
    assert len(logged(log)) == 1, "the other path cannot help when the Shell is not there"


def test_every_desktop_probe_goes_through_the_bounded_seam(fake_bin, shipped_tool_timeout):
    """A tool that hangs is cut off at the probe timeout, whichever desktop it serves."""
    for tool in ("swaymsg", "hyprctl", "kdotool", "gdbus"):
        fake_bin(tool, "time.sleep(60)")

    def outcome(probe) -> BaseException | tuple[str, str]:
        try:
            return probe.active_window()
        except BaseException as err:  # noqa: BLE001 — looked at below, in this thread
            return err

    # The four hang at the same time: one probe timeout of waiting, not four.
    probes = (SwayProbe(), HyprlandProbe(), KdeProbe(), GnomeProbe())
    with ThreadPoolExecutor(len(probes)) as pool:
        outcomes = list(pool.map(outcome, probes))
    for probe, got in zip(probes, outcomes, strict=True):
        assert isinstance(got, ProbeError), (probe, got)
        assert "timed out after 2 s" in str(got), (probe, got)
