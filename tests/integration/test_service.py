"""`antidrift service`: the systemd user unit checked by the real systemd-analyze and run as
written; systemctl and launchctl as fakes on a temp PATH that record what they are asked;
the macOS agent read back with plistlib. Every test has its own HOME and XDG_CONFIG_HOME:
the real user's configuration is never touched."""

from __future__ import annotations

import json
import os
import plistlib
import shlex
import shutil
import subprocess
import sys
import textwrap
import urllib.request
from pathlib import Path

import pytest

from antidrift.server import service
from antidrift.store import datalock
from tests.fakes import wait_until
from tests.support import procs
from tests.support.require import need
from tests.support.server import REPO, free_port

# A data directory whose name needs quoting, and holds a systemd specifier and a variable.
AWKWARD = "focus data %h $HOME"


class Manager:
    """A fake `systemctl` and `launchctl` on a temp PATH: each call's argv goes to a log;
    `answers` says whether a user manager answers."""

    def __init__(self, folder: Path, *, answers: bool = True) -> None:
        self.folder, self.log = folder, folder / "calls.jsonl"
        folder.mkdir(parents=True, exist_ok=True)
        for name in ("systemctl", "launchctl"):
            script = folder / name
            script.write_text(
                textwrap.dedent(f"""\
                #!{sys.executable}
                import json, sys
                with open({str(self.log)!r}, "a") as log:
                    log.write(json.dumps(sys.argv) + "\\n")
                if not {answers!r}:
                    print("Failed to connect to bus: No medium found", file=sys.stderr)
                    sys.exit(1)
                verb = sys.argv[2] if sys.argv[1:2] == ["--user"] else sys.argv[1]
                print({{"is-enabled": "enabled", "is-active": "active"}}.get(verb, ""))
                """)
            )
            script.chmod(0o755)

    def calls(self) -> list[list[str]]:
        if not self.log.exists():
            return []
        return [
            [Path(a[0]).name, *a[1:]] for a in map(json.loads, self.log.read_text().splitlines())
        ]


def _env(tmp_path: Path, path_first: Path | None = None) -> dict[str, str]:
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTIDRIFT_", "DBUS_"))}
    env.update(
        HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_RUNTIME_DIR=str(runtime),  # empty: the real systemctl finds no user manager
        ANTIDRIFT_DATA_DIR=str(tmp_path / AWKWARD),
        ANTIDRIFT_WINDOW_SOURCE="off",
    )
    if path_first is not None:
        env["PATH"] = f"{path_first}{os.pathsep}{env['PATH']}"
    return env


def antidrift(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "antidrift", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
    )


def _unit(tmp_path: Path) -> Path:
    return tmp_path / "config" / "systemd" / "user" / "antidrift.service"


def _exec_start(unit: Path) -> list[str]:
    """ExecStart as systemd reads it: its quoting; `%%` one `%`; in the arguments (not in the
    command, where systemd substitutes no variables) `$$` one `$`."""
    (line,) = [x for x in unit.read_text().splitlines() if x.startswith("ExecStart=")]
    first, *rest = shlex.split(line[10:])
    return [first.replace("%%", "%")] + [w.replace("%%", "%").replace("$$", "$") for w in rest]


# -- the unit, checked by the real systemd ----------------------------------------------------


def test_the_written_unit_passes_systemd_analyze_verify(tmp_path):
    need(shutil.which("systemd-analyze"), "systemd-analyze missing: apt-get install systemd")
    result = antidrift(_env(tmp_path), "service", "install", "--port", "7799")
    assert result.returncode == 0, result.stderr
    unit = _unit(tmp_path)
    text = unit.read_text()
    for line in ("Restart=on-failure", "WantedBy=default.target", "StandardOutput=journal"):
        assert line in text.splitlines()
    argv = _exec_start(unit)
    assert Path(argv[0]).is_absolute() and os.access(argv[0], os.X_OK), argv
    assert argv[-5:] == ["serve", "--port", "7799", "--data-dir", str(tmp_path / AWKWARD)]
    check = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert check.returncode == 0, check.stderr
    # The check can fail: the same unit with a relative ExecStart does not pass.
    broken = tmp_path / "broken" / "antidrift.service"
    broken.parent.mkdir()
    broken.write_text(text.replace(f"ExecStart={argv[0]}", "ExecStart=antidrift-nowhere"))
    refused = subprocess.run(["systemd-analyze", "verify", str(broken)], capture_output=True)
    assert refused.returncode != 0


