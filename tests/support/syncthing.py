"""Two real Syncthing daemons on this machine, talking only over loopback (adapted from
../shared/tools/two_syncthings.py; verified with Debian 12's syncthing 1.19.2).

    with two_syncthings(tmp_path) as pair:
        (pair.a_dir / "x.txt").write_text("hi")
        pair.scan("a")                       # sync now rather than at the watcher's delay
        assert pair.wait_for(pair.b_dir / "x.txt", b"hi")

Isolation: both daemons run inside one private network namespace holding only `lo` (root:
`unshare --net`; otherwise `unshare --user --map-root-user --net`), so nothing they do can
reach another address: there is no route. On top of that config.xml is edited before the
first start: no discovery, relays, NAT, usage or crash reports, upgrades; BEP listens on
127.0.0.1 only. The REST API listens on a Unix socket (`<home>/gui.sock`), reached from
outside the namespace. Only A dials B (both dialling at once can stall 20 s)."""

from __future__ import annotations

import contextlib
import ctypes
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

INSTALL = "apt-get install syncthing"
FOLDER_ID = "shared"
BEP_PORTS = {"a": 22001, "b": 22002}  # in a private namespace fixed ports cannot clash

# Runs inside the new namespace: bring `lo` up (no iproute2 needed), then wait.
_HOLDER = r"""
import ctypes, fcntl, signal, socket, struct, sys
ctypes.CDLL(None).prctl(1, signal.SIGTERM)          # PR_SET_PDEATHSIG
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
req = struct.pack('16sH22x', b'lo', 0)
flags = struct.unpack('16sH22x', fcntl.ioctl(s, 0x8913, req))[1]      # SIOCGIFFLAGS
fcntl.ioctl(s, 0x8914, struct.pack('16sH22x', b'lo', flags | 1))      # SIOCSIFFLAGS IFF_UP
s.close()
print('ready', flush=True)
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
signal.pause()
"""

# root: a network namespace alone; anyone else: inside a user namespace of their own.
_NAMESPACE_FLAGS = ([["--net"]] if os.geteuid() == 0 else []) + [
    ["--user", "--map-root-user", "--net"]
]

_OPTIONS = {
    "globalAnnounceEnabled": "false",
    "localAnnounceEnabled": "false",
    "relaysEnabled": "false",
    "natEnabled": "false",
    "urAccepted": "-1",  # usage reporting: declined for good
    "urSeen": "3",
    "crashReportingEnabled": "false",
    "autoUpgradeIntervalH": "0",
    "startBrowser": "false",
    "announceLANAddresses": "false",
    "restartOnWakeup": "false",
    "setLowPriority": "false",
    "reconnectionIntervalS": "2",  # default 60: a failed first dial would stall a test
}

_ENV = {
    "STNODEFAULTFOLDER": "1",
    "STNOUPGRADE": "1",
    "STNORESTART": "1",
    "STMONITORED": "yes",  # the daemon alone, without its monitor parent process
    "STHASHING": "minio",  # skip the ~1 s SHA-256 benchmark at start
}


def missing() -> str | None:
    """What this machine lacks to run two isolated Syncthing daemons, or None."""
    absent = [tool for tool in ("syncthing", "unshare", "nsenter") if not shutil.which(tool)]
    if absent:
        return f"{', '.join(absent)} not installed: {INSTALL}"
    for flags in _NAMESPACE_FLAGS:
        probe = subprocess.run(["unshare", *flags, "--", "true"], capture_output=True, timeout=10)
        if probe.returncode == 0:
            return None
    return "no private network namespace can be made here (unshare): syncthing is not started"


def _pdeathsig() -> None:
    ctypes.CDLL(None).prctl(1, signal.SIGTERM)


class _UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self._path)


