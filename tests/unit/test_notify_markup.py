"""No text of AntiDrift's becomes markup, and no body is on a command line. The D-Bus
notifier escapes the body for a daemon that reads markup (tests/integration/test_notify_dbus.py);
notify-send and osascript never get the body as an argument (issue 30 item 15)."""

from __future__ import annotations

from antidrift.notify import notify_send, osascript

BODY = 'Back to: fix <b>bold</b> & co\nfirefox: <img src="file:///etc/passwd"> not the work'


def test_notify_send_gets_the_title_alone():
    argv = notify_send("/usr/bin/notify-send").command("Drifting? · AntiDrift", BODY)
    assert argv == ["/usr/bin/notify-send", "--app-name=AntiDrift", "--", "Drifting? · AntiDrift"]


def test_osascript_gets_no_text_on_its_command_line():
    notifier = osascript("/usr/bin/osascript")
    assert notifier.command("t", BODY) == ["/usr/bin/osascript"]
    script = notifier.stdin("t", BODY)
    assert "<b>" not in script and "passwd" not in script and '"' not in script
