"""Real task and gh binaries on throwaway data; fake CLIs for the faults real ones won't show."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.support.github_standin import GitHubStandIn, make_certificate
from tests.support.real_cli import refused_port
from tests.support.require import need


@pytest.fixture
def taskwarrior(tmp_path):
    """A throwaway Taskwarrior: env (TASKRC, TASKDATA, HOME) and add(*args) → uuid."""
    need(shutil.which("task"), "the real task binary is not installed (Debian taskwarrior)")
    home = tmp_path / "home"
    home.mkdir()
    rc = tmp_path / "taskrc"
    rc.write_text("")
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "TASKRC": str(rc),
        "TASKDATA": str(tmp_path / "taskdata"),
    }

    def task(*args: str) -> str:
        done = subprocess.run(
            ["task", "rc.verbose=nothing", "rc.hooks=off", *args],
            env=env,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=30,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def add(*args: str) -> str:
        task("add", *args)
        return task("+LATEST", "_uuids").strip()

    class Taskwarrior:
        pass

    tw = Taskwarrior()
    tw.env, tw.rc, tw.data, tw.home, tw.task, tw.add = (
        env,
        rc,
        tmp_path / "taskdata",
        home,
        task,
        add,
    )
    return tw


@pytest.fixture(scope="session")
def github_certificate(tmp_path_factory):
    """One self-signed certificate for 127.0.0.1 per run (an RSA key takes a moment)."""
    need(shutil.which("openssl"), "openssl is not installed (the stand-in's certificate)")
    return make_certificate(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def github(tmp_path, github_certificate):
    """The GitHub stand-in and the environment under which the real gh reaches only it."""
    need(shutil.which("gh"), "the real gh binary is not installed (Debian gh)")
    stand_in = GitHubStandIn(*github_certificate)
    with refused_port() as dead:
        stand_in.env = stand_in.gh_env(tmp_path / "home", dead)
        stand_in.dead_port = dead
        yield stand_in
    stand_in.close()
