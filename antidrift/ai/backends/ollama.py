"""ollama: a local model through Ollama's chat API, held to the answer's JSON schema, kept
loaded between calls.

Wire format relied on (Ollama's API reference, docs/api.md in github.com/ollama/ollama,
"Generate a chat completion" and "Structured outputs"; design NOTES "Local models"):
    POST <url>/api/chat {"model", "messages": [{"role": "user", "content"}], "stream": false,
                         "format": <JSON schema>, "keep_alive": "30m", "options": {...}}
    200 → {"model", "created_at", "message": {"role": "assistant", "content": "<answer>"},
           "done": true, …};  404 → {"error": "model … not found"}
    GET <url>/api/version → {"version": "0.6.2"}   (doctor; "Version" in the same reference)
Not installable here: tested against a loopback stand-in speaking exactly this."""

from __future__ import annotations

from collections.abc import Mapping

from antidrift.core.choices import OLLAMA_URL as DEFAULT_URL

from ..errors import CoachError, ServiceFailed, UnknownBackend
from .base import BackendTuning, Options
from .http import HttpBackend, get_json, shown

KEEP_ALIVE = "30m"  # a judge call every few minutes finds the model still loaded


class OllamaBackend(HttpBackend):
    """A model served by Ollama (ANTIDRIFT_AI_BACKEND=ollama; ANTIDRIFT_AI_MODEL required)."""

    name = "ollama"
    chat = "/api/chat"

    def __init__(self, model: str, url: str = DEFAULT_URL) -> None:
        self.url = (url or DEFAULT_URL).rstrip("/")
        self.tuning = BackendTuning(model, None)

    def version(self) -> str | None:
        """Ollama's own version (GET /api/version, within seconds), None when nothing answers."""
        try:
            answer = get_json(f"{self.url}/api/version", name=self.name)
        except CoachError:
            return None
        found = shown(answer.get("version")) if isinstance(answer, dict) else None
        return f"ollama {found}" if found else None

    def request(self, prompt: str, schema: Mapping[str, object] | None) -> dict[str, object]:
        """The body of one chat call."""
        body: dict[str, object] = {
            "model": self.tuning.model,
            "messages": [{"role": "user", "content": prompt}],
            "stream": False,
            "keep_alive": KEEP_ALIVE,
            "options": {"temperature": 0},
        }
        if schema is not None:
            body["format"] = dict(schema)
        return body

    def content(self, answer: object) -> str | None:
        """A chat call's answer is message.content."""
        message = answer.get("message") if isinstance(answer, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            raise ServiceFailed(self.name)
        return content


def build(options: Options) -> OllamaBackend:
    if not options.ai_model or options.ai_model == "default":
        raise UnknownBackend("ANTIDRIFT_AI_BACKEND=ollama needs ANTIDRIFT_AI_MODEL")
    return OllamaBackend(options.ai_model, options.ai_url or DEFAULT_URL)
