"""Planning from the user's own tasks, in Chromium, against a real server whose task sources
are the real `task` (a throwaway TASKDATA), the real `gh` (not logged in) and a Markdown
file: pick a task, Sharpen it (the fake claude), start, finish, write the outcome back.
A source that hangs never holds the form."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fakes import wait_until
from tests.support.fake_cli import FakeCLI, path_with
from tests.support.real_cli import isolated_env, refused_port
from tests.support.require import need
from tests.support.server import RunningServer

pytestmark = pytest.mark.browser

SHOTS = os.environ.get("ANTIDRIFT_SHOTS")  # where a person reviewing the look wants the PNGs
PHONE = {"width": 390, "height": 844}
DESK = {"width": 1280, "height": 800}
REPORT = "Write the Q3 report for the board"
NOTES = "# Inbox\n- [ ] Book the venue for the offsite\n- [ ] Reply to Sam about the budget\n"


def task(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        ["task", "rc.verbose=nothing", "rc.hooks=off", *args],
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@dataclass
class TaskApp:
    """This module's server (what the suite's fixtures use of an app) and its task data."""

    server: RunningServer
    fake: FakeCLI
    env: dict[str, str]
    notes: Path
    hang: Path
    notifier: None = None

    @property
    def base(self) -> str:
        return self.server.base


@pytest.fixture(scope="module")
def app(tmp_path_factory, _chromium_available):
    need(shutil.which("task"), "the real task binary is not installed (Debian taskwarrior)")
    need(shutil.which("gh"), "the real gh binary is not installed (Debian gh)")
    tmp = tmp_path_factory.mktemp("tasks-browser")
    bin_dir = tmp / "bin"
    fake = FakeCLI(bin_dir)  # the coach: a fake claude
    # gh: the real one, unless the test asks it to hang (a stand-in for a GitHub that never
    # answers) by creating the file `hang`.
    hang = tmp / "hang"
    (bin_dir / "gh").write_text(
        f'#!/bin/sh\nif [ -e "{hang}" ]; then exec sleep 600; fi\nexec {shutil.which("gh")} "$@"\n'
    )
    (bin_dir / "gh").chmod(0o755)
    (tmp / "taskrc").write_text("")
    notes = tmp / "notes.md"
    notes.write_text(NOTES)
    with refused_port() as dead:
        env = isolated_env(tmp / "home", dead)
        for name in ("GH_HOST", "GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN"):
            env.pop(name, None)
        env.update(
            PATH=path_with(bin_dir),
            TASKRC=str(tmp / "taskrc"),
            TASKDATA=str(tmp / "taskdata"),
            GH_CONFIG_DIR=str(tmp / "home" / "gh"),  # no login: gh says so, asks nothing
            ANTIDRIFT_AI_BACKEND="claude",
            ANTIDRIFT_TASKS=f"taskwarrior, github, markdown:{notes}",
        )
        task(env, "add", REPORT, "priority:H")
        task(env, "add", "Tidy the shared drive")
        server = RunningServer(tmp / "data", env=env)
        server.env = {k: v for k, v in env.items()}
        server.env.update(ANTIDRIFT_WINDOW_SOURCE="off", PYTHONUNBUFFERED="1")
        server.start()
        try:
            yield TaskApp(server, fake, env, notes, hang)
        finally:
            server.stop()


@pytest.fixture(autouse=True)
def _report_pending(app):
    """Each test starts with the report pending (one test marks it done) and the notes as
    written above."""
    pending = json.loads(task(app.env, "rc.json.array=on", "status:pending", "export"))
    if REPORT not in [row["description"] for row in pending]:
        task(app.env, "add", REPORT, "priority:H")
    app.notes.write_text(NOTES)


def pick_and_sharpen(page, ui) -> None:
    expect = ui.expect
    ui.plan(page)
    tasks = page.locator("#tasks")
    expect(tasks.locator("button.task-item").first).to_be_visible()
    expect(tasks).to_contain_text("GitHub CLI is not logged in: run gh auth login")
    tasks.get_by_role("button", name=REPORT).click()
    expect(page.locator("#intent")).to_have_value(REPORT)
    expect(page.locator("#task-pick")).to_contain_text(REPORT)
    page.get_by_role("button", name="Sharpen", exact=True).click()
    expect(ui.coach(page, "ready")).to_be_visible()
    expect(page.locator("#next_action")).to_have_value("Draft the executive summary")


def test_pick_a_task_sharpen_start_finish_and_write_back(page, app, ui):
    expect = ui.expect
    pick_and_sharpen(page, ui)
    assert page.evaluate("document.activeElement !== document.body")
    page.get_by_role("button", name="Start").click()
    expect(ui.view(page, "active")).to_be_visible()
    expect(page.locator(".task-for")).to_contain_text(REPORT)
    state = app.server.get("/state")
    assert state["commitment"]["task"]["source"] == "taskwarrior"
    assert state["commitment"]["task"]["title"] == REPORT
    uuid = state["commitment"]["task"]["id"]

    page.get_by_role("button", name="Finish").click()
    expect(ui.view(page, "review")).to_be_visible()
    writeback = page.locator(".task-writeback")
    expect(writeback).to_contain_text(REPORT)
    # Nothing is written before a click.
    assert "annotations" not in json.loads(task(app.env, "rc.json.array=on", uuid, "export"))[0]
    writeback.get_by_role("button", name="Add a note to the task in Taskwarrior").click()
    expect(page.locator(".writeback-result")).to_contain_text("Choose met or missed")
    page.locator("label[for=outcome-met]").click()
    page.get_by_label("Note").fill("First draft is in the shared drive")
    writeback.get_by_role("button", name="Note it and mark done in Taskwarrior").click()
    expect(page.locator(".writeback-result")).to_contain_text(
        "Added a note to the task in Taskwarrior and marked it done."
    )
    (row,) = json.loads(task(app.env, "rc.json.array=on", uuid, "export"))
    assert row["status"] == "completed"
    (annotation,) = row["annotations"]
    # The time it took as every duration is said: seconds under a minute.
    assert re.search(
        r": met — Draft the executive summary \((<1|\d{1,2}) s\)\. First draft is in the"
        r" shared drive$",
        annotation["description"],
    ), annotation["description"]
    # Once per commitment: the buttons give way to the recorded line, which takes the focus
    # (the button pressed is gone); a reload, and a second press from elsewhere, agree.
    recorded = writeback.locator(".writeback-recorded")
    expect(recorded).to_have_text(re.compile(r"Recorded in Taskwarrior: noted and marked done"))
    expect(recorded).to_be_focused()
    expect(writeback.get_by_role("button")).to_have_count(0)
    cid = app.server.get("/state")["commitment"]["id"]
    status, body = app.server.post(
        "/tasks/writeback", {"commitment": cid, "action": "note", "outcome": "met"}
    )
    assert status == 409 and "written there once" in body["error"]
    assert len(json.loads(task(app.env, "rc.json.array=on", uuid, "export"))[0]["annotations"]) == 1
    page.reload()
    expect(ui.view(page, "review")).to_be_visible()
    expect(page.locator(".writeback-recorded")).to_be_visible()
    page.locator("label[for=outcome-met]").click()
    page.get_by_role("button", name="Save to history").click()
    expect(ui.view(page, "locked")).to_be_visible()
    entry = page.locator(".history-item").first
    expect(entry).to_contain_text(REPORT)
    entry.locator("summary", has_text="Recorded in Taskwarrior").click()
    expect(entry.locator(".writeback-recorded")).to_be_visible()
    expect(entry.get_by_role("button", name=re.compile("Taskwarrior"))).to_have_count(0)


def test_a_paste_longer_than_a_field_stops_at_its_limit_and_the_count_says_so(page, app, ui):
    """maxlength keeps the paste within what the server takes; the server's count beside the
    field says it is full, so nothing is cut without a word."""
    expect = ui.expect
    ui.plan(page)
    field = page.get_by_label("Next action", exact=True)
    field.focus()
    page.keyboard.insert_text("Call the venue and ask about dates. " * 20)  # 720 characters
    expect(page.locator("#count-next_action")).to_have_text(
        "500 / 500 · full, the rest did not fit"
    )
    assert len(field.input_value()) == 500
    wait_until(lambda: len(app.server.get("/state")["draft"]["next_action"]) == 500)
    page.keyboard.press("Control+a")
    page.keyboard.insert_text("Call three venues")
    expect(page.locator("#count-next_action")).to_have_text("17 / 500")
    page.reload()
    expect(page.locator("#count-next_action")).to_have_text("17 / 500")


def test_a_markdown_task_gets_its_line_from_the_history(page, app, ui):
    expect = ui.expect
    ui.plan(page)
    picked = page.locator("#tasks").get_by_role("button", name="Book the venue for the offsite")
    picked.click()
    expect(page.locator("#intent")).to_have_value("Book the venue for the offsite")
    expect(picked).to_be_focused()  # focus stays where the user clicked: typing goes on there
    page.get_by_label("Next action", exact=True).fill("Call three venues")
    page.get_by_label("Done when", exact=True).fill("One booked")
    page.get_by_role("button", name="Start").click()
    expect(ui.view(page, "active")).to_be_visible()
    page.get_by_role("button", name="Finish").click()
    page.locator("label[for=outcome-missed]").click()
    page.get_by_role("button", name="Save to history").click()
    expect(ui.view(page, "locked")).to_be_visible()
    assert app.notes.read_text() == NOTES  # saving wrote nothing
    entry = page.locator(".history-item").first
    entry.get_by_text("Record in notes.md").click()
    entry.get_by_role("button", name="Add a note to the task in notes.md").click()
    expect(entry.locator(".writeback-result")).to_contain_text("Added a line under the task")
    lines = app.notes.read_text().splitlines()
    assert lines[1] == "- [ ] Book the venue for the offsite"
    assert lines[2].startswith("  - AntiDrift ") and re.search(
        r": missed — Call three venues \((<1|\d{1,2}) s\)$", lines[2]
    ), lines[2]


def test_a_pick_keeps_what_was_typed_and_survives_a_reload(page, app, ui):
    """The pick is the draft's: the plan typed before it stays, a reload shows both, and
    Not for this task forgets the task but not the words."""
    expect = ui.expect
    ui.plan(page)
    venue = "Book the venue for the offsite"
    page.get_by_label("Next action", exact=True).fill("Call three venues")
    wait_until(lambda: app.server.get("/state")["draft"]["next_action"] == "Call three venues")
    page.locator("#tasks").get_by_role("button", name=venue).click()
    expect(page.locator("#intent")).to_have_value(venue)
    expect(page.locator("#task-pick")).to_contain_text(venue)
    expect(page.get_by_label("Next action", exact=True)).to_have_value("Call three venues")
    page.reload()
    expect(ui.view(page, "planning")).to_be_visible()
    expect(page.locator("#intent")).to_have_value(venue)
    expect(page.locator("#task-pick")).to_contain_text(venue)
    expect(page.get_by_label("Next action", exact=True)).to_have_value("Call three venues")
    page.locator("#task-pick").get_by_role("button", name="Not for this task").click()
    expect(page.locator("#task-pick")).to_have_text("")
    page.reload()
    expect(ui.view(page, "planning")).to_be_visible()
    expect(page.locator("#task-pick")).to_have_text("")
    expect(page.locator("#intent")).to_have_value(venue)  # the words stay; the task is gone
    assert app.server.get("/state")["draft"]["task"] is None


def test_a_hanging_source_never_holds_the_form(page, app, ui):
    expect = ui.expect
    app.hang.touch()
    try:
        ui.plan(page)
        expect(page.locator("#tasks .tasks-loading")).to_be_visible()  # still asking gh
        page.get_by_label("Next action", exact=True).fill("Plan without the list")
        page.get_by_label("Done when", exact=True).fill("Started")
        page.get_by_role("button", name="Start").click()
        expect(ui.view(page, "active")).to_be_visible()
    finally:
        app.hang.unlink()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", ["desk", "phone"])
def test_the_task_views_fit_look_right_and_pass_axe(new_tabs, app, ui, scheme, size):
    expect = ui.expect
    viewport = DESK if size == "desk" else PHONE
    page, _ = new_tabs(viewport=viewport, color_scheme=scheme, bypass_csp=True).open()
    problems: dict[str, list[str]] = {}

    def check(name: str) -> None:
        ui.settled(page)
        assert ui.sideways_scroll(page) == 0, f"{name} scrolls sideways"
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(Path(SHOTS) / f"{name}-{size}-{scheme}.png"), full_page=True)
        if found := ui.axe_problems(page):
            problems[name] = found

    pick_and_sharpen(page, ui)
    check("planning-tasks")
    page.get_by_role("button", name="Start").click()
    expect(ui.view(page, "active")).to_be_visible()
    check("active-task")
    page.get_by_role("button", name="Finish").click()
    expect(ui.view(page, "review")).to_be_visible()
    page.locator("label[for=outcome-met]").click()
    check("review-task")
    page.get_by_role("button", name="Note it and mark done in Taskwarrior").click()
    expect(page.locator(".writeback-recorded")).to_be_focused()
    check("review-recorded")
    page.get_by_role("button", name="Save to history").click()
    expect(ui.view(page, "locked")).to_be_visible()
    page.locator(".history-item").first.locator("summary").click()
    check("locked-task")
    assert problems == {}
