"""One OpenAI-compatible chat-completions client: retries, a per-endpoint concurrency cap, record/replay.

Why httpx and not a vendor SDK: the wire protocol is one POST of a JSON body; httpx gives a small,
thread-safe synchronous client with explicit timeouts and no provider-specific behaviour (hidden
retries, telemetry, auto-upgrades) that would blur what reqbench records. It is already a dependency.

What one `ChatClient.complete` call does, in order:

1. builds the request body (model name without its provider prefix: ``openai/NAME`` -> ``NAME``);
2. computes its content address (sha256 of the canonical body, the `sample` and the current draw
   (`run_access.fresh_draw`); the endpoint URL and key are not part of it, so a recording replays
   against any endpoint) and looks it up in the `ResponseCache` —
   a hit returns the recorded response and sends nothing; concurrent identical requests wait for the
   first, so the same request is never sent twice;
3. ``offline=True``: a miss raises `OfflineCacheMiss` (nothing is sent, ever);
4. sends it while holding the endpoint's concurrency slot, retrying 429, 5xx, timeouts and connection
   errors with exponential backoff (``Retry-After`` honoured); other 4xx fail at once;
5. parses the body (`MalformedOutput` if it is not a chat completion), computes usage and cost
   (`pricing`, at the running run's prices: `prices`), and records request + response in the cache;
6. inside a run, writes the call (answered, replayed or refused) to the run's ``model_calls`` table, where
   the gateway writes its calls too (`call_log`): every report counts tokens and cost from there. A call
   that was not answered keeps a digest of its request (size, SHA-256, first KiB), never the body. What the
   calls add to the store counts against the row's store bound; once it is used up, a call is refused
   before it is sent (`ProviderError`, status 413, noted as the row's ``resource_limit``).

Configuration comes from `LLMConfig.from_env`: ``REQBENCH_BASE_URL`` (else ``OPENAI_BASE_URL``),
``REQBENCH_API_KEY`` (else ``OPENAI_API_KEY``), ``REQBENCH_LLM_CACHE`` (an SQLite cache file),
``REQBENCH_PRICES`` (price table override), ``REQBENCH_OFFLINE=1``. Inside a running ``reqbench run``
the run store is the default cache and ``--offline`` forces replay (`run_access`).
"""

from __future__ import annotations

import email.utils
import json
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import httpx

from reqbench.core.errors import InputError
from reqbench.core.hashing import sha256_json
from reqbench.core.llm.cache import MemoryResponseCache, ResponseCache, SqliteResponseCache, as_response_cache
from reqbench.core.llm.call_log import record_client_call, store_bound_refusal
from reqbench.core.llm.errors import MalformedOutput, OfflineCacheMiss, ProviderError
from reqbench.core.llm.gateway.limits import refused_digest
from reqbench.core.llm.gateway.scope import current_pricing
from reqbench.core.llm.ledger import FailureKind, note, upstream_failure_kind
from reqbench.core.llm.pricing import Price, call_cost, load_prices
from reqbench.core.llm.run_access import current_draw, default_cache, run_offline

RETRYABLE_STATUS = frozenset({408, 409, 429}) | frozenset(range(500, 600))
CACHE_FORMAT = "chat-v1"


def request_model_name(model: str) -> str:
    """The model name sent on the wire: ``openai/gpt-x`` -> ``gpt-x`` (LiteLLM-style prefixes)."""
    return model.split("/", 1)[1] if "/" in model else model


