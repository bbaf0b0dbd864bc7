"""What a model client built inside a running row defaults to: the one place that decides it.

* **Cache** — `default_cache()`: the record/replay cache of the row being executed, so every judge and
  agent call of a run is recorded with the run (in its ``run.sqlite``) and a resumed or re-scored run
  replays it instead of asking the model again. Outside a row it is None.
* **Offline** — `run_offline()`: True while a row of a run started with ``--offline`` executes. Clients
  then replay only; a request that was never recorded raises `OfflineCacheMiss`, an `InputError`, so the
  run stops with exit 2 and one sentence (the row gets no attempt and runs again on a later ``--resume``
  without ``--offline``).
* **Draw** — `current_draw()`: a tag (`fresh_draw`) that every client mixes into its cache keys, so the
  enclosed calls are fresh draws: nothing recorded outside the draw is replayed, each answer is recorded
  under the draw's own key (re-entering the same draw replays it, so an interrupted repetition resumes).
  A judging repetition (`reqbench study rejudge`) runs in the draw named after its grading.

Both live in a `contextvars.ContextVar`, never in a module global: the executor passes a `RunContext`
(`core.execute.context`) with every row call, and the row's thread or remote worker binds it with
`model_access` for exactly the duration of the attempt. Rows running side by side in threads of one
process, or in processes of other machines, therefore never see each other's state.

`LLMConfig.from_env` consults both; an explicit ``cache=`` option of the caller wins over the row's cache,
and the row's cache over ``REQBENCH_LLM_CACHE``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from reqbench.core.llm.cache import ResponseCache


@dataclass(frozen=True)
class ModelAccess:
    cache: ResponseCache | None = None
    offline: bool = False
    draw: str = ""


_ACCESS: ContextVar[ModelAccess | None] = ContextVar("reqbench_model_access", default=None)
_NONE = ModelAccess()


def _current() -> ModelAccess:
    return _ACCESS.get() or _NONE


def default_cache() -> ResponseCache | None:
    """The executing row's record/replay cache, or None outside a row."""
    return _current().cache


def run_offline() -> bool:
    """Whether the row executing in this thread allows replay only."""
    return _current().offline


def current_draw() -> str:
    """The draw tag clients mix into their cache keys ('' outside `fresh_draw`: keys as recorded)."""
    return _current().draw


@contextmanager
def model_access(cache: ResponseCache | None = None, offline: bool = False) -> Iterator[None]:
    """Bind a cache and offline mode for the current thread (or task); nested scopes keep the outer
    cache unless given one, can only turn offline on, keep the outer draw, and restore the outer state on
    exit."""
    outer = _current()
    token = _ACCESS.set(ModelAccess(cache if cache is not None else outer.cache, offline or outer.offline,
                                    outer.draw))
    try:
        yield
    finally:
        _ACCESS.reset(token)


@contextmanager
def offline_run(offline: bool) -> Iterator[None]:
    """Replay-only model access for the enclosed code when `offline` (nested scopes restore)."""
    with model_access(offline=offline):
        yield


@contextmanager
def fresh_draw(tag: str) -> Iterator[None]:
    """Model calls in the enclosed code are draw `tag`: their cache keys include it, so answers recorded
    outside the draw (or in another draw) are never replayed (nested scopes keep cache and offline)."""
    if not tag:
        raise ValueError("a draw needs a non-empty tag")
    outer = _current()
    token = _ACCESS.set(ModelAccess(outer.cache, outer.offline, tag))
    try:
        yield
    finally:
        _ACCESS.reset(token)
