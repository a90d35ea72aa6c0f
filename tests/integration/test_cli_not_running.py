"""When no AntiDrift answers, the command line's sentence names the command that starts one
where it looked: that data directory (`--data-dir` when one was given) and that address, never
a bare `antidrift serve` that would start a second server on the configured port (issue 33,
item 8). In this process: `commands.main`, a lock held here, ports nothing listens on."""

from __future__ import annotations

import os
import shlex

import pytest

from antidrift.cli.client import starts_one
from antidrift.server import commands
from antidrift.store import datalock
from tests.support.server import free_port


@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    """`antidrift ARGV` here: (exit code, the one line on stderr)."""
    for key in list(os.environ):
        if key.startswith("ANTIDRIFT_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("ANTIDRIFT_DATA_DIR", str(tmp_path / "env-data"))

    def run(*argv: str) -> tuple[int, str]:
        code = commands.main(list(argv))
        out, err = capsys.readouterr()
        assert out == ""
        assert err.count("\n") == 1, err
        return code, err.strip()

    return run


def _started_by(line: str) -> str:
    assert "Start it with: " in line, line
    return line.split("Start it with: ", 1)[1].rstrip(".")


def test_a_given_url_that_does_not_answer_names_its_port(cli):
    port = free_port()
    code, line = cli("status", "--url", f"http://127.0.0.1:{port}/")
    assert code == 1 and "not running" in line
    assert _started_by(line) == f"antidrift serve --port {port}"


def test_a_given_url_and_data_dir_name_both(cli, tmp_path):
    port, data = free_port(), tmp_path / "my data"
    code, line = cli("finish", "--url", f"http://localhost:{port}", "--data-dir", str(data))
    assert code == 1
    assert _started_by(line) == f"antidrift serve --data-dir {shlex.quote(str(data))} --port {port}"


def test_a_server_that_holds_the_data_dir_but_does_not_answer_names_its_port(cli, tmp_path):
    port, data = free_port(), tmp_path / "D"
    lock = datalock.acquire(data, url=f"http://127.0.0.1:{port}/")
    try:
        code, line = cli("status", "--data-dir", str(data))
    finally:
        lock.release()
    assert code == 1 and f"127.0.0.1:{port}" in line
    assert _started_by(line) == f"antidrift serve --data-dir {shlex.quote(str(data))} --port {port}"


def test_nothing_serving_the_data_dir_names_it_and_no_port(cli, tmp_path):
    data = tmp_path / "D"
    code, line = cli("status", "--data-dir", str(data))
    assert code == 1
    assert _started_by(line) == f"antidrift serve --data-dir {shlex.quote(str(data))}"
    # From the environment's directory: the same environment starts the same server.
    code, line = cli("status")
    assert _started_by(line) == "antidrift serve"


def test_the_command_for_an_address_listens_where_it_looked(tmp_path):
    data = tmp_path / "D"
    assert starts_one(data, url="http://[::1]:7800/") == "antidrift serve --host ::1 --port 7800"
    assert starts_one(data, url="http://0.0.0.0:7801/") == "antidrift serve --port 7801"
    # Another machine's address: no command here starts that one, so none is named.
    assert starts_one(data, url="http://192.0.2.7:7717/") == ""
