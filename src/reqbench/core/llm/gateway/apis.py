"""The three model APIs the gateway speaks toward agents: routes, credentials, usage and error shapes.

=================  =======================  ===================================================
api                agent-facing path        usage fields of a response
=================  =======================  ===================================================
``chat``           ``/v1/chat/completions``  ``usage.prompt_tokens`` / ``usage.completion_tokens``
``responses``      ``/v1/responses``         ``usage.input_tokens`` / ``usage.output_tokens``
``messages``       ``/v1/messages``          ``usage.input_tokens`` (+ cache read/creation) /
                                            ``usage.output_tokens``
=================  =======================  ===================================================

A request is forwarded to the upstream in the same API (the upstream base URL may end in ``/v1`` or
not). The gateway always asks upstream for a complete, non-streamed response -- one body to record,
one body to replay -- and streams it to the agent itself when the agent asked for a stream (`sse`).

A call's worst case, reserved against the row's budget before it is forwarded (`leases`), is its body's
size in bytes as prompt tokens (no tokenizer makes more tokens than bytes of text) plus its output cap
(`output_cap`: the largest of ``max_tokens`` / ``max_completion_tokens`` / ``max_output_tokens`` the request
sets, read as leniently as a provider reads it -- ``4000.0`` and ``"4000"`` are 4,000; `DEFAULT_OUTPUT_RESERVE`
when it sets none). A request that asks for more than one answer per call (``n``, ``best_of``) is refused
before it is reserved (`request_rules`), so one call's output is one cap.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

APIS = ("chat", "responses", "messages")
ROUTES = {"/v1/chat/completions": "chat", "/chat/completions": "chat", "/v1/responses": "responses",
          "/responses": "responses", "/v1/messages": "messages", "/messages": "messages"}
UPSTREAM_PATHS = {"chat": "/chat/completions", "responses": "/responses", "messages": "/messages"}
ANTHROPIC_VERSION = "2023-06-01"
FORWARDED_HEADERS = ("anthropic-version", "anthropic-beta", "openai-beta")
"""Request headers of the agent passed upstream (protocol switches, never credentials)."""
DEFAULT_OUTPUT_RESERVE = 32_768
"""Output tokens reserved for a call whose request sets no output cap (the largest cap of the common chat
models; a model that writes more than this uncapped is the one way a call can exceed its reservation)."""
OUTPUT_CAP_FIELDS = {"chat": ("max_completion_tokens", "max_tokens"), "responses": ("max_output_tokens",),
                     "messages": ("max_tokens",)}


def route(path: str) -> str | None:
    """The API of an agent-facing request path (query string ignored), or None."""
    return ROUTES.get(path.split("?", 1)[0].rstrip("/"))


def upstream_url(base_url: str, api: str) -> str:
    """``https://host/v1`` or ``https://host`` + the API's path (``/v1`` added when missing)."""
    base = base_url.rstrip("/")
    if not base.endswith("/v1"):
        base += "/v1"
    return base + UPSTREAM_PATHS[api]


def upstream_headers(api: str, key: str | None, incoming: Mapping[str, str]) -> dict[str, str]:
    """Headers of the upstream request: the provider key in the API's own form, protocol switches."""
    headers = {"Content-Type": "application/json"}
    for name in FORWARDED_HEADERS:
        if name in incoming:
            headers[name] = incoming[name]
    if api == "messages":
        headers.setdefault("anthropic-version", ANTHROPIC_VERSION)
        if key:
            headers["x-api-key"] = key
    elif key:
        headers["Authorization"] = f"Bearer {key}"
    return headers


def presented_token(headers: Mapping[str, str]) -> str:
    """The credential an agent presented (``Authorization: Bearer``, ``x-api-key`` or ``api-key``)."""
    auth = headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return (headers.get("x-api-key") or headers.get("api-key") or "").strip()


_OVERFLOW_MARKERS = ("context_length_exceeded", "context length", "context window", "prompt is too long",
                     "maximum context", "too many tokens")


def context_overflow(status: int, response: Mapping[str, Any]) -> bool:
    """Whether the *upstream* refused a call because its prompt exceeds the model's context: HTTP 400/413
    with the error code or message the providers use for it (OpenAI ``context_length_exceeded``,
    Anthropic "prompt is too long"). Read from the provider's answer to the gateway, which the agent cannot
    write."""
    if status not in (400, 413):
        return False
    error = response.get("error")
    if not isinstance(error, Mapping):
        return False
    text = " ".join(str(error.get(k) or "") for k in ("code", "type", "message")).lower()
    return any(marker in text for marker in _OVERFLOW_MARKERS)


def usage_of(api: str, response: Mapping[str, Any]) -> tuple[int, int]:
    """(prompt tokens, completion tokens) of a complete response; cached input counts as input."""
    usage = response.get("usage") or {}
    if not isinstance(usage, Mapping):
        return 0, 0
    if api == "chat":
        return int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
    prompt = int(usage.get("input_tokens") or 0)
    if api == "messages":
        prompt += int(usage.get("cache_read_input_tokens") or 0)
        prompt += int(usage.get("cache_creation_input_tokens") or 0)
    return prompt, int(usage.get("output_tokens") or 0)


def error_body(api: str, message: str, kind: str) -> dict[str, Any]:
    """An error body in the API's own shape, so the agent's SDK shows `message` to the agent."""
    if api == "messages":
        return {"type": "error", "error": {"type": "invalid_request_error", "message": message,
                                           "reqbench": kind}}
    return {"error": {"message": message, "type": "invalid_request_error", "code": kind}}


def output_cap(api: str, body: Mapping[str, Any]) -> int:
    """The output tokens a request allows: the largest cap field it sets (`DEFAULT_OUTPUT_RESERVE` when it
    sets none a provider would read as a count)."""
    caps = [n for n in (count(body.get(name)) for name in OUTPUT_CAP_FIELDS[api]) if n is not None and n >= 0]
    return max(caps) if caps else DEFAULT_OUTPUT_RESERVE


def count(value: Any) -> int | None:
    """A JSON value as an integer count the way a lenient provider reads one (``4``, ``4.0``, ``"4"`` -> 4;
    a fraction rounded up), or None when it is no number (``null``, ``true``, text, ``NaN``)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return math.ceil(value)
    return None


def served_model(response: Mapping[str, Any], forwarded: str) -> str:
    """The model a complete response says answered it, else the model the call was sent to."""
    model = response.get("model")
    return model if isinstance(model, str) and model else forwarded
