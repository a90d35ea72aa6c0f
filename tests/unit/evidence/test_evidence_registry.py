"""The desktops' registry is the one table of window sources: a desktop added there (its
module and one line) is chosen, forced and reported with nothing else changed, accepted by
the settings once its word is in core/choices.py's DESKTOPS (where the settings read the
words without loading this wing, and the registry its order; issue 40), and no other module
lists the desktops."""

from __future__ import annotations

import ast
import importlib
from collections.abc import Mapping
from pathlib import Path

import pytest

from antidrift.core import choices
from antidrift.evidence import desktops
from antidrift.evidence.choose import choose, new_probe
from antidrift.evidence.probe import Desktop, Fit, Window
from antidrift.evidence.report import doctor_lines

PACKAGE = Path(desktops.__file__).parent


class CalmProbe:
    """A probe of a desktop that does not exist: always the same window."""

    name = "calmwm"

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self.env = env

    def active_window(self) -> Window | None:
        return ("Editor", "notes.txt")


def _calm_fits(env: Mapping[str, str], platform: str) -> Fit | None:
    return Fit("CALMWM_SOCKET is set", sure=True) if env.get("CALMWM_SOCKET") else None


CALM = Desktop("calmwm", CalmProbe, _calm_fits, "calmctl", "install calmctl from your distro")


@pytest.fixture
def with_calm(monkeypatch):
    """The registry with one more line."""
    monkeypatch.setattr(desktops, "DESKTOPS", (*desktops.DESKTOPS, CALM))


def finds(*tools: str):
    return lambda tool: f"/usr/bin/{tool}" if tool in tools else None


SESSION = {"CALMWM_SOCKET": "/run/user/1000/calm.sock", "WAYLAND_DISPLAY": "wayland-1"}


def test_one_line_makes_a_desktop_a_setting_a_forced_mode_and_an_auto_pick(with_calm):
    assert "calmwm" in desktops.modes()
    forced = choose("calmwm", env={}, which=finds(), aw_answers=lambda url: False)
    assert isinstance(forced.probe, CalmProbe) and forced.probe.env == {}
    picked = choose("auto", env=SESSION, which=finds("calmctl"), aw_answers=lambda url: False)
    assert isinstance(picked.probe, CalmProbe) and picked.reason == "CALMWM_SOCKET is set"
    assert isinstance(new_probe("calmwm", SESSION), CalmProbe)


def test_one_line_gives_a_missing_tools_advice_and_a_doctor_line(with_calm):
    missing = choose("auto", env=SESSION, which=finds(), aw_answers=lambda url: False)
    assert missing.probe is None
    assert "calmctl (calmwm)" in missing.reason
    assert missing.advice.startswith("install calmctl from your distro; or run ActivityWatch")
    lines = doctor_lines("auto", SESSION, "http://127.0.0.1:5600", which=finds("calmctl"),
                         aw_answers=lambda url: False)  # fmt: skip
    assert "  picked        calmwm: CALMWM_SOCKET is set" in lines
    assert "  sample        ok: the focused app is 'Editor'" in lines
    assert "  calmwm        calmctl: /usr/bin/calmctl" in lines


def test_without_its_line_the_desktop_is_unknown():
    assert "calmwm" not in desktops.modes()
    with pytest.raises(ValueError, match="unknown window source 'calmwm'"):
        choose("calmwm", env={}, which=finds(), aw_answers=lambda url: False)


def test_sure_fits_come_before_fits_by_name_whatever_the_table_order():
    # sway by name only, Hyprland by its socket: the socket is the stronger word.
    env = {"XDG_CURRENT_DESKTOP": "sway", "HYPRLAND_INSTANCE_SIGNATURE": "abc", "DISPLAY": ":0"}
    assert [d.name for d, _ in desktops.fitting(env, "linux")] == ["hyprland", "sway", "x11"]


def test_the_settings_words_are_the_registrys_in_its_order():
    assert desktops.modes() == choices.WINDOW_SOURCES == desktops.MODES
    assert tuple(d.name for d in desktops.DESKTOPS) == choices.DESKTOPS


def test_every_desktop_module_is_registered_once():
    defined = []
    for path in sorted(PACKAGE.glob("*.py")):
        module = importlib.import_module(f"antidrift.evidence.{path.stem}")
        if isinstance(getattr(module, "DESKTOP", None), Desktop):
            defined.append(module.DESKTOP)
    assert len(defined) >= 6
    assert sorted(d.name for d in desktops.DESKTOPS) == sorted(d.name for d in defined)
    assert len({d.name for d in desktops.DESKTOPS}) == len(desktops.DESKTOPS)
    for entry in desktops.DESKTOPS:
        assert entry.build(None).name == entry.name  # the probe answers to its setting's word


def _strings(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    return {
        n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }


def test_no_module_but_a_desktops_own_names_it():
    """choose, report, the sampler and the registry name no desktop: they read the table."""
    names = {d.name for d in desktops.DESKTOPS}
    for path in sorted(PACKAGE.glob("*.py")):
        own = getattr(importlib.import_module(f"antidrift.evidence.{path.stem}"), "DESKTOP", None)
        allowed = {own.name} if isinstance(own, Desktop) else set()
        assert _strings(path) & (names - allowed) == set(), f"{path.name} lists desktops"