def test_an_antidrift_installed_at_an_awkward_path_is_found_by_systemd_itself(tmp_path):
    """systemd-analyze checks that the command exists as systemd reads ExecStart: spaces,
    `%` and `$` in the installed path must survive its quoting and specifiers."""
    need(shutil.which("systemd-analyze"), "systemd-analyze missing: apt-get install systemd")
    launcher = tmp_path / "tools %h $HOME" / "antidrift"
    launcher.parent.mkdir()
    launcher.write_text(
        f"#!{sys.executable}\nimport sys\n"
        "from antidrift.server.commands import main\nsys.exit(main())\n"
    )
    launcher.chmod(0o755)
    result = subprocess.run(
        [str(launcher), "service", "install"], env=_env(tmp_path), capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert _exec_start(_unit(tmp_path))[0] == str(launcher)
    check = subprocess.run(
        ["systemd-analyze", "verify", str(_unit(tmp_path))], capture_output=True, text=True
    )
    assert check.returncode == 0, check.stderr


def test_the_units_exec_start_run_as_written_serves_the_page(tmp_path):
    port = free_port()
    env = _env(tmp_path)
    assert antidrift(env, "service", "install", "--port", str(port)).returncode == 0
    argv = _exec_start(_unit(tmp_path))
    bare = {k: v for k, v in env.items() if k != "ANTIDRIFT_DATA_DIR"}  # the unit says it
    proc = subprocess.Popen(
        argv, env=bare, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    try:

        def page() -> bytes | None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as r:
                    return r.read()
            except OSError:
                assert proc.poll() is None, proc.stderr.read().decode()
                return None

        assert b'id="view"' in wait_until(page, timeout=30, message="the unit's server")
        # It serves the data directory the unit names, spaces, % and $ as they are.
        assert (tmp_path / AWKWARD / "antidrift.sqlite3").exists()
        assert datalock.holder_url(tmp_path / AWKWARD) == f"http://127.0.0.1:{port}/"
    finally:
        procs.stop(proc)


# -- enable, start, status, uninstall: systemctl as a recording fake --------------------------


def test_install_writes_enables_and_starts_and_says_where(tmp_path):
    manager = Manager(tmp_path / "bin")
    result = antidrift(_env(tmp_path, manager.folder), "service", "install", "--port", "7801")
    assert result.returncode == 0, result.stderr
    assert manager.calls() == [
        ["systemctl", "--user", "daemon-reload"],
        ["systemctl", "--user", "enable", "--now", "antidrift.service"],
    ]
    assert "runs now at http://127.0.0.1:7801/" in result.stdout
    assert "journalctl --user -u antidrift" in result.stdout


def test_no_start_enables_for_the_next_login_only(tmp_path):
    manager = Manager(tmp_path / "bin")
    result = antidrift(_env(tmp_path, manager.folder), "service", "install", "--no-start")
    assert result.returncode == 0, result.stderr
    assert ["systemctl", "--user", "enable", "antidrift.service"] in manager.calls()
    assert "systemctl --user start antidrift.service" in result.stdout


def test_beside_a_running_server_it_is_enabled_but_not_started(tmp_path):
    manager = Manager(tmp_path / "bin")
    lock = datalock.acquire(tmp_path / AWKWARD, url="http://127.0.0.1:7717/")
    try:
        result = antidrift(_env(tmp_path, manager.folder), "service", "install")
    finally:
        lock.release()
    assert result.returncode == 0, result.stderr
    assert ["systemctl", "--user", "enable", "antidrift.service"] in manager.calls()
    assert all("--now" not in call for call in manager.calls())
    assert "already runs on this data directory at http://127.0.0.1:7717/" in result.stdout


def test_status_asks_systemd_and_the_data_directory(tmp_path):
    manager = Manager(tmp_path / "bin")
    env = _env(tmp_path, manager.folder)
    absent = antidrift(env, "service", "status")
    assert absent.returncode == 4 and "not installed" in absent.stdout
    assert antidrift(env, "service", "install", "--no-start").returncode == 0
    stopped = antidrift(env, "service", "status")
    assert stopped.returncode == 3, stopped.stdout
    assert "systemd: enabled, active" in stopped.stdout and "Server: not running" in stopped.stdout
    assert ["systemctl", "--user", "is-active", "antidrift.service"] in manager.calls()
    lock = datalock.acquire(tmp_path / AWKWARD, url="http://127.0.0.1:7717/")
    try:
        running = antidrift(env, "service", "status")
    finally:
        lock.release()
    assert running.returncode == 0 and "running at http://127.0.0.1:7717/" in running.stdout


def test_uninstall_stops_disables_and_removes_and_is_idempotent(tmp_path):
    manager = Manager(tmp_path / "bin")
    env = _env(tmp_path, manager.folder)
    assert antidrift(env, "service", "install").returncode == 0
    before = len(manager.calls())
    result = antidrift(env, "service", "uninstall")
    assert result.returncode == 0, result.stderr
    assert manager.calls()[before:] == [
        ["systemctl", "--user", "disable", "--now", "antidrift.service"],
        ["systemctl", "--user", "daemon-reload"],
    ]
    assert not _unit(tmp_path).exists()
    again = antidrift(env, "service", "uninstall")
    assert again.returncode == 0 and "nothing to remove" in again.stdout


def test_without_a_user_manager_it_writes_the_file_and_says_the_one_command(tmp_path):
    """The real systemctl, with no user manager to reach (as in a container or CI)."""
    need(shutil.which("systemctl"), "systemctl missing: apt-get install systemd")
    result = antidrift(_env(tmp_path), "service", "install")
    assert result.returncode == 0, result.stderr
    assert _unit(tmp_path).exists()
    assert "No user service manager answered" in result.stdout
    assert result.stdout.strip().endswith("systemctl --user enable --now antidrift.service")


def test_a_manager_that_refuses_is_one_sentence_and_exit_1(tmp_path):
    manager = Manager(tmp_path / "bin")
    # daemon-reload answers, enable fails: a broken unit, a read-only directory …
    (manager.folder / "systemctl").write_text(
        f"#!{sys.executable}\nimport sys\n"
        "if 'enable' in sys.argv:\n    print('Failed to enable unit: Access denied', "
        "file=sys.stderr)\n    sys.exit(1)\n"
    )
    result = antidrift(_env(tmp_path, manager.folder), "service", "install")
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "antidrift: systemctl could not enable antidrift.service: Failed to enable unit:"
        " Access denied"
    )


# -- macOS: the launch agent -------------------------------------------------------------------


@pytest.fixture
def mac(tmp_path, monkeypatch) -> tuple[service.Host, Manager]:
    manager = Manager(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{manager.folder}{os.pathsep}{os.environ['PATH']}")
    host = service.Host("darwin", tmp_path / "home", tmp_path / "config", 501, "/opt/bin:/usr/bin")
    return host, manager


def test_macos_agent_round_trips_through_plistlib(mac, tmp_path):
    host, manager = mac
    data = tmp_path / AWKWARD
    lines = service.install(host, 7802, data)
    agent = plistlib.loads(host.file.read_bytes())
    assert host.file == tmp_path / "home" / "Library" / "LaunchAgents" / "local.antidrift.plist"
    assert agent["Label"] == "local.antidrift"
    argv = agent["ProgramArguments"]
    assert Path(argv[0]).is_absolute() and os.access(argv[0], os.X_OK)
    assert argv[-5:] == ["serve", "--port", "7802", "--data-dir", str(data)]
    assert agent["RunAtLoad"] is True and agent["KeepAlive"] == {"SuccessfulExit": False}
    assert agent["EnvironmentVariables"] == {"PATH": "/opt/bin:/usr/bin"}
    assert Path(agent["StandardErrorPath"]).parent.is_dir()
    assert manager.calls() == [
        ["launchctl", "bootout", "gui/501/local.antidrift"],
        ["launchctl", "bootstrap", "gui/501", str(host.file)],
    ]
    assert "runs now" in lines[-1]
    assert service.argv_of(host) == argv


def test_macos_status_and_uninstall(mac):
    host, manager = mac
    assert service.status(host)[0] == service.ABSENT
    service.install(host, 7717, host.home / "data", start=False)
    assert manager.calls() == []  # --no-start: launchd loads it at the next login
    code, lines = service.status(host)
    assert code == service.STOPPED and "launchd: loaded" in lines
    service.uninstall(host)
    assert not host.file.exists()
    assert manager.calls()[-1] == ["launchctl", "bootout", "gui/501/local.antidrift"]


def test_the_unit_goes_under_xdg_config_home(tmp_path):
    """Where the tests point HOME and XDG_CONFIG_HOME, there and nowhere else."""
    env = _env(tmp_path)
    host = service.Host.current(env)
    assert host.file == tmp_path / "config" / "systemd" / "user" / "antidrift.service"


# -- issue 30, item 11: no value adds a line ---------------------------------------------------

# A PATH as a hostile or careless environment may hand it over: an entry that ends the line
# and writes a directive of its own, then every character systemd quoting must carry.
INJECTED = "/nowhere\nExecStartPre=/bin/touch /tmp/antidrift-injected\n[Install]\nAlias=x"
AWKWARD_PATH = [
    "/opt/with space",
    "/opt/percent %h %%",
    "/opt/dollar $HOME ${PATH}",
    "/opt/quote \" and ' and ;",
    "/opt/back\\slash",
    "/opt/trailing\\",
    "/opt/line\u2028separator",
    "/opt/é",
]
DIRECTIVES = [
    "Description",
    "Type",
    "ExecStart",
    "Environment",
    "Restart",
    "RestartSec",
    "RestartPreventExitStatus",
    "StandardOutput",
    "StandardError",
    "SyslogIdentifier",
    "WantedBy",
]


def _directives(unit: Path) -> list[str]:
    """The keys of the unit's settings, as systemd splits its lines (at "\\n" only)."""
    return [
        line.split("=", 1)[0]
        for line in unit.read_text().split("\n")
        if line and not line.startswith(("#", "["))
    ]


def _verify(unit: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60
    )


def test_no_path_entry_adds_a_line_and_the_unit_still_verifies(tmp_path):
    need(shutil.which("systemd-analyze"), "systemd-analyze missing: apt-get install systemd")
    env = _env(tmp_path)
    entries = [INJECTED, *AWKWARD_PATH, "/usr/bin\rExecStopPost=/bin/true", "/opt/tab\there"]
    env["PATH"] = os.pathsep.join([*entries, env["PATH"]])
    result = antidrift(env, "service", "install")
    assert result.returncode == 0, result.stderr
    assert "Left 3 entries with control characters out of the service's PATH." in result.stdout
    unit = _unit(tmp_path)
    assert _directives(unit) == DIRECTIVES
    check = _verify(unit)
    assert check.returncode == 0, check.stderr
    (environment,) = [x for x in unit.read_text().split("\n") if x.startswith("Environment=")]
    (word,) = shlex.split(environment.removeprefix("Environment="))
    # Read back as systemd reads it ("%%" is one "%"), every printable entry is kept as it was.
    assert word.replace("%%", "%") == "PATH=" + os.pathsep.join([*AWKWARD_PATH, os.environ["PATH"]])


@pytest.mark.parametrize("bad", ["\n", "\r", "\x1b", "\x7f", "\x85"], ids=repr)
def test_a_data_directory_with_a_control_character_is_refused_in_a_sentence(tmp_path, bad):
    env = _env(tmp_path)
    env["ANTIDRIFT_DATA_DIR"] = str(tmp_path / f"data{bad}ExecStartPre=/bin/true")
    result = antidrift(env, "service", "install")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and "control characters" in result.stderr
    assert not _unit(tmp_path).exists()


def test_antidrift_installed_under_a_name_with_a_newline_is_refused(tmp_path):
    launcher = tmp_path / "tools\nExecStartPre=touch x" / "antidrift"
    launcher.parent.mkdir()
    launcher.write_text(
        f"#!{sys.executable}\nimport sys\n"
        "from antidrift.server.commands import main\nsys.exit(main())\n"
    )
    launcher.chmod(0o755)
    result = subprocess.run(
        [str(launcher), "service", "install"], env=_env(tmp_path), capture_output=True, text=True
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "installed at a path with control characters" in result.stderr
    assert result.stderr.count("\n") == 1  # the newline in the path is shown as \n, not made
    assert not _unit(tmp_path).exists()


def test_the_macos_agent_is_valid_xml_whatever_the_path(mac, tmp_path):
    import xml.etree.ElementTree as ElementTree

    host, _ = mac
    odd = [*AWKWARD_PATH, "/opt/<tag> & ]]>", INJECTED, "/opt/nul\x00", "/opt/\udcff"]
    host = service.Host(host.platform, host.home, host.config_home, host.uid, ":".join(odd))
    lines = service.install(host, 7803, tmp_path / "data <&> ]]>")
    assert "Left 3 entries with control characters out of the service's PATH." in lines
    ElementTree.fromstring(host.file.read_bytes())  # well-formed XML
    agent = plistlib.loads(host.file.read_bytes())
    assert agent["EnvironmentVariables"] == {"PATH": ":".join([*AWKWARD_PATH, "/opt/<tag> & ]]>"])}
    assert agent["ProgramArguments"][-1] == str(tmp_path / "data <&> ]]>")
    with pytest.raises(service.ServiceError, match="control characters"):
        service.install(host, 7803, tmp_path / "data\x01")


@pytest.mark.parametrize("name", ["data\\", 'da"ta', "da'ta", "da;ta", "da\\ta"])
def test_a_data_directory_systemd_would_read_otherwise_is_quoted(tmp_path, name):
    """Unquoted, a trailing backslash would join the next line to ExecStart, and a quote or
    a `;` would change the words."""
    need(shutil.which("systemd-analyze"), "systemd-analyze missing: apt-get install systemd")
    env = {**_env(tmp_path), "ANTIDRIFT_DATA_DIR": str(tmp_path / name)}
    assert antidrift(env, "service", "install").returncode == 0
    unit = _unit(tmp_path)
    assert _directives(unit) == DIRECTIVES
    assert _exec_start(unit)[-1] == str(tmp_path / name)
    check = _verify(unit)
    assert check.returncode == 0, check.stderr
