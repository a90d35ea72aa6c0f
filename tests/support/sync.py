"""A machine for the sync tests: a real server's runtime and app over its own data directory,
its sync folder shared with the others, the passphrase in a file (fast key derivation); its
clock may run `ahead` of the others' (or behind: negative seconds), everywhere AntiDrift
reads the time, sync's own stamps included."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

from antidrift.core.clock import SystemClock
from antidrift.server import bootstrap
from antidrift.server.app import create_app
from antidrift.settings import load
from tests.fakes import FakeClock
from tests.support.plans import PLAN

HOST = {"Host": "127.0.0.1:7717", "Origin": "http://127.0.0.1:7717"}


class Skewed(SystemClock):
    """The system's clock, `ahead` seconds off (a machine whose date is set wrong)."""

    def __init__(self, ahead: float) -> None:
        self.ahead = timedelta(seconds=ahead)

    def now(self):
        return super().now() + self.ahead


class Machine:
    def __init__(
        self,
        root,
        folder,
        name,
        passphrase="correct horse battery staple",
        env=None,
        clock=None,
        ahead: float = 0.0,
    ):
        root.mkdir(parents=True, exist_ok=True)
        secret = root / "passphrase"
        secret.write_text(passphrase + "\n")
        env = {
            "ANTIDRIFT_WINDOW_SOURCE": "off",
            "ANTIDRIFT_AI_BACKEND": "command",
            "ANTIDRIFT_AI_COMMAND": "false",
            "ANTIDRIFT_NOTIFY": "off",
            "ANTIDRIFT_SYNC_FOLDER": str(folder),
            "ANTIDRIFT_DEVICE_NAME": name,
            "ANTIDRIFT_SYNC_PASSPHRASE_FILE": str(secret),
            "ANTIDRIFT_SYNC_KDF": "fast",
            "ANTIDRIFT_BACKUPS": "0",
            **(env or {}),
        }
        self.settings = load(env, data_dir=root / "data")
        if ahead:
            clock = Skewed(ahead)
        self.runtime = bootstrap.build_runtime(self.settings, clock=clock)  # None: the real one
        if ahead:  # the sync's wall (its clock stamps, how fresh another's `now` is) too
            self.runtime.sync._wall = lambda: time.time() + ahead
        app = create_app(self.settings, runtime=self.runtime)
        app.config.update(TESTING=True)
        self.client = app.test_client()

    @property
    def sync(self):
        return self.runtime.sync

    def commit(self, action: str, outcome: str = "met") -> str:
        assert self.client.post("/planning", headers=HOST).status_code == 200
        plan = {**PLAN, "next_action": action}
        assert self.client.post("/commitment", json=plan, headers=HOST).status_code == 200
        self.client.post("/finish", headers=HOST)
        assert self.client.post("/end", json={"outcome": outcome}, headers=HOST).status_code == 200
        return self.history()[0]["id"]

    def history(self) -> list[dict]:
        return self.client.get("/history", headers=HOST).get_json()

    def queue(self) -> list[dict]:
        """The day's queue as /day.json lists it."""
        return self.client.get("/day.json", headers=HOST).get_json()["items"]

    def add_item(self, action: str) -> str:
        """A new item at the end of the day's queue: its id."""
        answer = self.client.post("/day/items", json={"next_action": action}, headers=HOST)
        assert answer.status_code == 201
        return self.queue()[-1]["id"]

    def start_item(self, item_id: str) -> None:
        """Plan it, then Start: a commitment from the item, running."""
        planning = self.client.post("/planning", json={"day_item": item_id}, headers=HOST)
        assert planning.status_code == 200
        assert self.client.post("/commitment", json=PLAN, headers=HOST).status_code == 200

    def end(self, outcome: str = "met") -> None:
        self.client.post("/finish", headers=HOST)
        assert self.client.post("/end", json={"outcome": outcome}, headers=HOST).status_code == 200

    def window(self, app: str, title: str, then: float = 0) -> None:
        """A window seen now on this machine (as its watcher reports one), then `then`
        seconds pass on its (test) clock."""
        answer = self.client.post(
            "/evidence/window", json={"app": app, "title": title}, headers=HOST
        )
        assert answer.get_json() == {"recorded": True}
        if then:
            self.runtime.clock.advance(then)

    def tick(self, *others: Machine) -> None:
        """This machine's sync looks (it sends what changed), then each of the others'."""
        for machine in (self, *others):
            machine.sync.tick()

    def stop(self) -> None:
        self.runtime.stop()


@contextmanager
def desk_and_laptop(tmp_path: Path) -> Iterator[tuple[Machine, Machine]]:
    """The desk and the laptop over one folder, on test clocks of their own, no grace before
    a drift counts; no AI judges on the laptop (its standing rules decide), their sync looked
    at by hand."""
    folder = tmp_path / "Sync"
    folder.mkdir()
    quiet = {"ANTIDRIFT_DRIFT_GRACE": "0"}
    desk = Machine(tmp_path / "desk", folder, "desk", env=quiet, clock=FakeClock())
    off = {**quiet, "ANTIDRIFT_DRIFT": "off"}
    laptop = Machine(tmp_path / "laptop", folder, "laptop", env=off, clock=FakeClock())
    try:
        yield desk, laptop
    finally:
        desk.stop()
        laptop.stop()


def followed(desk: Machine, laptop: Machine) -> str:
    """The desk plans and starts "Write the intro"; the laptop hears of it (both look at the
    folder) and guards it too (POST /follow). The commitment's id."""
    assert desk.client.post("/planning", headers=HOST).status_code == 200
    plan = {"next_action": "Write the intro", "success_condition": "Intro in the doc"}
    started = desk.client.post("/commitment", json={**plan, "timebox_minutes": 25}, headers=HOST)
    assert started.status_code == 200
    laptop.tick(desk)  # the laptop's rules to the desk, the desk's `now` to the laptop
    desk.tick(laptop)
    answer = laptop.client.post("/follow", json={"device_id": desk.sync.me}, headers=HOST)
    assert answer.status_code == 200, answer.get_json()
    return started.get_json()["commitment"]["id"]
