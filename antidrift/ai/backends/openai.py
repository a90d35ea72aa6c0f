"""openai: any OpenAI-compatible server (llama.cpp's llama-server, LM Studio, vLLM) through
its chat completions API, held to the answer's JSON schema.

Wire format relied on (OpenAI API reference "Create chat completion" and the Structured
Outputs guide; llama.cpp tools/server/README.md; design NOTES "Local models"):
    POST <url>/chat/completions   Authorization: Bearer <key> (only when a key is set)
    {"model" (left out when none is set), "messages": [{"role": "user", "content"}],
     "response_format": {"type": "json_schema",
                         "json_schema": {"name": "answer", "schema": {…}, "strict": true}},
     "temperature": 0, "stream": false}
    200 → {"choices": [{"message": {"role": "assistant", "content": "<answer>"}, …}], …}
    GET <url>/models → {"object": "list", "data": [{"id": "<model>", "object": "model"}, …]}
    (doctor; OpenAI API reference "List models", llama.cpp server README "/v1/models")
Not installable here: tested against a loopback stand-in speaking exactly this."""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import CoachError, ServiceFailed, UnknownBackend
from .base import BackendTuning, Options
from .http import HttpBackend, get_json, shown

SCHEMA_NAME = "answer"
MODELS_SHOWN = 3  # doctor names this many of the served models


class OpenAIBackend(HttpBackend):
    """An OpenAI-compatible server (ANTIDRIFT_AI_BACKEND=openai; ANTIDRIFT_AI_URL required)."""

    name = "openai"
    chat = "/chat/completions"

    def __init__(self, url: str, model: str | None = None, key: str | None = None) -> None:
        self.url = url.rstrip("/")
        self.tuning = BackendTuning(model or None, None)
        self._key = key or None  # never logged, never shown

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._key}"} if self._key else {}

    def version(self) -> str | None:
        """The models the server lists (GET <url>/models, within seconds), None when it lists
        none or does not answer: an OpenAI-compatible server has no version of its own."""
        try:
            answer = get_json(f"{self.url}/models", headers=self.headers(), name=self.name)
        except CoachError:
            return None
        data = answer.get("data") if isinstance(answer, dict) else None
        listed = data if isinstance(data, list) else []
        models = [m for m in (shown(i.get("id")) for i in listed if isinstance(i, dict)) if m]
        if not models:
            return None
        more = f" and {len(models) - MODELS_SHOWN} more" if len(models) > MODELS_SHOWN else ""
        return "serves " + ", ".join(models[:MODELS_SHOWN]) + more

    def request(self, prompt: str, schema: Mapping[str, object] | None) -> dict[str, object]:
        """The body of one chat completion."""
        body: dict[str, object] = {
            "messages": [{"role": "user", "content": prompt}],
            "temperature": 0,
            "stream": False,
        }
        if self.tuning.model:
            body["model"] = self.tuning.model
        if schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": SCHEMA_NAME, "schema": dict(schema), "strict": True},
            }
        return body

    def content(self, answer: object) -> str | None:
        """A chat completion's answer is choices[0].message.content."""
        choices = answer.get("choices") if isinstance(answer, dict) else None
        first = choices[0] if isinstance(choices, list) and choices else None
        message = first.get("message") if isinstance(first, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if content is not None and not isinstance(content, str):
            raise ServiceFailed(self.name)
        return content


def build(options: Options) -> OpenAIBackend:
    if not options.ai_url:
        raise UnknownBackend("ANTIDRIFT_AI_BACKEND=openai needs ANTIDRIFT_AI_URL")
    model = options.ai_model if options.ai_model not in ("", "default") else None
    return OpenAIBackend(options.ai_url, model, options.ai_key)
