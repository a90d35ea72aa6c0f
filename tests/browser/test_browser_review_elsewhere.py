"""The review follows the laptop's evidence while the note is being written (issue 42, "Every
machine"), in Chromium against a real server that syncs: the laptop (a second runtime, in this
process, over the same sync folder) guards the desk's commitment; the desk finishes and the
user starts typing the note; the laptop sends what it saw once it hears the commitment ended,
the desk takes it in at its next look at the folder, and the open review shows the laptop's
rows in place: the note keeps what is typed, and the focus stays in it."""

from __future__ import annotations

import time

import pytest

from tests.support.browser import App
from tests.support.fake_cli import FakeCLI, path_with
from tests.support.server import RunningServer
from tests.support.sync import HOST, Machine

PASSPHRASE = "correct horse battery staple"
SYNC_LOOK = 5.0  # seconds between two looks at the folder (session/syncing.POLL)
TYPED = "The intro took longer than"


@pytest.fixture(scope="module")
def app(tmp_path_factory, _chromium_available):
    """The desk: a server syncing over tmp/Sync, no guard of its own (the laptop's verdicts
    are the ones shown)."""
    tmp = tmp_path_factory.mktemp("browser-elsewhere")
    (tmp / "Sync").mkdir()
    secret = tmp / "passphrase"
    secret.write_text(PASSPHRASE + "\n")
    env = {
        "PATH": path_with(tmp / "bin"),
        "ANTIDRIFT_DRIFT": "off",
        "ANTIDRIFT_SYNC_FOLDER": str(tmp / "Sync"),
        "ANTIDRIFT_DEVICE_NAME": "desk",
        "ANTIDRIFT_SYNC_PASSPHRASE_FILE": str(secret),
        "ANTIDRIFT_SYNC_KDF": "fast",
        "ANTIDRIFT_BACKUPS": "0",
    }
    fake = FakeCLI(tmp / "bin")
    with RunningServer(tmp / "data", env=env) as server:
        yield App(server, fake, tmp)


@pytest.fixture
def laptop(app, tmp_path):
    machine = Machine(
        tmp_path / "laptop",
        app.tmp / "Sync",
        "laptop",
        PASSPHRASE,
        env={"ANTIDRIFT_DRIFT": "off", "ANTIDRIFT_DRIFT_GRACE": "0"},  # its rules judge
    )
    yield machine
    machine.stop()


def _until(found, what: str, timeout: float = 3 * SYNC_LOOK):
    """`found()` once it is truthy (the desk looks at the folder every few seconds)."""
    end = time.monotonic() + timeout
    while not (answer := found()):
        assert time.monotonic() < end, f"never: {what}"
        time.sleep(0.2)
    return answer


def test_the_laptops_rows_reach_the_open_review_and_the_note_keeps_what_is_typed(
    page, app, laptop, ui, browser
):
    rule = {"app": "firefox", "verdict": "off_task"}
    assert laptop.client.post("/rules", json=rule, headers=HOST).status_code == 201
    assert app.server.post("/planning")[0] == 200
    plan = {"next_action": "Write the intro", "success_condition": "Intro in the doc"}
    assert app.server.post("/commitment", {**plan, "timebox_minutes": 25})[0] == 200
    app.window("code", "intro.md")

    def desk_seen():
        laptop.tick()
        return laptop.client.get("/state", headers=HOST).get_json().get("elsewhere")

    [desk] = _until(desk_seen, "the laptop sees the desk's commitment")
    followed = laptop.client.post("/follow", json={"device_id": desk["device_id"]}, headers=HOST)
    assert followed.status_code == 200
    laptop.window("firefox", "Cat videos — YouTube")
    time.sleep(1.2)
    laptop.window("code", "intro.md")
    time.sleep(1.2)
    laptop.window("docs", "Outline")

    page.goto(app.base)
    assert app.server.post("/finish")[0] == 200
    ui.expect(ui.view(page, "review")).to_be_visible()
    section = page.locator("#review-evidence")
    ui.expect(section.get_by_role("heading", name="Where the focus went")).to_be_visible()
    ui.expect(section.locator(".mark-device")).to_have_count(0)
    note = page.locator("#note")
    note.click()
    page.keyboard.type(TYPED)

    def guarding_ended():
        laptop.tick()
        laptop.runtime.controller.following.tick()
        return laptop.runtime.controller.snapshot().following is None

    _until(guarding_ended, "the laptop hears the commitment ended")
    laptop.tick()  # what it saw goes to the folder

    rows = section.locator("tr.row-elsewhere")
    ui.expect(rows).to_have_count(3, timeout=int(3 * SYNC_LOOK * 1000))
    ui.expect(rows.filter(has_text="Cat videos")).to_contain_text("on laptop")
    ui.expect(rows.filter(has_text="Cat videos")).to_contain_text("off task")
    ui.expect(section.locator(".by-device")).to_contain_text("Watched here and on laptop")
    ui.expect(note).to_have_value(TYPED)  # never swapped: the push carried the section alone
    assert ui.active_id(page) == "note"
    page.keyboard.type(" planned.")  # and typing goes on where it was
    ui.expect(note).to_have_value(TYPED + " planned.")
    ui.each_look(browser, app.base, "review-elsewhere")
