"""The Settings page: GET /settings, POST /settings (form or JSON), GET /settings.json —
saved in the data directory, refused values change nothing, the environment wins."""

from __future__ import annotations

import json

HOST = {"Host": "127.0.0.1:7717", "Origin": "http://127.0.0.1:7717"}


def test_json_round_trip_saves_in_the_data_dir_and_survives_a_restart(serve, tmp_path):
    client, runtime = serve()
    before = client.get("/settings.json").get_json()
    assert before["drift_grace"]["source"] == "default"
    answer = client.post("/settings", json={"drift_grace": 45, "enforce": "minimize"}, headers=HOST)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    body = answer.get_json()
    assert body["drift_grace"] == {"value": 45, "source": "saved"}
    assert body["enforce"] == {"value": "minimize", "source": "saved"}
    assert body["ai_effort"]["source"] == "default"
    assert runtime.settings.current().drift_grace == 45
    saved = json.loads((tmp_path / "settings.json").read_text())
    assert saved == {"drift_grace": 45, "enforce": "minimize"}
    again, _ = serve()  # a restart: a new server over the same data directory
    assert again.get("/settings.json").get_json()["drift_grace"] == {"value": 45, "source": "saved"}


def test_a_bad_value_is_400_and_nothing_is_saved(serve, tmp_path):
    client, runtime = serve()
    answer = client.post("/settings", json={"drift_grace": 30, "enforce": "close"}, headers=HOST)
    assert answer.status_code == 400
    assert "enforce" in answer.get_json()["error"]
    assert not (tmp_path / "settings.json").exists()
    assert runtime.settings.current().source("drift_grace") == "default"
    page = client.post(
        "/settings",
        data={"drift_grace": "soon", "enforce": "off"},
        headers={**HOST, "Accept": "text/html"},
    )
    assert page.status_code == 400
    text = page.get_data(as_text=True)
    assert 'id="set-drift_grace"' in text
    field = text.split('id="set-drift_grace"', 1)[1].split(">", 1)[0]
    assert 'aria-invalid="true"' in field and 'value="soon"' in field
    other = text.split('id="set-ai_model"', 1)[1].split(">", 1)[0]
    assert "aria-invalid" not in other
    assert not (tmp_path / "settings.json").exists()


def test_the_environment_wins_409_names_the_variable_and_the_page_locks_it(serve, tmp_path):
    client, _ = serve({"ANTIDRIFT_DRIFT": "off"})
    assert client.get("/settings.json").get_json()["drift"] == {
        "value": "off",
        "source": "environment",
    }
    answer = client.post("/settings", json={"drift": "ai"}, headers=HOST)
    assert answer.status_code == 409 and "ANTIDRIFT_DRIFT" in answer.get_json()["error"]
    assert not (tmp_path / "settings.json").exists()
    page = client.get("/settings").get_data(as_text=True)
    control = page.split('id="set-drift"', 1)[1].split(">", 1)[0]
    assert "disabled" in control
    assert "Set by ANTIDRIFT_DRIFT" in page
    # The form sends every field but a disabled one; the rest as shown are no change.
    form = client.post(
        "/settings",
        data={"drift_grace": "20", "enforce": "off", "ai_effort": "high"},
        headers={**HOST, "Accept": "text/html"},
    )
    assert form.status_code == 303 and form.headers["Location"].endswith("/settings?saved=1")
    assert json.loads((tmp_path / "settings.json").read_text()) == {
        "ai_effort": "high",
        "drift_grace": 20,
    }


def test_the_page_shows_every_page_setting_with_its_source(serve):
    client, _ = serve()
    client.post("/settings", json={"ai_model": "sonnet"}, headers=HOST)
    page = client.get("/settings")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    for key in client.get("/settings.json").get_json():
        assert f'name="{key}"' in text, key
    assert 'value="sonnet"' in text and "Saved here." in text
    assert "ANTIDRIFT_" not in text  # nothing is set by the environment here


def test_null_forgets_a_saved_value(serve, tmp_path):
    client, _ = serve()
    client.post("/settings", json={"ai_effort": "high"}, headers=HOST)
    answer = client.post("/settings", json={"ai_effort": None}, headers=HOST)
    assert answer.get_json()["ai_effort"]["source"] == "default"
    assert "ai_effort" not in json.loads((tmp_path / "settings.json").read_text())
