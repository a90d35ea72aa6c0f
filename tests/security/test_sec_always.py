"""Release 0.4, "always there": the manifest, the icons and the waiting /state keep the
host and origin rules and the strict CSP, on a real server. The command line (no Origin,
no Sec-Fetch headers) is a local API client and may change state."""

from __future__ import annotations

import json
import time

import pytest

from tests.support.timing import assert_within

NEW_ROUTES = ["/manifest.webmanifest", "/static/icons/icon-192.png", "/state?wait=5"]


@pytest.mark.parametrize("path", NEW_ROUTES)
def test_foreign_hosts_get_nothing_from_the_new_routes(server, sec, path):
    for host in ("evil.com", f"127.0.0.1.nip.io:{server.port}", f"0.0.0.0:{server.port}"):
        status, _, body = sec.http(server.port, "GET", path, headers={"Host": host})
        assert status == 403, (path, host)
        assert json.loads(body)["error"] == "This server only answers to its local address."


def test_the_manifest_answers_under_the_strict_csp_which_allows_only_our_own(server, sec):
    status, headers, body = sec.http(server.port, "GET", "/manifest.webmanifest")
    assert status == 200 and headers["content-type"] == "application/manifest+json"
    assert json.loads(body)["name"] == "AntiDrift"
    policy = dict(
        (d.split()[0], d.split()[1:]) for d in headers["content-security-policy"].split("; ")
    )
    assert policy["default-src"] == ["'none'"] and policy["manifest-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"] and policy["style-src"] == ["'self'"]
    assert headers["x-content-type-options"] == "nosniff"


def test_a_waiting_state_request_from_a_foreign_host_is_refused_at_once(server, sec):
    tag = sec.http(server.port, "GET", "/state")[1]["etag"]
    started = time.monotonic()
    status, _, _ = sec.http(
        server.port, "GET", "/state?wait=30", headers={"Host": "evil.com", "If-None-Match": tag}
    )
    assert status == 403
    assert_within(time.monotonic() - started, 3, "the refusal")  # refused, not held


def test_a_client_without_origin_changes_state_and_a_foreign_origin_does_not(server, sec):
    """What `antidrift back` and friends send: no Origin, no Sec-Fetch-Site."""
    server.reset()
    status, _, _ = sec.http(server.port, "POST", "/planning", headers={"User-Agent": "antidrift"})
    assert status == 200 and server.get("/state")["runtime_state"] == "planning"
    status, _, _ = sec.http(
        server.port, "POST", "/planning/cancel", headers={"Origin": "http://evil.com"}
    )
    assert status == 403 and server.get("/state")["runtime_state"] == "planning"
    server.reset()
