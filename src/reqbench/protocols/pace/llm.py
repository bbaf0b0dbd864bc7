"""Chat calls for the model-backed parts of PACE (the `llm` judge, `synthesize`).

Through the shared OpenAI-compatible client (`reqbench.core.llm.client.ChatClient`: retries, concurrency
cap, record/replay cache), configured from the environment (``REQBENCH_BASE_URL``/``OPENAI_BASE_URL``,
``REQBENCH_API_KEY``/``OPENAI_API_KEY``). Model name: the argument, else ``REQBENCH_MODEL``.
Deterministic settings (temperature 0, fixed seed).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from reqbench.core.errors import InputError

SEED = 20260729


def resolve_model(model: str | None) -> str:
    name = model or os.environ.get("REQBENCH_MODEL")
    if not name:
        raise InputError("no model given: pass llm:MODEL / --model or set REQBENCH_MODEL", item="model")
    return name


def chat(messages: Sequence[Mapping[str, Any]], model: str, max_tokens: int = 8192) -> str:
    """The assistant's reply text for `messages`."""
    from reqbench.core.llm.client import ChatClient, LLMConfig

    client = ChatClient(LLMConfig.from_env())
    try:
        return client.complete(
            messages, model=model, temperature=0.0, seed=SEED, max_tokens=max_tokens
        ).content
    finally:
        client.close()

