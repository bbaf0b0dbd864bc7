"""The three ways a model call fails, so callers can map each to the right outcome.

* `ProviderError` — the provider did not answer usefully (429/5xx/timeout/connection error after
  retries, or a non-retryable 4xx). External: the row is *invalid* (attrition), never scored.
* `MalformedOutput` — the provider answered 200 but the body is not a chat completion we can read.
  The caller may re-ask (judges retry, then leave the score *pending*).
* `OfflineCacheMiss` — ``offline=True`` and the request is not in the record/replay cache. A user
  error (they asked to replay what was never recorded), so it is an `InputError` (exit 2).
"""

from __future__ import annotations

from reqbench.core.errors import InputError, ReqbenchError


class ProviderError(ReqbenchError):
    """The model provider failed after retries (or refused the request outright)."""

    def __init__(self, message: str, *, status: int | None = None, attempts: int = 0) -> None:
        super().__init__(message)
        self.status = status
        self.attempts = attempts


class MalformedOutput(ReqbenchError):
    """A 200 response whose body is not a readable chat completion."""

    def __init__(self, message: str, *, raw: str = "") -> None:
        super().__init__(message)
        self.raw = raw


class OfflineCacheMiss(InputError):
    """Offline replay was asked for a request that was never recorded."""

    def __init__(self, key: str, model: str) -> None:
        super().__init__(f"offline mode: no recorded response for this {model!r} request (cache key "
                         f"{key[:16]}...); run once without --offline to record it",
                         item="--offline")
        self.key = key
