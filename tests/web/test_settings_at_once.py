"""Settings say everything at once (the page 0.6, items 1–2): a Save with several bad values
marks every one beside its field, saves nothing and leaves settings.json byte for byte; a
choice re-renders its group (POST /settings/group) so a field it needs unfolds."""

from __future__ import annotations

from tests.support.html import parse

HOST = {"Host": "127.0.0.1:7717", "Origin": "http://127.0.0.1:7717"}
AS_PAGE = {**HOST, "Accept": "text/html"}
BAD = {"drift_grace": "soon", "enforce_after": "9999", "break_minutes": "0", "tasks": "x:y"}


def test_every_bad_value_is_marked_at_once_and_nothing_is_saved(serve, tmp_path):
    saved = tmp_path / "settings.json"
    saved.write_text('{"long_break_every": 3}\n  ')  # the user's own spacing, kept
    before = saved.read_bytes()
    client, runtime = serve()
    typed = {**BAD, "enforce": "minimize", "ai_effort": "high"}
    answer = client.post("/settings", data=typed, headers=AS_PAGE)
    assert answer.status_code == 400
    doc = parse(answer.get_data(as_text=True))
    for key in BAD:
        field = doc.by_id(f"set-{key}")
        assert field.get("aria-invalid") == "true", key
        assert field.get("value") == BAD[key], key
        assert doc.by_id(f"error-{key}").text().strip(), key
    assert doc.by_id("set-ai_effort").get("aria-invalid") is None
    # The first refused field takes the focus; the top names every one, each a link to it.
    focused = [key for key in BAD if "autofocus" in doc.by_id(f"set-{key}").attrs]
    assert focused == ["drift_grace"]
    top = doc.by_id("settings-message")
    assert "Nothing was saved" in top.text()
    links = [a.get("href") for a in top.find_all("a")]
    assert links == [f"#set-{key}" for key in BAD]
    assert saved.read_bytes() == before
    assert runtime.settings.current().source("ai_effort") == "default"


def test_a_json_client_hears_every_refusal_in_one_answer(serve, tmp_path):
    client, runtime = serve({"ANTIDRIFT_DRIFT": "ai"})
    body = {"enforce": "close", "drift": "off", "break_minutes": 500, "ai_effort": "high"}
    answer = client.post("/settings", json=body, headers=HOST)
    assert answer.status_code == 400  # one is the environment's (409), the others bad values
    error = answer.get_json()["error"]
    for words in ("enforce: 'close'", "ANTIDRIFT_DRIFT", "break_minutes: 500"):
        assert words in error
    assert not (tmp_path / "settings.json").exists()
    locked = client.post("/settings", json={"drift": "off"}, headers=HOST)
    assert locked.status_code == 409


def test_a_choice_re_renders_its_group_with_what_it_needs_and_saves_nothing(serve, tmp_path):
    client, runtime = serve()
    page = parse(client.get("/settings").get_data(as_text=True))
    folded = page.by_id("settings-notifications").find_all("details")
    assert folded and "Notification command" in folded[0].text()
    choice = page.by_id("set-notify")
    assert choice.get("hx-post") == "/settings/group" and choice.get("hx-trigger") == "change"
    assert choice.get("hx-target") == "#settings-notifications"

    typed = {"group": "Notifications", "notify": "command", "notify_command": "say it"}
    answer = client.post("/settings/group", data={**typed, "drift_grace": "12"}, headers=HOST)
    assert answer.status_code == 200
    group = parse(answer.get_data(as_text=True)).by_id("settings-notifications")
    assert not group.find_all("details")  # the command is shown, not folded away
    assert group.by_id("set-notify_command").get("value") == "say it"
    options = group.by_id("set-notify").find_all("option")
    assert [o.get("value") for o in options if "selected" in o.attrs] == ["command"]
    assert group.by_id("set-drift_grace") is None  # only its own group
    # Every control stays as it is on the page (what is typed, the focus): only where it sits.
    controls = group.find_all("select") + group.find_all("input")
    assert controls and all(c.get("hx-preserve") == "true" for c in controls)
    assert "hx-preserve" not in client.get("/settings").get_data(as_text=True)
    assert not (tmp_path / "settings.json").exists()
    assert runtime.settings.current().notify == "auto"

    back = client.post("/settings/group", data={**typed, "notify": "off"}, headers=HOST)
    group = parse(back.get_data(as_text=True)).by_id("settings-notifications")
    assert "Notification command" in group.find_all("details")[0].text()


def test_an_unknown_group_is_a_sentence(serve):
    client, _ = serve()
    answer = client.post("/settings/group", data={"group": "<b>x</b>"}, headers=HOST)
    assert answer.status_code == 400
    assert "reload the page" in answer.get_json()["error"]
    assert "<b>" not in answer.get_data(as_text=True)
