"""A setting is declared once: a row added to a table reaches the Settings page, its saved
file, `doctor`, the start's log and the live retune with no other edit."""

from __future__ import annotations

import json

from antidrift.server.app import create_app
from antidrift.server.bootstrap import Runtime
from antidrift.session.snapshot import CoachInfo
from antidrift.settings import SETTINGS, Setting, Table, doctor_lines, load, start_line
from antidrift.settings.kinds import Number
from antidrift.settings.table import SettingsBase

HOST = {"Host": "127.0.0.1:7717", "Origin": "http://127.0.0.1:7717"}
STRETCH = Setting(
    "stretch_minutes",
    "ANTIDRIFT_STRETCH_MINUTES",
    Number(1, 30, whole=True),
    "Minutes of a stretch between two commitments.",
    default=2,
    group="Breaks",
    label="Stretch, in minutes",
    help="A short stand-up between two commitments.",
    live="breaks",
    shared=True,
)


def with_stretch() -> Table:
    return Table((*SETTINGS, STRETCH), base=SettingsBase)


def test_a_row_added_to_a_table_is_in_doctor_with_its_value_and_source(tmp_path):
    table = with_stretch()
    lines = doctor_lines({"ANTIDRIFT_STRETCH_MINUTES": "7"}, tmp_path, table=table)
    line = next(line for line in lines if "ANTIDRIFT_STRETCH_MINUTES" in line)
    assert line.split() == ["ANTIDRIFT_STRETCH_MINUTES", "7", "environment"]
    refused = doctor_lines({"ANTIDRIFT_STRETCH_MINUTES": "99"}, tmp_path, table=table)
    assert any("ANTIDRIFT_STRETCH_MINUTES='99' is not accepted" in line for line in refused)
    assert not any("STRETCH" in line for line in doctor_lines({}, tmp_path))  # the real table


def test_a_row_added_to_a_table_is_on_the_page_saved_and_in_the_start_log(
    tmp_path, controller, store, clock
):
    table = with_stretch()
    settings = load({}, data_dir=tmp_path, table=table)
    assert settings.stretch_minutes == 2 and start_line(settings).endswith("at their defaults")
    app = create_app(settings, runtime=Runtime(controller, store, clock, CoachInfo(None, None)))
    app.config.update(TESTING=True)
    client = app.test_client()

    page = client.get("/settings").get_data(as_text=True)
    breaks = page[page.index("<legend>Breaks</legend>") :].split("</fieldset>")[0]
    assert "Stretch, in minutes" in breaks and 'name="stretch_minutes"' in breaks
    assert "A short stand-up between two commitments." in breaks

    answer = client.post("/settings", json={"stretch_minutes": "4"}, headers=HOST)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert answer.get_json()["stretch_minutes"] == {"value": 4, "source": "saved"}
    saved = json.loads((tmp_path / "settings.json").read_text())
    assert saved == {"stretch_minutes": 4}
    refused = client.post("/settings", json={"stretch_minutes": "0"}, headers=HOST)
    assert refused.status_code == 400 and "from 1 to 30" in refused.get_json()["error"]

    again = load({}, data_dir=tmp_path, table=table)  # the next start reads it back
    assert again.stretch_minutes == 4 and again.source("stretch_minutes") == "saved"
    assert "stretch_minutes=4 (saved)" in start_line(again)
    assert table.retuned(again.differs(settings)) == {"breaks"}