class Instance:
    """One daemon: its home, its synced folder, its REST API."""

    def __init__(self, name: str, root: Path) -> None:
        self.name = name
        self.home = root / name / "home"
        self.folder = root / name / "data"
        self.sock = str(self.home / "gui.sock")
        self.apikey = f"test-apikey-{name}-{os.urandom(8).hex()}"
        self.port = BEP_PORTS[name]
        self.device_id = ""
        self.proc: subprocess.Popen | None = None
        self.log = root / name / "syncthing.log"

    def rest(self, method: str, path: str, body: object = None, timeout: float = 30) -> object:
        conn = _UnixHTTPConnection(self.sock, timeout)
        try:
            headers = {"X-API-Key": self.apikey}
            data = None
            if body is not None:
                data = json.dumps(body).encode()
                headers["Content-Type"] = "application/json"
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
            text = resp.read()
            if resp.status >= 300:
                raise RuntimeError(f"{self.name}: {method} {path} -> {resp.status} {text[:200]!r}")
            return json.loads(text) if text.strip() else None
        finally:
            conn.close()

    def idle(self) -> bool:
        return self.rest("GET", f"/rest/db/status?folder={FOLDER_ID}")["state"] == "idle"


class SyncPair:
    """Yielded by two_syncthings(): `a_dir` and `b_dir` are the two synced folders."""

    def __init__(self, a: Instance, b: Instance, ns_mode: str) -> None:
        self.a, self.b = a, b
        self.a_dir, self.b_dir = a.folder, b.folder
        self.ns_mode = ns_mode  # "root-netns" or "userns-netns"
        self.setup_s = 0.0

    def inst(self, which: str) -> Instance:
        return {"a": self.a, "b": self.b}[which]

    def scan(self, which: str = "a", sub: str | None = None) -> None:
        """Have `which` look at its folder now (rather than at the watcher's delay)."""
        query = "folder=" + FOLDER_ID + ("&sub=" + urllib.parse.quote(sub) if sub else "")
        self.inst(which).rest("POST", "/rest/db/scan?" + query)

    def pause(self) -> None:
        """Cut the connection between the two (A pauses B)."""
        self.a.rest("POST", "/rest/system/pause?device=" + self.b.device_id)

    def resume(self) -> None:
        self.a.rest("POST", "/rest/system/resume?device=" + self.b.device_id)

    def connected(self) -> bool:
        connections = self.a.rest("GET", "/rest/system/connections")["connections"]
        return bool(connections.get(self.b.device_id, {}).get("connected"))

    def wait_until(self, done, timeout: float = 30.0) -> bool:
        """Poll `done()` every 10 ms until it is true or `timeout` passes."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if done():
                return True
            time.sleep(0.01)
        return False

    def wait_for(self, path: Path, content: bytes | None = None, timeout: float = 30.0) -> bool:
        """Wait until `path` exists (with `content`, when given)."""

        def there() -> bool:
            try:
                found = Path(path).read_bytes()
            except FileNotFoundError:
                return False
            return content is None or found == content

        return self.wait_until(there, timeout)


def _run(cmd: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=60, env=env)


def _edit_config(inst: Instance) -> None:
    cfg = inst.home / "config.xml"
    tree = ET.parse(cfg)
    root = tree.getroot()
    opts = root.find("options")
    for el in opts.findall("listenAddress"):
        opts.remove(el)
    listen = ET.Element("listenAddress")
    listen.text = f"tcp://127.0.0.1:{inst.port}"
    opts.insert(0, listen)
    for tag, val in _OPTIONS.items():
        el = opts.find(tag)
        if el is None:
            el = ET.SubElement(opts, tag)
        el.text = val
    gui = root.find("gui")
    gui.set("enabled", "true")
    gui.set("tls", "false")
    gui.find("address").text = inst.sock  # an absolute path: a Unix socket
    gui.find("apikey").text = inst.apikey
    root.find("device").set("name", inst.name.upper())
    tree.write(cfg)


def _namespace() -> tuple[subprocess.Popen, list[str], str]:
    """A holder process in a new network namespace with `lo` up; the nsenter prefix."""
    for flags in _NAMESPACE_FLAGS:
        mode = "root-netns" if flags == ["--net"] else "userns-netns"
        holder = subprocess.Popen(
            ["unshare", *flags, "--", sys.executable, "-c", _HOLDER],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        if holder.stdout.readline().strip() == "ready":
            prefix = ["nsenter", f"--target={holder.pid}", "--net"]
            if mode == "userns-netns":
                prefix[2:2] = ["--user", "--preserve-credentials"]
            return holder, prefix, mode
        holder.wait(timeout=5)
    raise RuntimeError("cannot make a private network namespace (unshare): not started")


def _stop(inst: Instance) -> None:
    """REST shutdown, then SIGTERM, then SIGKILL: only this daemon's own process."""
    if inst.proc is None:
        return
    if inst.proc.poll() is None:
        try:
            inst.rest("POST", "/rest/system/shutdown", timeout=5)
        except Exception:
            inst.proc.send_signal(signal.SIGTERM)
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None:
            inst.proc.send_signal(sig)
        try:
            inst.proc.wait(timeout=10)
            return
        except subprocess.TimeoutExpired:
            pass


