"""notify-send's body is markup to many notification daemons: AntiDrift's texts are escaped."""

from __future__ import annotations

from antidrift.notify import build_notifier, notify_send, osascript


def test_notify_send_escapes_the_body_so_no_text_becomes_markup():
    body = 'Back to: fix <b>bold</b> & co\nfirefox: <img src="file:///etc/passwd"> not the work'
    argv = notify_send("/usr/bin/notify-send").command("Drifting? · AntiDrift", body)
    assert argv[-1] == (
        "Back to: fix &lt;b&gt;bold&lt;/b&gt; &amp; co\n"
        'firefox: &lt;img src="file:///etc/passwd"&gt; not the work'
    )
    assert argv[-2] == "Drifting? · AntiDrift"  # the summary is plain text by the spec
    assert argv[-3] == "--"


def test_auto_on_linux_builds_the_escaping_notify_send(tmp_path):
    fake = tmp_path / "notify-send"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    notifier = build_notifier("auto", env={"PATH": str(tmp_path)}, platform="linux")
    assert notifier.command("t", "<i>x</i>")[-1] == "&lt;i&gt;x&lt;/i&gt;"


def test_other_notifiers_pass_text_as_it_is():
    assert osascript("/usr/bin/osascript").command("t", "a <b> & c")[-1] == "a <b> & c"
