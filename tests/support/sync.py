"""A machine for the sync tests: a real server's runtime and app over its own data directory,
its sync folder shared with the others, the passphrase in a file (fast key derivation)."""

from __future__ import annotations

from antidrift.server import bootstrap
from antidrift.server.app import create_app
from antidrift.settings import load
from tests.support.plans import PLAN

HOST = {"Host": "127.0.0.1:7717", "Origin": "http://127.0.0.1:7717"}


class Machine:
    def __init__(self, root, folder, name, passphrase="correct horse battery staple", env=None):
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
        self.runtime = bootstrap.build_runtime(self.settings)
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

    def stop(self) -> None:
        self.runtime.stop()