@contextlib.contextmanager
def two_syncthings(
    base_dir: Path | None = None, watcher_delay_s: int = 1, timeout: float = 30.0
) -> Iterator[SyncPair]:
    """Two connected daemons sharing one folder, both idle; stopped and removed after."""
    t0 = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix="two-st-", dir=base_dir))
    a, b = Instance("a", root), Instance("b", root)
    env = dict(os.environ, **_ENV)
    holder = None
    try:
        holder, prefix, ns_mode = _namespace()
        for inst in (a, b):  # keys and config, nothing started; then the config locked down
            inst.folder.mkdir(parents=True)
            generate = ["generate", "--home", str(inst.home), "--no-default-folder"]
            _run([*prefix, "syncthing", *generate, "--skip-port-probing"], env)
            ask = ["syncthing", "serve", "--device-id", "--home", str(inst.home)]
            inst.device_id = _run([*prefix, *ask], env).stdout.strip()
            _edit_config(inst)
        for inst in (a, b):
            serve = ["serve", "--home", str(inst.home), "--no-browser", "--no-restart"]
            with open(inst.log, "wb") as log:
                inst.proc = subprocess.Popen(
                    [*prefix, "syncthing", *serve, "--no-upgrade", "--logflags=7"],
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    preexec_fn=_pdeathsig,
                )
        end = time.monotonic() + timeout
        for inst in (a, b):
            while True:
                if inst.proc.poll() is not None:
                    raise RuntimeError(
                        f"syncthing {inst.name} exited: {inst.log.read_text()[-2000:]}"
                    )
                with contextlib.suppress(OSError, RuntimeError, http.client.HTTPException):
                    if inst.rest("GET", "/rest/system/ping", timeout=2) == {"ping": "pong"}:
                        break
                if time.monotonic() > end:
                    raise TimeoutError(f"syncthing {inst.name}: its REST API did not answer")
                time.sleep(0.05)
        # B learns of A first (with no address: discovery is off), so A's one dial is taken.
        b.rest(
            "POST",
            "/rest/config/devices",
            {"deviceID": a.device_id, "name": "A", "addresses": ["dynamic"]},
        )
        a.rest(
            "POST",
            "/rest/config/devices",
            {"deviceID": b.device_id, "name": "B", "addresses": [f"tcp://127.0.0.1:{b.port}"]},
        )
        for me in (a, b):
            me.rest(
                "POST",
                "/rest/config/folders",
                {
                    "id": FOLDER_ID,
                    "label": FOLDER_ID,
                    "path": str(me.folder),
                    "type": "sendreceive",
                    "fsWatcherEnabled": True,
                    "fsWatcherDelayS": watcher_delay_s,
                    "rescanIntervalS": 3600,
                    "devices": [{"deviceID": a.device_id}, {"deviceID": b.device_id}],
                },
            )
        pair = SyncPair(a, b, ns_mode)
        if not pair.wait_until(lambda: pair.connected() and a.idle() and b.idle(), timeout):
            raise TimeoutError("the two syncthing daemons did not connect")
        pair.setup_s = time.monotonic() - t0
        yield pair
    finally:
        for inst in (a, b):
            _stop(inst)
        if holder is not None:
            holder.terminate()
            try:
                holder.wait(timeout=5)
            except subprocess.TimeoutExpired:
                holder.kill()
                holder.wait()
        shutil.rmtree(root, ignore_errors=True)
