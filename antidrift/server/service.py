"""`antidrift service install | status | uninstall`: AntiDrift started at login.

Linux: a systemd user unit, `$XDG_CONFIG_HOME/systemd/user/antidrift.service`, enabled and
started with `systemctl --user`; its output goes to the journal (`journalctl --user -u
antidrift`). macOS: a launchd agent in `~/Library/LaunchAgents/`. Either runs the installed
`antidrift` by its absolute path, with `serve` and the same port and data directory. Where
no user service manager answers (a container, WSL without systemd) the file is written and
the one command to run is said.
"""

from __future__ import annotations

import argparse
import os
import plistlib
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from antidrift import process
from antidrift.cli.client import server_data_dir
from antidrift.core.errors import Error
from antidrift.core.terminal import say
from antidrift.store import datalock

UNIT = "antidrift.service"
LABEL = "local.antidrift"  # the launchd agent's label
TIMEOUT = 15.0  # seconds for one systemctl or launchctl call
# Exit codes of `service status`, as systemctl's: running, installed but not running, absent.
RUNNING, STOPPED, ABSENT = 0, 3, 4


class ServiceError(Error):
    """A sentence for the person installing; the command line says it and exits 1."""

    exit_code = 1


@dataclass(frozen=True)
class Host:
    """Where the service goes: the platform and the user's directories (tests give temp ones)."""

    platform: str
    home: Path
    config_home: Path
    uid: int
    path: str  # PATH for the service, so it finds the AI CLIs it finds in a terminal

    @classmethod
    def current(cls, env: Mapping[str, str] = os.environ) -> Host:
        home = Path(env.get("HOME") or Path.home())
        config = env.get("XDG_CONFIG_HOME") or str(home / ".config")
        return cls(sys.platform, home, Path(config), os.getuid(), env.get("PATH", ""))

    @property
    def macos(self) -> bool:
        return self.platform == "darwin"

    @property
    def file(self) -> Path:
        if self.macos:
            return self.home / "Library" / "LaunchAgents" / f"{LABEL}.plist"
        return self.config_home / "systemd" / "user" / UNIT


def executable() -> list[str]:
    """The installed `antidrift` as an absolute path (or this Python running the package)."""
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name == "antidrift" and os.access(argv0, os.X_OK):
        return [os.path.abspath(argv0)]  # not resolved: pipx's link survives an upgrade
    beside = Path(sys.executable).parent / "antidrift"  # the venv's console script
    if os.access(beside, os.X_OK):
        return [os.path.abspath(beside)]
    return [os.path.abspath(sys.executable), "-m", "antidrift"]


def serve_argv(port: int, data_dir: Path) -> list[str]:
    return [*executable(), "serve", "--port", str(port), "--data-dir", str(data_dir)]


# -- the files -------------------------------------------------------------------------------


def _word(arg: str, *, variables: bool = True) -> str:
    """One word of a systemd unit line, quoted when needed. `%` (a specifier) is doubled;
    where systemd substitutes variables (Exec arguments, not the command itself) `$` too."""
    text = arg.replace("%", "%%")
    if variables:
        text = text.replace("$", "$$")
    if text and not any(c.isspace() or c in "\\'\";" for c in arg):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _unprintable(text: str) -> bool:
    """A control character (C0, DEL, C1) or a name that is not UTF-8: systemd ends a unit's
    line at a newline, and XML (the launchd plist) has no way to write most of them."""
    if any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F for c in text):
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a path's undecodable bytes, as Python keeps them
        return True
    return False


def service_path(path: str) -> tuple[str, int]:
    """PATH for the service, and how many of its entries were left out: one with a control
    character could only be written by ending the line (a newline in PATH would become a
    directive of its own); no directory a program is found in is named so."""
    entries = path.split(os.pathsep) if path else []
    kept = [entry for entry in entries if not _unprintable(entry)]
    return os.pathsep.join(kept), len(entries) - len(kept)


def systemd_unit(argv: list[str], path: str) -> str:
    """The user unit's text. Every value is one quoted word of its line (`_word`); none may
    hold a control character (install refuses them, service_path leaves them out)."""
    if any(map(_unprintable, [*argv, path])):
        raise ServiceError("A value for the unit has a control character.")
    exec_start = " ".join([_word(argv[0], variables=False), *map(_word, argv[1:])])
    environment = f"Environment={_word('PATH=' + path, variables=False)}\n" if path else ""
    return (
        "# Written by `antidrift service install`; `antidrift service uninstall` removes it.\n"
        "[Unit]\n"
        "Description=AntiDrift, a local focus tool\n"
        "\n"
        "[Service]\n"
        "Type=simple\n"
        f"ExecStart={exec_start}\n"
        f"{environment}"
        "Restart=on-failure\n"
        "RestartSec=5\n"
        "# A refusal at start-up (another server on this data directory, the port taken, a\n"
        "# database that is not AntiDrift's) is said once in the journal, not retried.\n"
        "RestartPreventExitStatus=2\n"
        "StandardOutput=journal\n"
        "StandardError=journal\n"
        "SyslogIdentifier=antidrift\n"
        "\n"
        "[Install]\n"
        "WantedBy=default.target\n"
    )


