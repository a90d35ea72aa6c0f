"""What the pages say and how they hold it (issue 33, items 11 and 12): the locked view says
what the day holds, "Done when" is the only name people read for the success condition, the
coach's errors carry no backticks and never send the user to a Settings page that cannot
help, Settings refusals sit beside their field under its label, help lines do not repeat the
label, fields that do not apply are folded away, user text carries dir="auto", and one entry
says the same on the locked view's history as on Insights."""

from __future__ import annotations

import inspect

import pytest

from antidrift.ai import errors as coach_errors
from antidrift.web.words import in_words
from tests.support.html import parse
from tests.support.web import commit, to

HOST = {"Host": "127.0.0.1:7717", "Origin": "http://127.0.0.1:7717"}
AS_PAGE = {**HOST, "Accept": "text/html"}


def page(client, path: str = "/"):
    return parse(client.get(path).get_data(as_text=True))


def locked_heading(client) -> str:
    client.post("/planning")  # the closure goes with the next planning
    client.post("/planning/cancel")
    return " ".join(page(client).by_id("locked-title").text().split())


# -- the locked view's heading ------------------------------------------------------------------


def test_the_locked_heading_says_what_the_day_holds(client, clock):
    assert page(client).by_id("locked-title").text() == "No commitment yet."
    commit(client, clock, "missed")
    assert locked_heading(client) == "1 missed today"
    commit(client, clock, "met")
    commit(client, clock, "met")
    assert locked_heading(client) == "2 met, 1 missed today"
    assert "No commitment yet" not in page(client).by_id("view").text()


# -- "Done when", the coach's errors ------------------------------------------------------------


def test_done_when_is_the_only_name_people_read(client, clock):
    to(client, "planning")
    refused = client.post("/commitment", data={"next_action": "x", "success_condition": ""})
    assert "Done when is required" in refused.get_data(as_text=True)
    assert "success condition" not in client.get("/").get_data(as_text=True).lower()
    client.post("/planning/cancel")
    commit(client, clock, "met")
    for path in ("/", "/insights"):
        text = client.get(path).get_data(as_text=True)
        assert "success condition" not in text.lower(), path
    client.post("/planning")
    client.post(
        "/commitment", json={"next_action": "a", "success_condition": "b", "timebox_minutes": 5}
    )
    client.post("/finish")
    review = page(client)
    assert review.find_all("legend")[0].text() == "Was it done?"
    assert "success condition" not in review.text().lower()


def coach_error_messages() -> list[str]:
    said = []
    for _, cls in inspect.getmembers(coach_errors, inspect.isclass):
        if issubclass(cls, coach_errors.CoachError) and cls is not coach_errors.CoachError:
            said.append(str(cls()))
    said += [str(coach_errors.CLINoKey("llm", "anthropic")), str(coach_errors.CLINoKey("x"))]
    return said


def test_no_coach_error_carries_a_backtick():
    messages = coach_error_messages()
    assert len(messages) >= 12
    assert [m for m in messages if "`" in m] == []


@pytest.mark.parametrize(
    ("error", "said"),
    [
        # A program's path is no field of the Settings page: it is not sent there.
        (
            "claude is not installed — install it, or set ANTIDRIFT_CLAUDE_BIN",
            "Claude is not installed — install it",
        ),
        (
            "claude is not installed — install it, or set ANTIDRIFT_AI_BACKEND=codex",
            "Claude is not installed — install it, or change “Which AI” in Settings",
        ),
        (
            "x is not installed — install it, or fix ANTIDRIFT_AI_COMMAND (it names nothing)",
            "X is not installed — install it",
        ),
        # One the page holds is named by its label there.
        (
            "notify-send failed — fix ANTIDRIFT_NOTIFY_COMMAND",
            "Notify-send failed — change “Notification command” in Settings",
        ),
        ("llm has no key — run `llm keys set openai`", "Llm has no key — run llm keys set openai"),
    ],
)
def test_an_error_in_words_names_no_variable_and_no_settings_that_cannot_help(error, said):
    assert in_words(error) == said
    assert "see Settings" not in in_words(error)


# -- Settings: refusals beside their field, help, examples, folds -------------------------------


def field_of(doc, key: str):
    return doc.by_id(f"set-{key}")


def test_a_refusal_sits_beside_its_field_under_its_label(serve, tmp_path):
    client, _ = serve()
    answer = client.post("/settings", data={"drift_grace": "-1", "enforce": "off"}, headers=AS_PAGE)
    assert answer.status_code == 400
    doc = parse(answer.get_data(as_text=True))
    beside = doc.by_id("error-drift_grace")
    assert beside is not None and beside.get("role") == "alert"
    assert beside.text().startswith("Seconds off task before a nudge: '-1' is not accepted")
    field = field_of(doc, "drift_grace")
    assert field.get("aria-invalid") == "true" and "autofocus" in field.attrs
    assert field.get("aria-describedby").split() == ["error-drift_grace", "about-drift_grace"]
    # The top says nothing was saved and where; no internal key anywhere people read.
    top = doc.by_id("settings-message")
    assert top.text() == "Nothing was saved: Seconds off task before a nudge needs a change."
    assert top.find_all("a")[0].get("href") == "#set-drift_grace"
    assert "drift_grace:" not in doc.by_id("settings").text()
    assert not (tmp_path / "settings.json").exists()
    # JSON keeps the key: a program reads it.
    json_answer = client.post("/settings", json={"drift_grace": -1}, headers=HOST)
    assert json_answer.get_json()["error"].startswith("drift_grace: ")


