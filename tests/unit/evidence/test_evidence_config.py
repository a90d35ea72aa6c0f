"""ANTIDRIFT_WINDOW_SOURCE and ANTIDRIFT_AW_URL: checked once at start-up, with a sentence."""

from __future__ import annotations

import pytest

from antidrift.evidence.choose import MODES
from antidrift.settings import SettingsError, load


def test_defaults(tmp_path):
    config = load({}, data_dir=tmp_path)
    assert config.window_source == "auto"
    assert config.aw_url == "http://127.0.0.1:5600"


@pytest.mark.parametrize("mode", MODES)
def test_every_source_name_is_accepted_in_any_case(tmp_path, mode):
    env = {"ANTIDRIFT_WINDOW_SOURCE": f" {mode.upper()} "}
    assert load(env, data_dir=tmp_path).window_source == mode


def test_an_unknown_source_is_refused_naming_the_valid_ones(tmp_path):
    with pytest.raises(SettingsError) as raised:
        load({"ANTIDRIFT_WINDOW_SOURCE": "wayland"}, data_dir=tmp_path)
    assert "ANTIDRIFT_WINDOW_SOURCE='wayland'" in str(raised.value)
    assert all(mode in str(raised.value) for mode in MODES)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("http://localhost:5666/", "http://localhost:5666"),
        ("https://[::1]:5600", "https://[::1]:5600"),
    ],
)
def test_an_aw_url_is_kept_without_its_trailing_slash(tmp_path, value, expected):
    assert load({"ANTIDRIFT_AW_URL": value}, data_dir=tmp_path).aw_url == expected


@pytest.mark.parametrize(
    "value", ["127.0.0.1:5600", "ftp://127.0.0.1", "http://", "http://host:port", "http://[::1"]
)
def test_an_aw_url_that_is_no_http_url_is_refused(tmp_path, value):
    with pytest.raises(SettingsError, match="ANTIDRIFT_AW_URL=.* is not accepted: use an http URL"):
        load({"ANTIDRIFT_AW_URL": value}, data_dir=tmp_path)


@pytest.mark.parametrize(
    "value", ["http://10.1.2.3:5600", "http://aw.example:5600", "http://127.0.0.1.nip.io:5600"]
)
def test_an_aw_url_off_this_machine_is_refused_before_any_connection(tmp_path, value):
    with pytest.raises(SettingsError, match="ANTIDRIFT_AW_URL=.* on this machine"):
        load({"ANTIDRIFT_AW_URL": value}, data_dir=tmp_path)