def launchd_plist(argv: list[str], path: str, logs: Path) -> bytes:
    """The launch agent's property list (valid XML: no value holds a control character)."""
    if any(map(_unprintable, [*argv, path, str(logs)])):
        raise ServiceError("A value for the launch agent has a control character.")
    agent: dict[str, object] = {
        "Label": LABEL,
        "ProgramArguments": argv,
        "RunAtLoad": True,
        "KeepAlive": {"SuccessfulExit": False},  # restarted when it fails, as on Linux
        "StandardOutPath": str(logs / "antidrift.log"),
        "StandardErrorPath": str(logs / "antidrift.log"),
    }
    if path:
        agent["EnvironmentVariables"] = {"PATH": path}
    return plistlib.dumps(agent)


def argv_of(host: Host) -> list[str] | None:
    """What the installed service runs, read back from its file; None if not installed."""
    try:
        if host.macos:
            return list(plistlib.loads(host.file.read_bytes())["ProgramArguments"])
        lines = host.file.read_text().split("\n")  # systemd's lines: U+2028 is no end
    except (OSError, ValueError, KeyError, plistlib.InvalidFileException):
        return None
    for line in lines:
        if line.startswith("ExecStart="):
            first, *rest = shlex.split(line.removeprefix("ExecStart="))
            return [first.replace("%%", "%")] + [
                w.replace("%%", "%").replace("$$", "$") for w in rest
            ]
    return None


# -- the manager -----------------------------------------------------------------------------


def _run(argv: list[str]) -> tuple[bool, str]:
    """Run systemctl or launchctl: (succeeded, what it said, first line)."""
    try:
        result = process.run(argv, timeout=TIMEOUT, name=argv[0], max_output=64 * 1024)
    except process.ProcessError as exc:
        return False, str(exc)
    said = (result.stdout.strip() or result.stderr.strip()).splitlines()
    return result.returncode == 0, said[0] if said else f"exit {result.returncode}"


def _systemctl(*args: str) -> tuple[bool, str]:
    return _run(["systemctl", "--user", *args])


def _launchctl(*args: str) -> tuple[bool, str]:
    return _run(["launchctl", *args])


def _domain(host: Host) -> str:
    return f"gui/{host.uid}"


# -- the commands ----------------------------------------------------------------------------


def install(host: Host, port: int, data_dir: Path, *, start: bool = True) -> list[str]:
    """Write the file, enable (and start) it; the lines to print."""
    if _unprintable(str(data_dir)):
        raise ServiceError("The data directory's name has control characters: choose another.")
    if not 1 <= port <= 65535:
        raise ServiceError(f"--port {port} is no port: give one from 1 to 65535.")
    argv = serve_argv(port, data_dir)
    if _unprintable(argv[0]):
        raise ServiceError(
            f"antidrift is installed at a path with control characters ({argv[0]!r}):"
            " install it under another directory, then run this again."
        )
    if host.macos and _unprintable(str(host.home)):
        raise ServiceError(
            "Your home directory's name has control characters: launchd can't be told it."
        )
    path, left_out = service_path(host.path)
    said = (
        [
            f"Left {left_out} entr{'y' if left_out == 1 else 'ies'} with control characters out"
            " of the service's PATH."
        ]
        if left_out
        else []
    )
    host.file.parent.mkdir(parents=True, exist_ok=True)
    running = datalock.holder_url(data_dir)
    if running is not None and start:
        start = False  # it would refuse to start beside the server that runs now
    if host.macos:
        logs = host.home / "Library" / "Logs" / "AntiDrift"
        logs.mkdir(parents=True, exist_ok=True)
        host.file.write_bytes(launchd_plist(argv, path, logs))
        lines = [f"Wrote {host.file}.", *said]
        command = f"launchctl bootstrap {_domain(host)} {shlex.quote(str(host.file))}"
        if not start:
            return [*lines, *_not_now(running, port, command, login="next login")]
        _launchctl("bootout", f"{_domain(host)}/{LABEL}")  # a reinstall replaces it
        ok, said = _launchctl("bootstrap", _domain(host), str(host.file))
        if not ok:
            return [*lines, f"launchctl did not load it ({said}). Run: {command}"]
        return [*lines, f"AntiDrift starts at login and runs now at http://127.0.0.1:{port}/"]
    host.file.write_text(systemd_unit(argv, path), encoding="utf-8")
    lines = [f"Wrote {host.file}.", *said]
    ok, said = _systemctl("daemon-reload")
    if not ok:
        return [
            *lines,
            f"No user service manager answered ({said}). Where one runs, start AntiDrift at"
            f" login with: systemctl --user enable --now {UNIT}",
        ]
    ok, said = _systemctl("enable", *(["--now"] if start else []), UNIT)
    if not ok:
        raise ServiceError(f"systemctl could not enable {UNIT}: {said}")
    if not start:
        return [*lines, *_not_now(running, port, f"systemctl --user start {UNIT}")]
    return [
        *lines,
        f"AntiDrift starts at login and runs now at http://127.0.0.1:{port}/"
        f" (its log: journalctl --user -u {UNIT.removesuffix('.service')})",
    ]


