"""Chat calls for the model-backed parts of PACE (the `llm` judge, `synthesize`).

Uses the shared OpenAI-compatible client (`reqbench.core.llm.client.ChatClient`: retries, concurrency
cap, record/replay cache) when it is present; otherwise one plain POST to ``{base}/chat/completions``
with the same environment (``REQBENCH_BASE_URL``/``OPENAI_BASE_URL``, ``REQBENCH_API_KEY``/
``OPENAI_API_KEY``). Model name: the argument, else ``REQBENCH_MODEL``. Deterministic settings
(temperature 0, fixed seed).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from reqbench.core.errors import InputError

SEED = 20260729


def resolve_model(model: str | None) -> str:
    name = model or os.environ.get("REQBENCH_MODEL")
    if not name:
        raise InputError("no model given: pass llm:MODEL / --model or set REQBENCH_MODEL", item="model")
    return name


def chat(messages: Sequence[Mapping[str, Any]], model: str, max_tokens: int = 8192) -> str:
    """The assistant's reply text for `messages`."""
    try:
        from reqbench.core.llm.client import ChatClient, LLMConfig
    except ImportError:
        return _plain_chat(messages, model, max_tokens)
    client = ChatClient(LLMConfig.from_env())
    try:
        return client.complete(messages, model=model, temperature=0.0, seed=SEED, max_tokens=max_tokens).content
    finally:
        client.close()


def _plain_chat(messages: Sequence[Mapping[str, Any]], model: str, max_tokens: int) -> str:
    base = os.environ.get("REQBENCH_BASE_URL") or os.environ.get("OPENAI_BASE_URL")
    if not base:
        raise InputError("no model endpoint: set REQBENCH_BASE_URL (or OPENAI_BASE_URL)", item="model")
    key = os.environ.get("REQBENCH_API_KEY") or os.environ.get("OPENAI_API_KEY") or ""
    body = {"model": model.split("/", 1)[-1], "messages": [dict(m) for m in messages], "temperature": 0.0,
            "seed": SEED, "max_tokens": max_tokens}
    resp = httpx.post(base.rstrip("/") + "/chat/completions", json=body, timeout=600,
                      headers={"Authorization": f"Bearer {key}"} if key else {})
    resp.raise_for_status()
    return str(resp.json()["choices"][0]["message"]["content"])
