"""The one settings reader: the table, three sources (default < saved < environment), the
refusals, and the Settings page's changes through LiveSettings."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from antidrift import settings
from antidrift.evidence.choose import MODES
from antidrift.settings import (
    PAGE_KEYS,
    SETTINGS,
    InvalidSetting,
    LiveSettings,
    SetByEnvironment,
    Settings,
    SettingsError,
    SettingsNotSaved,
    load,
)

# The Settings page's names, fixed by the design.
PAGE = (
    "ai_backend",
    "ai_model",
    "ai_effort",
    "drift",
    "drift_grace",
    "notify",
    "notify_command",
    "evidence_exclude",
    "window_source",
    "enforce",
    "enforce_after",
    "away_after",
    "tasks",
)


def _load(tmp_path: Path, **env: str) -> Settings:
    return load(env, data_dir=tmp_path)


def _refusal(tmp_path: Path, **env: str) -> str:
    with pytest.raises(SettingsError) as refused:
        _load(tmp_path, **env)
    return str(refused.value)


# -- the table ---------------------------------------------------------------------------------


def test_every_setting_is_a_field_and_every_field_a_setting():
    fields = {f.name for f in dataclasses.fields(Settings)} - {"env", "sources"}
    assert fields == {s.key for s in SETTINGS}
    assert len({s.variable for s in SETTINGS}) == len(SETTINGS)
    assert all(s.variable == "ANTIDRIFT_" + s.key.upper() for s in SETTINGS)
    assert all(s.about.strip() and s.accepted.strip() for s in SETTINGS)


def test_the_settings_page_names_are_all_changeable():
    assert set(PAGE) <= set(PAGE_KEYS)


def test_defaults_with_nothing_set(tmp_path):
    got = _load(tmp_path)
    assert (got.ai_backend, got.ai_effort, got.drift, got.notify) == ("claude", "low", "ai", "auto")
    assert (got.enforce, got.enforce_after, got.backups, got.tasks) == ("off", 30, 7, ())
    assert (got.drift_grace, got.window_source, got.port) == (60.0, "auto", 7717)
    assert got.data_dir == tmp_path and got.sources == {"data_dir": "command line"}
    assert got.source("drift") == "default"


def test_the_data_dir_default_follows_xdg(tmp_path):
    got = load({"XDG_DATA_HOME": str(tmp_path / "xdg")})
    assert got.data_dir == tmp_path / "xdg" / "antidrift" and got.source("data_dir") == "default"


# -- closed sets and ranges ----------------------------------------------------------------------


CLOSED = {
    "ANTIDRIFT_AI_BACKEND": ("claude", "codex", "command", "ollama", "openai"),
    "ANTIDRIFT_AI_EFFORT": ("low", "medium", "high", "default"),
    "ANTIDRIFT_DRIFT": ("ai", "off"),
    "ANTIDRIFT_NOTIFY": ("auto", "off", "command"),
    "ANTIDRIFT_WINDOW_SOURCE": MODES,
    "ANTIDRIFT_ENFORCE": ("off", "minimize"),
}


@pytest.mark.parametrize("variable", sorted(CLOSED))
def test_a_closed_set_refuses_anything_else_naming_every_accepted_value(tmp_path, variable):
    line = _refusal(tmp_path, **{variable: "of"})
    assert line.startswith(f"{variable}='of' is not accepted: use one of ")
    assert all(name in line for name in CLOSED[variable])
    assert "\n" not in line


@pytest.mark.parametrize("variable", sorted(CLOSED))
def test_a_closed_set_takes_each_of_its_names_in_any_case(tmp_path, variable):
    key = variable.removeprefix("ANTIDRIFT_").lower()
    needs = {  # what the backends and notifier need beside them
        "ANTIDRIFT_AI_MODEL": "llama3.2",
        "ANTIDRIFT_AI_URL": "http://127.0.0.1:8080/v1",
        "ANTIDRIFT_AI_COMMAND": "llm",
        "ANTIDRIFT_NOTIFY_COMMAND": "notify-send",
    }
    for name in CLOSED[variable]:
        assert getattr(_load(tmp_path, **needs, **{variable: f" {name.upper()} "}), key) == name


RANGES = [
    ("ANTIDRIFT_ENFORCE_AFTER", ["0", "601", "1.5", "-1", "thirty", "\u0663"], ["1", "600"]),
    ("ANTIDRIFT_BACKUPS", ["-1", "1001", "seven"], ["0", "1000"]),
    ("ANTIDRIFT_PORT", ["0", "65536"], ["1", "65535"]),
    ("ANTIDRIFT_DRIFT_GRACE", ["-1", "86401", "nan", "inf", "1e400"], ["0", "86400", "2.5"]),
    ("ANTIDRIFT_DRIFT_COOLDOWN", ["-0.1", "86401"], ["0", "86400"]),
    ("ANTIDRIFT_DRIFT_MAX_CALLS", ["0", "10001", "2.5", "\u00b2"], ["1", "10000"]),
    ("ANTIDRIFT_AI_TIMEOUT", ["0", "3601", "-5"], ["0.5", "3600"]),
    ("ANTIDRIFT_SAMPLE_INTERVAL", ["0.09", "3601"], ["0.1", "3600"]),
]


@pytest.mark.parametrize(("variable", "bad", "good"), RANGES, ids=[r[0] for r in RANGES])
def test_a_number_outside_its_range_is_refused_and_its_ends_are_taken(
    tmp_path, variable, bad, good
):
    for value in bad:
        line = _refusal(tmp_path, **{variable: value})
        assert line.startswith(f"{variable}={value!r} is not accepted: use a "), line
    key = variable.removeprefix("ANTIDRIFT_").lower()
    for value in good:
        assert getattr(_load(tmp_path, **{variable: value}), key) == float(value)


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("ANTIDRIFT_AI_MODEL", "--dangerously-skip-permissions"),
        ("ANTIDRIFT_AI_MODEL", "haiku sonnet"),
        ("ANTIDRIFT_AI_WARM", "maybe"),
        ("ANTIDRIFT_AI_ALLOW_REMOTE", "2"),
        ("ANTIDRIFT_AI_URL", "127.0.0.1:8080"),
        ("ANTIDRIFT_AI_URL", "http://me:pw@127.0.0.1:8080"),
        ("ANTIDRIFT_AW_URL", "http://10.1.2.3:5600"),
        ("ANTIDRIFT_AW_URL", "http://aw.example:5600"),
        ("ANTIDRIFT_AW_URL", "http://localhost.example:5600"),
        ("ANTIDRIFT_TASKS", "jira"),
        ("ANTIDRIFT_TASKS", "markdown:"),
        ("ANTIDRIFT_TASKS", "taskwarrior:x"),
        ("ANTIDRIFT_NOTIFY_COMMAND", "notify-send 'x"),
        ("ANTIDRIFT_EVIDENCE_EXCLUDE", "(bank"),
        ("ANTIDRIFT_ALLOWED_HOSTS", "a host"),
    ],
)
def test_other_values_a_setting_does_not_accept_are_refused(tmp_path, variable, value):
    assert _refusal(tmp_path, **{variable: value}).startswith(f"{variable}={value!r} is not")


def test_accepted_values_are_typed(tmp_path):
    got = _load(
        tmp_path,
        ANTIDRIFT_TASKS="taskwarrior, markdown:~/todo.md ,todotxt:/t/todo.txt,github",
        ANTIDRIFT_AI_WARM="yes",
        ANTIDRIFT_AW_URL="http://localhost:5666/",
        ANTIDRIFT_EVIDENCE_EXCLUDE="bank|private",
        ANTIDRIFT_ALLOWED_HOSTS="Laptop.local, other",
        ANTIDRIFT_AI_MODEL="Default",
    )
    assert got.tasks == ("taskwarrior", "markdown:~/todo.md", "todotxt:/t/todo.txt", "github")
    assert got.ai_warm is True and got.aw_url == "http://localhost:5666"
    assert got.evidence_exclude.search("My BANK") and got.allowed_hosts == ("laptop.local", "other")
    assert got.ai_model == "default"


def test_the_ai_key_is_never_in_a_refusal_or_a_repr(tmp_path):
    got = _load(tmp_path, ANTIDRIFT_AI_KEY="sk-SECRET")
    assert got.ai_key == "sk-SECRET" and "SECRET" not in repr(got)
    assert got.shown("ai_key") == "(set, hidden)"


# -- values that rule each other out -----------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({"ANTIDRIFT_AI_BACKEND": "ollama"}, ["ANTIDRIFT_AI_MODEL"]),
        ({"ANTIDRIFT_AI_BACKEND": "ollama", "ANTIDRIFT_AI_MODEL": "default"}, ["MODEL"]),
        ({"ANTIDRIFT_AI_BACKEND": "openai"}, ["ANTIDRIFT_AI_URL"]),
        ({"ANTIDRIFT_AI_BACKEND": "command"}, ["ANTIDRIFT_AI_COMMAND"]),
        ({"ANTIDRIFT_NOTIFY": "command"}, ["ANTIDRIFT_NOTIFY_COMMAND"]),
        ({"ANTIDRIFT_AI_URL": "http://192.168.1.5:11434"}, ["ANTIDRIFT_AI_ALLOW_REMOTE"]),
    ],
)
def test_values_fine_alone_are_refused_together(tmp_path, env, words):
    line = _refusal(tmp_path, **env)
    assert all(w in line for w in words), line


def test_ollama_gets_its_default_address_and_a_remote_url_when_allowed(tmp_path):
    got = _load(tmp_path, ANTIDRIFT_AI_BACKEND="ollama", ANTIDRIFT_AI_MODEL="llama3.2")
    assert got.ai_endpoint == "http://127.0.0.1:11434" and got.ai_url == ""
    remote = {"ANTIDRIFT_AI_URL": "https://llm.example/v1", "ANTIDRIFT_AI_ALLOW_REMOTE": "1"}
    assert _load(tmp_path, ANTIDRIFT_AI_BACKEND="openai", **remote).ai_endpoint == (
        "https://llm.example/v1"
    )


# -- sources ---------------------------------------------------------------------------------


def _save(tmp_path: Path, **values: object) -> Path:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(values))
    return path


def test_a_saved_value_counts_and_the_environment_wins_over_it(tmp_path):
    _save(tmp_path, drift="off", drift_grace=90, notify="off")
    got = _load(tmp_path, ANTIDRIFT_NOTIFY="auto")
    assert (got.drift, got.source("drift")) == ("off", "saved")
    assert (got.drift_grace, got.source("drift_grace")) == (90, "saved")
    assert (got.notify, got.source("notify")) == ("auto", "environment")
    assert got.source("enforce") == "default"


def test_an_empty_variable_counts_as_unset(tmp_path):
    _save(tmp_path, drift="off")
    got = _load(tmp_path, ANTIDRIFT_DRIFT="")
    assert (got.drift, got.source("drift")) == ("off", "saved")


def test_a_refused_saved_value_names_the_file_and_the_key(tmp_path):
    path = _save(tmp_path, drift="of")
    line = _refusal(tmp_path)
    assert line.startswith(f"{path} says drift='of', which is not accepted: use one of ai, off.")
    assert "ANTIDRIFT_DRIFT" in line  # the way out that needs no editor
    # The environment wins, so it also gets a server going without touching the file.
    assert _load(tmp_path, ANTIDRIFT_DRIFT="off").drift == "off"


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", "\xff\xfe"])
def test_an_unreadable_saved_file_is_one_line_naming_it(tmp_path, text):
    (tmp_path / "settings.json").write_bytes(text.encode("latin-1"))
    line = _refusal(tmp_path)
    assert str(tmp_path / "settings.json") in line and "\n" not in line


def test_a_saved_key_the_page_does_not_set_is_ignored(tmp_path, caplog):
    _save(tmp_path, ai_key="sk-x", someday="x", drift="off")
    got = _load(tmp_path)
    assert got.ai_key == "" and got.drift == "off"
    assert "'someday' is not a setting" in caplog.text


def test_a_flag_wins_but_a_bad_variable_still_refuses(tmp_path):
    got = load({"ANTIDRIFT_PORT": "8000"}, data_dir=tmp_path, overrides={"port": 9000})
    assert (got.port, got.source("port")) == (9000, "command line")
    with pytest.raises(SettingsError, match="ANTIDRIFT_PORT='x'"):
        load({"ANTIDRIFT_PORT": "x"}, data_dir=tmp_path, overrides={"port": 9000})


# -- the Settings page: LiveSettings -------------------------------------------------------------


def _live(tmp_path: Path, **env: str) -> LiveSettings:
    return LiveSettings(_load(tmp_path, **env))


def test_describe_gives_value_and_source_for_every_page_key(tmp_path):
    _save(tmp_path, enforce="minimize")
    described = _live(tmp_path, ANTIDRIFT_DRIFT="off", ANTIDRIFT_TASKS="github").describe()
    assert set(described) == set(PAGE_KEYS)
    assert described["drift"] == {"value": "off", "source": "environment"}
    assert described["enforce"] == {"value": "minimize", "source": "saved"}
    assert described["enforce_after"] == {"value": 30, "source": "default"}
    assert described["tasks"] == {"value": "github", "source": "environment"}
    json.dumps(described)  # JSON as it stands


def test_an_update_is_saved_survives_a_restart_and_tells_subscribers(tmp_path):
    live = _live(tmp_path)
    seen: list[Settings] = []
    live.subscribe(seen.append)
    after = live.update(
        {"drift": "off", "enforce_after": "45", "tasks": ["github", "markdown:/n.md"]}
    )
    assert live.current() is after and seen == [after]
    assert (after.drift, after.enforce_after, after.source("drift")) == ("off", 45, "saved")
    again = _load(tmp_path)  # a restart reads the file
    assert (again.drift, again.enforce_after, again.tasks) == (
        "off",
        45,
        ("github", "markdown:/n.md"),
    )
    assert again.source("enforce_after") == "saved"
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]  # no temporary left


def test_none_forgets_a_saved_value(tmp_path):
    live = _live(tmp_path)
    live.update({"drift_grace": 10})
    after = live.update({"drift_grace": None})
    assert (after.drift_grace, after.source("drift_grace")) == (60.0, "default")
    assert "drift_grace" not in json.loads((tmp_path / "settings.json").read_text())


def _nothing_changed(tmp_path: Path, live: LiveSettings, before: Settings, seen: list) -> None:
    assert live.current() is before and seen == []
    assert not (tmp_path / "settings.json").exists()


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"drift": "of"}, ["drift", "'of'", "one of ai, off"]),
        ({"enforce_after": 0}, ["enforce_after", "1 to 600"]),
        ({"drift_grace": "soon"}, ["drift_grace", "seconds"]),
        ({"window_source": "wayland"}, ["window_source", "activitywatch"]),
        ({"evidence_exclude": "(x"}, ["evidence_exclude", "regular expression"]),
        ({"notify": "loud", "drift": "off"}, ["notify"]),  # one bad change: none applied
        ({"drift": "off", "ai_backend": "ollama"}, ["ai_backend=ollama needs ai_model"]),
        ({"notify": "command"}, ["notify=command needs notify_command"]),
        ({"ai_url": "http://10.0.0.2:11434"}, ["ANTIDRIFT_AI_ALLOW_REMOTE"]),
        ({"drift": ["ai"]}, ["drift"]),
        ({"drift": {"value": "ai"}}, ["drift"]),
        ({"port": 8000}, ["no setting 'port'"]),
        ({"ai_key": "sk-x"}, ["no setting 'ai_key'"]),
        ({"nonsense": 1}, ["no setting 'nonsense'"]),
    ],
)
def test_a_refused_update_names_the_field_and_saves_nothing(tmp_path, changes, words):
    live = _live(tmp_path)
    before, seen = live.current(), []
    live.subscribe(seen.append)
    with pytest.raises(InvalidSetting) as refused:
        live.update(changes)
    assert refused.value.status == 400
    assert all(w in str(refused.value) for w in words), str(refused.value)
    _nothing_changed(tmp_path, live, before, seen)


def test_an_update_of_a_key_the_environment_sets_is_refused_naming_the_variable(tmp_path):
    live = _live(tmp_path, ANTIDRIFT_DRIFT="ai")
    before, seen = live.current(), []
    live.subscribe(seen.append)
    with pytest.raises(SetByEnvironment) as refused:
        live.update({"enforce": "minimize", "drift": "off"})
    assert refused.value.status == 409 and refused.value.key == "drift"
    assert "ANTIDRIFT_DRIFT" in str(refused.value)
    _nothing_changed(tmp_path, live, before, seen)


def test_a_file_that_cannot_be_written_changes_nothing(tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")  # even root cannot create a file inside a file
    live = LiveSettings(load({}, data_dir=tmp_path), path=blocker / "settings.json")
    before, seen = live.current(), []
    live.subscribe(seen.append)
    with pytest.raises(SettingsNotSaved) as refused:
        live.update({"drift": "off"})
    assert refused.value.status == 503 and "nothing changed" in str(refused.value)
    assert live.current() is before and seen == []


def test_an_update_keeps_what_the_file_holds_for_other_keys(tmp_path):
    _save(tmp_path, enforce="minimize", someday="kept")
    live = _live(tmp_path)
    live.update({"drift": "off"})
    saved = json.loads((tmp_path / "settings.json").read_text())
    assert saved == {"enforce": "minimize", "someday": "kept", "drift": "off"}


def test_a_failing_subscriber_does_not_hide_the_change_from_the_others(tmp_path):
    live = _live(tmp_path)
    seen: list[Settings] = []

    def broken(_: Settings) -> None:
        raise RuntimeError("boom")

    live.subscribe(broken)
    unsubscribe = live.subscribe(seen.append)
    live.update({"drift": "off"})
    unsubscribe()
    live.update({"drift": "ai"})
    assert [s.drift for s in seen] == ["off"]


# -- doctor -----------------------------------------------------------------------------------


def test_doctor_lists_every_setting_its_value_and_source_and_masks_the_key(tmp_path):
    _save(tmp_path, enforce="minimize")
    env = {"ANTIDRIFT_DATA_DIR": str(tmp_path), "ANTIDRIFT_AI_KEY": "sk-SECRET"}
    lines = settings.doctor_lines({**env, "ANTIDRIFT_DRIFT": "off"})
    text = "\n".join(lines)
    assert "SECRET" not in text
    rows = {ln.split()[0]: ln.split() for ln in lines[1:] if ln.startswith("  ANTIDRIFT_")}
    assert set(rows) == {s.variable for s in SETTINGS}
    assert rows["ANTIDRIFT_DRIFT"][1:] == ["off", "environment"]
    assert rows["ANTIDRIFT_ENFORCE"][1:] == ["minimize", "saved"]
    assert rows["ANTIDRIFT_ENFORCE_AFTER"][1:] == ["30", "default"]
    assert rows["ANTIDRIFT_AI_KEY"][-1] == "environment" and "hidden" in text


def test_doctor_names_a_calendar_address_by_its_host_never_its_secret_path(tmp_path):
    """Google's and Outlook's iCal addresses carry their key in the path: a doctor report
    pasted into a bug report must not hand out the calendar (the fetch's lines name the
    host alone already)."""
    secret = "https://calendar.example/ical/me/private-0123abcd/basic.ics"
    _save(tmp_path, calendar=f"{tmp_path / 'work.ics'},{secret}")
    lines = settings.doctor_lines({"ANTIDRIFT_DATA_DIR": str(tmp_path)})
    text = "\n".join(lines)
    assert "0123abcd" not in text and "/ical/" not in text
    [row] = [ln for ln in lines if ln.startswith("  ANTIDRIFT_CALENDAR ")]
    assert f"{tmp_path / 'work.ics'},https://calendar.example/…" in row


@pytest.mark.parametrize(
    "address",
    [
        "http://cal.example/ical/private-0123abcd/basic.ics",
        "webcal://cal.example/ical/private-0123abcd/basic.ics",
        "https://cal.example/ical/private-0123abcd/basic ics",
        "https://cal.example/ical/private-0123abcd/ba\x07sic.ics",
        "https://cal.example:port/ical/private-0123abcd/basic.ics",
        "https:/cal.example/ical/private-0123abcd/basic.ics",  # a slash short
        "webcal:cal.example/ical/private-0123abcd/basic.ics",
    ],
)
def test_a_refused_calendar_address_is_named_by_its_host_wherever_it_is_refused(tmp_path, address):
    """Its key is in the path: a refusal goes to the terminal, the log (the service's
    journal) and the page; none of them hands it out."""
    said = [_refusal(tmp_path, ANTIDRIFT_CALENDAR=address)]  # at a start
    with pytest.raises(InvalidSetting) as refused:  # a Save on the Settings page
        _live(tmp_path).update({"calendar": address})
    said.append(refused.value.message)
    _save(tmp_path, calendar=address)  # a settings.json edited by hand
    said.append(_refusal(tmp_path))
    for message in said:
        assert "0123abcd" not in message and "/ical/" not in message, message
        assert "is not accepted" in message, message
        assert "cal.example" in message or "(an address)" in message, message


def test_a_hand_edited_list_of_calendars_is_refused_without_its_addresses(tmp_path):
    secret = "https://cal.example/ical/private-0123abcd/basic.ics"
    _save(tmp_path, calendar=[secret, "http://other.example/k/9876fedc/b.ics"])
    message = _refusal(tmp_path)
    assert "is not accepted" in message and "other.example" in message, message
    assert "0123abcd" not in message and "9876fedc" not in message, message


def test_doctor_names_a_refused_value_and_exits_non_zero(tmp_path, capsys, monkeypatch):
    from antidrift.server import commands

    for name, value in {
        "ANTIDRIFT_DATA_DIR": str(tmp_path),
        "ANTIDRIFT_DRIFT": "of",
        "ANTIDRIFT_WINDOW_SOURCE": "off",
        "ANTIDRIFT_AI_KEY": "sk-SECRET",
    }.items():
        monkeypatch.setenv(name, value)
    assert commands.main(["doctor"]) == 1
    out = capsys.readouterr().out
    assert "refused: ANTIDRIFT_DRIFT='of' is not accepted: use one of ai, off." in out
    assert "ANTIDRIFT_AI_BACKEND=claude" in out and "SECRET" not in out


def test_the_data_dir_alone_never_refuses_other_settings(tmp_path):
    env = {"ANTIDRIFT_DATA_DIR": str(tmp_path / "d"), "ANTIDRIFT_DRIFT": "of"}
    assert settings.data_dir(env) == tmp_path / "d"
    assert settings.data_dir(env, flag=str(tmp_path / "f")) == tmp_path / "f"
    assert settings.data_dir({"HOME": str(tmp_path)}) == tmp_path / ".local/share/antidrift"
