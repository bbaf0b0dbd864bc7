"""`make_judge(spec)`: the one place a judge spec string becomes a `Judge`.

Judges register through the ``reqbench.judges`` entry-point group (`reqbench.core.registry`); a spec is
``NAME`` or ``NAME:ARG`` and the registered factory gets ``ARG`` (or None). reqbench's own:

* ``exact`` — `ExactJudge`, the offline default (documented normalised string rules).
* ``replay:FILE`` — `ReplayJudge`, labels recorded earlier (JSONL keyed by request key).
* ``llm:MODEL`` — the model-backed judge of `reqbench.core.judges.llm` (the paper's judge contracts).
"""

from __future__ import annotations

from pathlib import Path

from reqbench.core import registry
from reqbench.core.errors import InputError
from reqbench.core.judges.base import Judge
from reqbench.core.judges.exact import ExactJudge
from reqbench.core.judges.replay import ReplayJudge

JUDGE_SPECS = "exact | replay:FILE | llm:MODEL"


def make_judge(spec: str) -> Judge:
    """Build the judge named by `spec` (see the module docstring); `InputError` on a bad spec."""
    spec = (spec or "").strip()
    name, _, arg = spec.partition(":")
    if name not in registry.names("judges"):
        raise InputError(f"unknown judge {spec!r}; use {JUDGE_SPECS} (registered: "
                         f"{', '.join(registry.names('judges'))})")
    judge: Judge = registry.load("judges", name)(arg or None)
    return judge


def make_exact(arg: str | None) -> Judge:
    if arg:
        raise InputError(f"judge 'exact' takes no argument (got {arg!r})")
    return ExactJudge()


def make_replay(arg: str | None) -> Judge:
    if not arg:
        raise InputError("judge spec 'replay' needs a file: replay:FILE")
    return ReplayJudge(Path(arg))


def make_llm(arg: str | None) -> Judge:
    if not arg:
        raise InputError("judge spec 'llm' needs a model name: llm:MODEL")
    from reqbench.core.judges.llm import make_llm_judge  # model-backed: imported only when asked for

    return make_llm_judge(arg)
