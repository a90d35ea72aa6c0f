"""openai: any OpenAI-compatible server (llama.cpp's llama-server, llama-cpp-python's server,
LM Studio, vLLM) through its chat completions API, held to the answer's JSON schema.

Wire format relied on (OpenAI API reference "Create chat completion" and the Structured
Outputs guide; llama.cpp tools/server/README.md; design NOTES "Local models" and "A real local
model on these machines"):
    POST <url>/chat/completions   Authorization: Bearer <key> (only when a key is set)
    {"model" (left out when none is set), "messages": [{"role": "user", "content"}],
     "response_format": {"type": "json_schema",
                         "json_schema": {"name": "answer", "schema": {…}, "strict": true}},
     "temperature": 0, "stream": false}
    200 → {"choices": [{"message": {"role": "assistant", "content": "<answer>"}, …}], …}
    GET <url>/models → {"object": "list", "data": [{"id": "<model>", "object": "model"}, …]}
    (doctor; OpenAI API reference "List models", llama.cpp server README "/v1/models")

Not every server takes `json_schema`: llama-cpp-python's answers 500 to it and takes
`{"type": "json_object", "schema": {…}}` instead. When a server's error names the response
format (its body says response_format, or the type sent), the call asks again with
`json_object` (with the schema), then with no response_format (the answer is parsed as JSON
all the same); the form a server refused is never sent to it again in this process (per
server URL and model). Any other error is the error it is. Tested against loopback stand-ins
and against the real llama-cpp-python server (tests/integration/ai/test_ai_real_local_model.py)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping

from ..errors import CLITimeout, CoachError, ServiceFailed, UnknownBackend
from .base import BackendTuning, Call, Options
from .http import HttpBackend, StatusRefused, get_json, shown

log = logging.getLogger("antidrift.ai")
SCHEMA_NAME = "answer"
MODELS_SHOWN = 3  # doctor names this many of the served models
# The response_format a call with a schema asks for, best first; None: none at all.
FORMS: tuple[str | None, ...] = ("json_schema", "json_object", None)


class _Refusals:
    """Per (server URL, model): the first of FORMS the server has not refused, for the
    process; shared by every backend object (a new one is built for each settings change)."""

    def __init__(self) -> None:
        self._first: dict[tuple[str, str | None], int] = {}
        self._lock = threading.Lock()

    def first(self, key: tuple[str, str | None]) -> int:
        with self._lock:
            return self._first.get(key, 0)

    def refused(self, key: tuple[str, str | None], index: int) -> None:
        """The server refused FORMS[index]: ask from the next one on (never back)."""
        with self._lock:
            self._first[key] = max(self._first.get(key, 0), index + 1)

    def forget(self) -> None:
        with self._lock:
            self._first.clear()


refusals = _Refusals()


def names_format(form: str, said: str) -> bool:
    """Whether a server's error body names the response format (or the type just sent):
    then asking another way may pass; otherwise the error is the answer."""
    text = said.lower()
    return any(w in text for w in ("response_format", "response format", "responseformat", form))


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

    def request(
        self, prompt: str, schema: Mapping[str, object] | None, form: str | None = FORMS[0]
    ) -> dict[str, object]:
        """The body of one chat completion, its response_format of the `form` (FORMS)."""
        body: dict[str, object] = {
            "messages": [{"role": "user", "content": prompt}],
            "temperature": 0,
            "stream": False,
        }
        if self.tuning.model:
            body["model"] = self.tuning.model
        if schema is None or form is None:
            return body
        if form == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": SCHEMA_NAME, "schema": dict(schema), "strict": True},
            }
        else:  # llama-cpp-python's server: json_object held to the schema
            body["response_format"] = {"type": form, "schema": dict(schema)}
        return body

    def ask(self, call: Call) -> str:
        """One chat completion; with a schema, in the first form this server has not refused,
        and in the next while its error names the response format (remembered)."""
        if call.schema is None:
            return super().ask(call)
        key = (self.url, self.tuning.model)
        first = refusals.first(key)
        deadline = time.monotonic() + call.timeout
        for index in range(first, len(FORMS)):
            form = FORMS[index]  # the last, None, has nothing left to fall back to
            left = call.timeout if index == first else deadline - time.monotonic()
            if left <= 0:
                raise CLITimeout(call.timeout)
            body = self.request(call.prompt, call.schema, form)
            try:
                answer = self.post(
                    call,
                    body,
                    timeout=left,
                    expected=None if form is None else _naming(form),
                )
            except StatusRefused as err:
                if form is None or not names_format(form, err.said):
                    raise
                refusals.refused(key, index)
                log.info(
                    "%s: %s refuses response_format %s; asking with %s from now on",
                    self.name,
                    self.url,
                    form,
                    FORMS[index + 1] or "none",
                )
                continue
            except CLITimeout as err:
                if index == first:
                    raise
                raise CLITimeout(call.timeout) from err  # the whole call's, not the try's
            return self.text(answer)
        raise AssertionError("unreachable: the last form, None, answers or raises")

    def content(self, answer: object) -> str | None:
        """A chat completion's answer is choices[0].message.content."""
        choices = answer.get("choices") if isinstance(answer, dict) else None
        first = choices[0] if isinstance(choices, list) and choices else None
        message = first.get("message") if isinstance(first, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if content is not None and not isinstance(content, str):
            raise ServiceFailed(self.name)
        return content


def _naming(form: str) -> Callable[[str], bool]:
    return lambda said: names_format(form, said)


def build(options: Options) -> OpenAIBackend:
    if not options.ai_url:
        raise UnknownBackend("ANTIDRIFT_AI_BACKEND=openai needs ANTIDRIFT_AI_URL")
    model = options.ai_model if options.ai_model not in ("", "default") else None
    return OpenAIBackend(options.ai_url, model, options.ai_key)
