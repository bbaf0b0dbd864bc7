"""`make_judge(spec)`: the one place a judge spec string becomes a `Judge`.

Specs:

* ``exact`` — `ExactJudge`, the offline default (documented normalised string rules).
* ``replay:FILE`` — `ReplayJudge`, labels recorded earlier (JSONL keyed by request key).
* ``llm:MODEL`` — the model-backed judge in `reqbench.core.judges.llm`, imported lazily so that the
  offline backends work without it. That module exposes ``make_llm_judge(model: str) -> Judge``
  (or a class ``LlmJudge(model)``).
"""

from __future__ import annotations

import importlib
from pathlib import Path

from reqbench.core.errors import InputError
from reqbench.core.judges.base import Judge
from reqbench.core.judges.exact import ExactJudge
from reqbench.core.judges.replay import ReplayJudge

JUDGE_SPECS = "exact | replay:FILE | llm:MODEL"


def make_judge(spec: str) -> Judge:
    """Build the judge named by `spec` (see the module docstring); `InputError` on a bad spec."""
    spec = (spec or "").strip()
    if spec == "exact":
        return ExactJudge()
    kind, sep, arg = spec.partition(":")
    if sep and kind == "replay":
        if not arg:
            raise InputError(f"judge spec {spec!r} needs a file: replay:FILE")
        return ReplayJudge(Path(arg))
    if sep and kind == "llm":
        if not arg:
            raise InputError(f"judge spec {spec!r} needs a model name: llm:MODEL")
        return _llm_judge(arg)
    raise InputError(f"unknown judge {spec!r}; use {JUDGE_SPECS}")


def _llm_judge(model: str) -> Judge:
    try:
        module = importlib.import_module("reqbench.core.judges.llm")
    except ModuleNotFoundError as exc:
        if exc.name != "reqbench.core.judges.llm":
            raise
        raise InputError("the llm judge backend (reqbench.core.judges.llm) is not installed in this "
                         "build; use --judge exact or --judge replay:FILE") from exc
    factory = getattr(module, "make_llm_judge", None) or getattr(module, "LlmJudge", None)
    if factory is None:
        raise InputError("reqbench.core.judges.llm offers neither make_llm_judge nor LlmJudge")
    judge: Judge = factory(model)
    return judge