@dataclass
class LLMConfig:
    """Where and how to call. `sleep` is injectable so tests run retries without waiting."""

    base_url: str | None = None
    api_key: str | None = None
    timeout: float = 600.0
    attempts: int = 3
    """Total tries per request (first send + retries)."""
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    retry_after_max: float = 300.0
    concurrency: int = 4
    """Requests in flight per endpoint (base URL), shared by every client in the process."""
    offline: bool = False
    cache: ResponseCache | None = None
    prices: dict[str, Price] = field(default_factory=load_prices)
    sleep: Callable[[float], None] = time.sleep
    base_url_hint: str = ""
    """How the caller's command sets the endpoint besides the environment (the agent: ``--base-url``);
    empty for judges and synthesis, which read only the environment."""

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> LLMConfig:
        """Config from the environment; explicit, non-None `overrides` win.

        Cache: an explicit ``cache`` override, else the active run's store, else ``REQBENCH_LLM_CACHE``.
        A run started with ``--offline`` makes the config offline whatever the options say."""
        env = os.environ if env is None else env
        cache_path = env.get("REQBENCH_LLM_CACHE")
        run_cache = default_cache()
        cfg = cls(
            base_url=env.get("REQBENCH_BASE_URL") or env.get("OPENAI_BASE_URL") or None,
            api_key=env.get("REQBENCH_API_KEY") or env.get("OPENAI_API_KEY") or None,
            offline=env.get("REQBENCH_OFFLINE", "") not in ("", "0", "false"),
            cache=run_cache if run_cache is not None
            else SqliteResponseCache(cache_path) if cache_path else None,
        )
        overrides = {k: v for k, v in overrides.items() if v is not None}
        unknown = sorted(set(overrides) - {f.name for f in fields(cls)})
        if unknown:
            raise InputError(f"unknown model client option(s) {unknown}; known: "
                             f"{sorted(f.name for f in fields(cls))}", item="model options")
        for name in ("timeout", "backoff_base", "backoff_max"):
            if name in overrides:
                overrides[name] = float(overrides[name])
        for name in ("attempts", "concurrency"):
            if name in overrides:
                overrides[name] = int(overrides[name])
        if isinstance(overrides.get("offline"), str):
            overrides["offline"] = overrides["offline"].lower() not in ("", "0", "false", "no")
        if isinstance(overrides.get("prices"), str | Path):
            overrides["prices"] = load_prices(overrides["prices"])
        if isinstance(overrides.get("cache"), str | Path):
            overrides["cache"] = SqliteResponseCache(overrides["cache"])
        cfg = replace(cfg, **overrides)
        return replace(cfg, offline=True) if run_offline() else cfg


@dataclass
class ChatResponse:
    """One completion: the first choice's message, usage, cost, and where it came from."""

    content: str
    tool_calls: list[dict[str, Any]]
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    model: str
    key: str
    cached: bool
    attempts: int
    request: dict[str, Any]
    raw: dict[str, Any]

    @property
    def message(self) -> dict[str, Any]:
        """The assistant message to append to a conversation."""
        msg: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            msg["tool_calls"] = self.tool_calls
        return msg

    def record(self) -> dict[str, Any]:
        """What a run stores for this call (request settings, response, usage, provenance)."""
        settings = {k: v for k, v in self.request.items() if k not in ("messages",)}
        return {"key": self.key, "model": self.model, "settings": settings, "cached": self.cached,
                "attempts": self.attempts, "content": self.content, "tool_calls": self.tool_calls,
                "finish_reason": self.finish_reason, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "cost_usd": self.cost_usd}


_SLOTS: dict[str, threading.BoundedSemaphore] = {}
_SLOTS_LOCK = threading.Lock()


def _endpoint_slot(base_url: str, cap: int) -> threading.BoundedSemaphore:
    """The process-wide semaphore of one endpoint (the first client to use it sets its cap)."""
    with _SLOTS_LOCK:
        if base_url not in _SLOTS:
            _SLOTS[base_url] = threading.BoundedSemaphore(max(1, cap))
        return _SLOTS[base_url]


