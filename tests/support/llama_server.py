"""A real local model server: llama-cpp-python's OpenAI-compatible server serving
SmolLM2-135M-Instruct (Q4_1, ~98 MB) on a loopback port, both installed by
scripts/install-llama into .cache/llama (ANTIDRIFT_LLAMA_CACHE moves it; .ci/run runs it).
A model this small tests the wiring, never the quality of an answer."""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support import procs
from tests.support.require import need
from tests.support.server import REPO, free_port

INSTALL = "scripts/install-llama (llama-cpp-python's server and SmolLM2; .ci/run runs it)"


def folder() -> Path:
    return Path(os.environ.get("ANTIDRIFT_LLAMA_CACHE") or REPO / ".cache" / "llama")


def installed() -> tuple[Path, Path] | None:
    """(its venv's python, the model), when scripts/install-llama has put both there."""
    python, model = folder() / "venv" / "bin" / "python", folder() / "model.gguf"
    ready = (folder() / ".installed").is_file() and python.exists() and model.is_file()
    return (python, model) if ready else None


class LlamaServer:
    """One `python -m llama_cpp.server` process; `url` is its OpenAI base (…/v1)."""

    def __init__(self, python: Path, model: Path, log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.log_path = log
        self.log = log.open("wb")
        # One thread: it shares two cores with the rest of the suite. The context holds the
        # coach's prompt (about 1,500 tokens) and its answer.
        argv = [str(python), "-m", "llama_cpp.server", "--model", str(model),
                "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", "4096",
                "--n_threads", "1", "--n_threads_batch", "2", "--verbose", "False"]  # fmt: skip
        env = {k: v for k, v in os.environ.items() if not k.endswith("_proxy")}
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT, env=env)

    def wait_ready(self, timeout: float = 60.0) -> LlamaServer:
        """Until GET …/models answers (the model is loaded), else RuntimeError with its log."""
        deadline = time.monotonic() + timeout
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        while True:
            try:
                with opener.open(f"{self.url}/models", timeout=5) as answer:
                    json.loads(answer.read())
                    return self
            except (urllib.error.URLError, OSError, ValueError):
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    tail = self.log_path.read_text(errors="replace")[-2000:]
                    raise RuntimeError(f"llama_cpp.server did not start:\n{tail}") from None
                time.sleep(0.2)

    def stop(self) -> None:
        procs.stop(self.proc, within=10)
        self.log.close()


@contextmanager
def llama_server(folder_for_log: Path) -> Iterator[LlamaServer]:
    """The real server, started and ready, stopped after; a missing install fails under
    ANTIDRIFT_REQUIRE_REAL and is skipped otherwise (require.need)."""
    found = installed()
    need(found, f"llama-cpp-python's server or SmolLM2 is not installed: run {INSTALL}")
    assert found is not None
    server = LlamaServer(*found, folder_for_log / "llama-server.log")
    try:
        yield server.wait_ready()
    finally:
        server.stop()
