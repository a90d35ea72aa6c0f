"""A loopback stand-in of the GitHub REST API that the real `gh` talks to, over HTTPS with a
self-signed certificate made for 127.0.0.1 (gh only speaks HTTPS to an enterprise host).

gh is pointed at it by its environment (verified on gh 2.23.0): `GH_HOST=127.0.0.1:<port>`
(an enterprise host: REST under /api/v3/), `GH_ENTERPRISE_TOKEN` (a made-up token) and
`SSL_CERT_FILE` (the certificate). `gh_env()` builds that environment on top of
real_cli.isolated_env, so nothing of the user's gh login or config is used."""

from __future__ import annotations

import json
import shutil
import ssl
import subprocess
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.support.real_cli import isolated_env

TOKEN = "fake-token-for-the-stand-in"


def make_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate and key for 127.0.0.1 (openssl), valid for two days."""
    folder.mkdir(parents=True, exist_ok=True)
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            shutil.which("openssl") or "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
        timeout=30,
    )
    return cert, key


def issue(number: int, title: str, repo: str = "octo/app", **extra) -> dict:
    """An issue as GET /issues lists it (the fields gh's --jq keeps, and a body)."""
    return {
        "number": number,
        "title": title,
        "html_url": f"https://github.example/{repo}/issues/{number}",
        "repository": {"full_name": repo},
        "state": "open",
        "body": "long text " * 50,
        **extra,
    }


@dataclass
class Request:
    method: str
    path: str
    authorization: str | None
    body: dict | None


@dataclass
class Behaviour:
    """What the stand-in answers; a test changes it between calls."""

    issues: list[dict] = field(default_factory=list)
    status: int = 200  # e.g. 401 for a revoked token
    hang: bool = False  # accept the request and never answer
    flood: int = 0  # answer this many issues, each with a 1 KiB title


class GitHubStandIn:
    """HTTPS on an ephemeral loopback port; records every request."""

    def __init__(self, cert: Path, key: Path) -> None:
        self.cert = cert
        self.behaviour = Behaviour()
        self.requests: list[Request] = []
        self._stop = threading.Event()
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def _record(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                stand_in.requests.append(
                    Request(
                        self.command,
                        self.path,
                        self.headers.get("Authorization"),
                        json.loads(raw) if raw else None,
                    )
                )

            def _reply(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _answer(self, ok: object) -> None:
                b = stand_in.behaviour
                if b.hang:
                    stand_in._stop.wait(30)
                    return
                if b.status != 200:
                    message = {401: "Bad credentials", 404: "Not Found"}.get(b.status, "Oops")
                    self._reply(b.status, json.dumps({"message": message}).encode())
                elif b.flood:
                    many = [issue(n, "x" * 1024) for n in range(1, b.flood + 1)]
                    self._reply(200, json.dumps(many).encode())
                else:
                    self._reply(200 if self.command == "GET" else 201, json.dumps(ok).encode())

            def do_GET(self) -> None:  # noqa: N802
                self._record()
                self._answer(stand_in.behaviour.issues)

            def do_POST(self) -> None:  # noqa: N802
                self._record()
                self._answer({"id": 1, "html_url": "https://github.example/comment/1"})

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert, key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.host = f"127.0.0.1:{self.server.server_port}"
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    def gh_env(self, home: Path, dead_port: int, *, token: str | None = TOKEN) -> dict[str, str]:
        """The environment under which the real gh talks to this stand-in and nothing else."""
        env = isolated_env(home, dead_port)
        for name in ("GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"):
            env.pop(name, None)
        env.update(
            GH_HOST=self.host,
            GH_CONFIG_DIR=str(home / "gh-config"),
            SSL_CERT_FILE=str(self.cert),
        )
        if token is not None:
            env["GH_ENTERPRISE_TOKEN"] = token
        return env

    def close(self) -> None:
        self._stop.set()
        self.server.shutdown()
        self.server.server_close()
