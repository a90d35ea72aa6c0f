"""Every route that changes something refuses another origin, found from the app's own URL
map (a route added later is covered without a line here). The case that matters most: the
same host on another port, i.e. another local app, which a browser calls "same-site"."""

from __future__ import annotations

import pytest

HOST = {"Host": "127.0.0.1:7717"}
OTHER_ORIGINS = [
    {"Origin": "http://127.0.0.1:7718", "Sec-Fetch-Site": "same-site"},
    {"Origin": "http://127.0.0.1:7718"},
    {"Origin": "http://127.0.0.1"},  # the default port is another port too
    {"Origin": "http://localhost:7717"},  # another name is another origin
]


def changing_routes(app) -> list[str]:
    """Each POST route of the app (path parameters filled in), and the websocket."""
    paths = []
    for rule in app.url_map.iter_rules():
        if "POST" in (rule.methods or ()):
            paths.append(rule.rule.replace("<", "").replace(">", "").replace("string:", ""))
    return sorted(set(paths)) + ["/ws"]


def test_the_app_has_the_routes_this_test_is_about(app):
    assert {"/planning", "/commitment", "/finish", "/end", "/ws"} <= set(changing_routes(app))


@pytest.mark.parametrize("headers", OTHER_ORIGINS, ids=lambda h: " ".join(h.values()))
def test_another_origin_is_refused_on_every_changing_route_and_nothing_changes(
    app, client, controller, headers
):
    before = controller.snapshot()
    for path in changing_routes(app):
        method = client.get if path == "/ws" else client.post
        response = method(path, headers={**HOST, **headers})
        assert response.status_code == 403, (path, headers, response.status_code)
        assert b"Requests from other origins are refused." in response.data, path
    after = controller.snapshot()
    assert (after.state, after.commitment, after.version) == (
        before.state,
        before.commitment,
        before.version,
    )


def test_the_pages_own_origin_is_served(client):
    response = client.post("/planning", headers={**HOST, "Origin": "http://127.0.0.1:7717"})
    assert response.status_code == 200