def _not_now(running: str | None, port: int, command: str, login: str = "login") -> list[str]:
    if running is not None:
        return [
            f"AntiDrift already runs on this data directory{' at ' + running if running else ''},"
            f" so the service starts at your next {login}; to switch now, stop that one and run:"
            f" {command}"
        ]
    return [f"AntiDrift will start at your next {login}; to start it now: {command}"]


def status(host: Host) -> tuple[int, list[str]]:
    """(exit code, lines): installed or not, what it runs, whether it runs."""
    argv = argv_of(host)
    if argv is None:
        return ABSENT, ["AntiDrift's login service is not installed: antidrift service install"]
    lines = [f"Installed: {host.file}", f"Runs: {shlex.join(argv)}"]
    if host.macos:
        ok, said = _launchctl("print", f"{_domain(host)}/{LABEL}")
        lines.append(f"launchd: {'loaded' if ok else 'not loaded (' + said + ')'}")
    else:
        enabled = _systemctl("is-enabled", UNIT)[1]
        active = _systemctl("is-active", UNIT)[1]
        lines.append(f"systemd: {enabled}, {active}")
    data_dir = argv[argv.index("--data-dir") + 1] if "--data-dir" in argv[:-1] else None
    url = datalock.holder_url(Path(data_dir)) if data_dir else None
    if url is None:
        return STOPPED, [*lines, "Server: not running"]
    return RUNNING, [*lines, f"Server: running{' at ' + url if url else ''}"]


def uninstall(host: Host) -> list[str]:
    """Stop and disable it, remove the file; the lines to print."""
    if not host.file.exists():
        return ["AntiDrift's login service is not installed: nothing to remove."]
    if host.macos:
        _launchctl("bootout", f"{_domain(host)}/{LABEL}")
        host.file.unlink()
    else:
        _systemctl("disable", "--now", UNIT)  # fails harmlessly with no manager
        host.file.unlink()
        _systemctl("daemon-reload")
    return [f"Removed {host.file}: AntiDrift no longer starts at login."]


def service_command(parser: argparse.ArgumentParser):
    """`antidrift service …`: its three actions."""
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    add = actions.add_parser("install", help="write, enable and start the login service")
    add.add_argument("--port", type=int, help="port (ANTIDRIFT_PORT, or 7717)")
    add.add_argument("--data-dir", help="the data directory (ANTIDRIFT_DATA_DIR, the default)")
    add.add_argument("--no-start", action="store_true", help="enable it for the next login only")
    actions.add_parser("status", help="installed? running? (exit 0 running, 3 not, 4 absent)")
    actions.add_parser("uninstall", help="stop, disable and remove the login service")
    return run


def run(args: argparse.Namespace) -> int:
    host = Host.current()
    try:
        if args.action == "install":
            data_dir, port = _where(args.data_dir, args.port)
            lines = install(host, port, data_dir, start=not args.no_start)
            code = 0
        elif args.action == "status":
            code, lines = status(host)
        else:
            lines, code = uninstall(host), 0
    except OSError as exc:  # a unit file or folder that cannot be written or read
        raise ServiceError(f"{exc.strerror or exc}: {exc.filename or 'the service file'}") from exc
    # ServiceError and ClientError go to antidrift.server.commands.main: said once, exit 1.
    say("\n".join(lines))
    return code


def _where(data_dir: str | None, port: int | None) -> tuple[Path, int]:
    """The data directory and port a server would take now (flags, environment, saved)."""
    from antidrift import settings

    reading = settings.read(data_dir=data_dir, overrides={"port": port})
    refused = [p for p in reading.problems if p.key in ("data_dir", "port")]
    if refused:
        raise ServiceError(refused[0].message)
    return server_data_dir(data_dir), int(reading.values.get("port", settings.DEFAULT_PORT))