def test_a_conflict_names_the_other_setting_by_its_label(serve):
    client, _ = serve()
    answer = client.post(
        "/settings", data={"notify": "command", "notify_command": ""}, headers=AS_PAGE
    )
    assert answer.status_code == 400
    doc = parse(answer.get_data(as_text=True))
    beside = doc.by_id("error-notify_command").text()
    assert "“Notifications”=command needs “Notification command”" in beside
    # Refused, the field shows though its choice would fold it.
    assert "notify_command" not in folded(doc)
    # A refused field stays in sight even where the choices beside it would fold it away.
    answer = client.post("/settings", data={"drift": "off", "drift_grace": "-1"}, headers=AS_PAGE)
    doc = parse(answer.get_data(as_text=True))
    assert doc.by_id("error-drift_grace") is not None and "drift_grace" not in folded(doc)
    assert {"enforce", "enforce_after"} <= folded(doc)


def test_help_lines_do_not_repeat_their_label_and_tasks_shows_an_example(serve):
    client, _ = serve()
    doc = page(client, "/settings")
    fields = doc.find_all("div", class_="setting")
    assert len(fields) >= 15
    for div in fields:
        label = div.find_all("label")[0].text().strip()
        about = div.find_all("p", class_="setting-about")[0].text()
        assert label.lower() not in about.lower(), (label, about)
    assert "e.g. markdown:/" in doc.by_id("about-tasks").text()


def folded(doc) -> set[str]:
    return {
        n.id.removeprefix("set-")
        for d in doc.find_all("details", class_="setting-folded")
        for n in d.iter()
        if n.id and n.id.startswith("set-")
    }


def test_fields_that_do_not_apply_are_folded_away(serve):
    client, _ = serve()
    doc = page(client, "/settings")
    # claude is a CLI: no server address; no notification command, no teeth's delay.
    assert folded(doc) == {
        "ai_url",
        "notify_command",
        "enforce_after",
        "calendar_email",
        "device_name",
        "sync_passphrase",
    }
    summary = doc.find_all("details", class_="setting-folded")[0].find_all("summary")[0].text()
    assert summary == "Not used with these choices: Address of the AI server"
    saved = {"ai_backend": "ollama", "ai_model": "llama3.2", "notify": "command"}
    saved["notify_command"] = "notify-send --"
    answer = client.post("/settings", json={**saved, "enforce": "minimize"}, headers=HOST)
    assert answer.status_code == 200, answer.get_json()
    assert folded(page(client, "/settings")) == {"calendar_email", "device_name", "sync_passphrase"}
    assert client.post("/settings", json={"drift": "off"}, headers=HOST).status_code == 200
    assert folded(page(client, "/settings")) == {
        "drift_grace",
        "enforce",
        "enforce_after",
        "calendar_email",
        "device_name",
        "sync_passphrase",
    }


# -- dir="auto", one entry's details ------------------------------------------------------------


def test_user_text_carries_dir_auto(client, clock, store):
    to(client, "planning")
    doc = page(client)
    assert {doc.by_id(i).get("dir") for i in ("intent", "next_action", "success_condition")} == {
        "auto"
    }
    client.post(
        "/commitment",
        json={"next_action": "כתוב", "success_condition": "נגמר", "timebox_minutes": 5},
    )
    active = page(client)
    assert active.by_id("active-title").get("dir") == "auto"
    done_when = active.find_all("p", class_="done-when")[0]
    assert done_when.find_all("span", dir="auto")[0].text() == "נגמר"
    client.post("/evidence/window", json={"app": "Firefox", "title": "עמוד"})
    clock.advance(5)
    client.post("/finish")
    review = page(client)
    assert review.by_id("review-title").get("dir") == "auto"
    assert review.by_id("note").get("dir") == "auto"
    cell = review.find_all("span", class_="share-window clamp-2")[0]
    assert [n.text() for n in cell.find_all(dir="auto")] == ["Firefox", "עמוד"]
    client.post("/end", json={"outcome": "met", "note": "טוב"})
    for path in ("/", "/insights"):
        doc = page(client, path)
        assert doc.find_all("p", class_="history-action clamp-2")[0].get("dir") == "auto", path
        assert doc.find_all("p", class_="history-note clamp-2")[0].get("dir") == "auto", path


def test_one_entry_says_the_same_on_history_and_insights(client, clock, store):
    to(client, "active")
    clock.advance(60)
    client.post("/pause")
    clock.advance(120)
    client.post("/resume")
    client.post("/extend", json={"minutes": 5})
    clock.advance(300)
    client.post("/finish")
    cid = client.get("/state").get_json()["commitment"]["id"]
    client.post("/end", json={"outcome": "missed", "note": "Too long"})
    store.summaries[cid] = (2, 0.75)  # the drift guard watched it: two drifts, 75% on task

    def meta(path: str) -> str:
        return " ".join(page(client, path).find_all("p", class_="history-meta")[0].text().split())

    said = meta("/")
    assert said == meta("/insights")
    for part in ("+ 5 extended", "2 min paused", "75% on task", "2 drifts", "taken"):
        assert part in said, said