class ChatClient:
    """Thread-safe; share one per endpoint. See the module docstring for what a call does."""

    def __init__(self, config: LLMConfig | None = None) -> None:
        self.config = config or LLMConfig.from_env()
        self.cache: ResponseCache = as_response_cache(self.config.cache) if self.config.cache is not None \
            else MemoryResponseCache()
        self._http: httpx.Client | None = None
        self._key_locks: dict[str, threading.Lock] = {}
        self._locks_lock = threading.Lock()

    def close(self) -> None:
        if self._http is not None:
            self._http.close()
            self._http = None

    def complete(self, messages: Sequence[Mapping[str, Any]], *, model: str,
                 temperature: float | None = None, seed: int | None = None,
                 max_tokens: int | None = None, tools: list[dict[str, Any]] | None = None,
                 extra: Mapping[str, Any] | None = None, sample: int | str = 0) -> ChatResponse:
        """Ask `model` for the next assistant message of `messages`.

        `sample` is part of the cache key only (never sent): independent repeats of one task use
        different samples (repeat numbers or row keys), so repeat 2 is a fresh draw rather than a
        replay of repeat 1.
        """
        body: dict[str, Any] = {"model": request_model_name(model), "messages": [dict(m) for m in messages]}
        for name, value in (("temperature", temperature), ("seed", seed), ("max_tokens", max_tokens),
                            ("tools", tools)):
            if value is not None:
                body[name] = value
        body.update(extra or {})
        draw = current_draw()
        key = sha256_json({"format": CACHE_FORMAT, "body": body, **({"sample": sample} if sample else {}),
                           **({"draw": draw} if draw else {})})
        started = time.time()
        with self._lock_for(key):
            recorded = _as_record(self.cache.get_cached(key))
            if recorded is not None:
                response = self._parse(recorded["response"], body, model, key, cached=True, attempts=0)
                _log(response, "replay", started)
                return response
            if self.config.offline:
                record_client_call(model=model, request=_digest(body), status=400, source="refused",
                                   response={"error": "offline replay: not recorded"}, started=started)
                raise OfflineCacheMiss(key, model)
            refusal = store_bound_refusal()
            if refusal is not None:  # the row's calls filled its store bound: the agent's resource_limit
                note(FailureKind.RESOURCE, f"model client: {refusal}")
                raise ProviderError(f"reqbench: {refusal}", status=413)
            try:
                raw, attempts = self._send(body)
                response = self._parse(raw, body, model, key, cached=False, attempts=attempts)
            except (ProviderError, MalformedOutput) as exc:
                status = exc.status if isinstance(exc, ProviderError) and exc.status else 502
                record_client_call(model=model, request=_digest(body), response={"error": str(exc)[:4096]},
                                   status=status, source="refused", started=started)
                raise
            _log(response, "upstream", started)  # first: its new parts count for the row (`call_log`)
            self.cache.put_cached(key, {"request": body, "response": raw, "recorded": time.time()})
            return response

    def prices(self) -> dict[str, Price]:
        """The prices this client charges at: its own table with the running run's (``--price``, ``--prices``)
        over it, as the gateway charges a preset's calls."""
        return current_pricing().over(self.config.prices)

    def unpriced_refusal(self, model: str, dollar_budget: float | None) -> str | None:
        """Why `model` may not be called under `dollar_budget` (USD per row): the gateway's price rule
        (`pricing.unpriced_refusal`) at `prices` and the run's ``--allow-unpriced``."""
        return current_pricing().refusal(model, dollar_budget, self.config.prices)

    # -- internals -----------------------------------------------------------------------------------
    def _lock_for(self, key: str) -> threading.Lock:
        with self._locks_lock:
            return self._key_locks.setdefault(key, threading.Lock())

    def _client(self) -> httpx.Client:
        if self._http is None:
            timeout = httpx.Timeout(self.config.timeout, connect=min(30.0, self.config.timeout))
            self._http = httpx.Client(timeout=timeout)
        return self._http

    def _send(self, body: dict[str, Any]) -> tuple[dict[str, Any], int]:
        cfg = self.config
        if not cfg.base_url:
            hint = f" or {cfg.base_url_hint}" if cfg.base_url_hint else ""
            raise InputError(f"no model endpoint configured: set REQBENCH_BASE_URL (or OPENAI_BASE_URL){hint}",
                             item="base_url")
        url = cfg.base_url.rstrip("/") + "/chat/completions"
        headers = {"Content-Type": "application/json"}
        if cfg.api_key:
            headers["Authorization"] = f"Bearer {cfg.api_key}"
        slot = _endpoint_slot(cfg.base_url, cfg.concurrency)
        last, kind = "no attempt made", FailureKind.PROVIDER
        for attempt in range(1, cfg.attempts + 1):
            wait: float | None = None
            try:
                with slot:
                    resp = self._client().post(url, json=body, headers=headers)
            except httpx.TimeoutException as exc:
                last, kind = f"timeout after {cfg.timeout:g}s ({type(exc).__name__})", FailureKind.TIMEOUT
            except httpx.TransportError as exc:
                last, kind = f"connection error: {type(exc).__name__}: {exc}", FailureKind.PROVIDER
            else:
                if resp.status_code == 200:
                    try:
                        data = resp.json()
                    except (json.JSONDecodeError, UnicodeDecodeError):
                        raise MalformedOutput("response body is not JSON", raw=resp.text[:2000]) from None
                    if not isinstance(data, dict):
                        raise MalformedOutput("response body is not a JSON object", raw=resp.text[:2000])
                    return data, attempt
                last = f"HTTP {resp.status_code}: {resp.text[:300]}"
                kind = upstream_failure_kind(resp.status_code) or FailureKind.PROVIDER
                if resp.status_code not in RETRYABLE_STATUS:
                    raise ProviderError(f"provider refused the request: {last}", status=resp.status_code,
                                        attempts=attempt)
                wait = _retry_after(resp.headers.get("Retry-After"), cfg.retry_after_max)
            if attempt < cfg.attempts:
                cfg.sleep(wait if wait is not None
                          else min(cfg.backoff_max, cfg.backoff_base * 2 ** (attempt - 1)))
        note(kind, f"model client: {last}")  # the harness's own observation (`core.llm.ledger`)
        raise ProviderError(f"provider failed after {cfg.attempts} attempts: {last}", attempts=cfg.attempts)

    def _parse(self, raw: dict[str, Any], body: dict[str, Any], model: str, key: str, *, cached: bool,
               attempts: int) -> ChatResponse:
        try:
            choice = raw["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError):
            raise MalformedOutput("response has no choices[0].message",
                                  raw=json.dumps(raw)[:2000]) from None
        content = message.get("content") or ""
        if not isinstance(content, str):  # content parts: keep the text ones
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        usage = raw.get("usage") or {}
        prompt_tokens = int(usage.get("prompt_tokens") or 0)
        completion_tokens = int(usage.get("completion_tokens") or 0)
        return ChatResponse(
            content=content, tool_calls=list(message.get("tool_calls") or []),
            finish_reason=choice.get("finish_reason"), prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cost_usd=call_cost(model, prompt_tokens, completion_tokens, self.prices()),
            model=model, key=key, cached=cached, attempts=attempts, request=body, raw=raw)


def _log(response: ChatResponse, source: str, started: float) -> None:
    """Record an answered call in the run's ``model_calls`` (`call_log`)."""
    record_client_call(model=response.model, request=response.request, response=response.raw, status=200,
                       source=source, started=started, prompt_tokens=response.prompt_tokens,
                       completion_tokens=response.completion_tokens, cost_usd=response.cost_usd)


def _digest(body: dict[str, Any]) -> dict[str, Any]:
    """What a run keeps of a request that was not answered (`gateway.limits.refused_digest`)."""
    return refused_digest(json.dumps(body, ensure_ascii=False).encode("utf-8", "surrogatepass"))


def _as_record(value: Any) -> dict[str, Any] | None:
    """Accept what any `ResponseCache` returns: a dict, JSON text/bytes, or None."""
    if value is None:
        return None
    if isinstance(value, bytes | str):
        value = json.loads(value)
    return value if isinstance(value, dict) and "response" in value else None


def _retry_after(header: str | None, cap: float) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP date); None if absent/bad."""
    if not header:
        return None
    try:
        return min(cap, max(0.0, float(header)))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(header)
    except (TypeError, ValueError):
        return None
    return min(cap, max(0.0, when.timestamp() - time.time()))
