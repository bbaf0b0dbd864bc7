"""`make_judge(spec)`: a judge spec string becomes a `Judge` that answers `JudgeRequest`s.

Specs are parsed by `reqbench.core.judges.spec` (one parser, one meaning per name); reqbench's
request-answering judges are:

* ``exact`` -- `ExactJudge`: the deterministic rule each contract carries (`JudgeRequest.exact_rule`).
* ``replay:FILE`` -- `ReplayJudge`, answers recorded earlier (`reqbench.core.judges.replay`).
* ``llm:MODEL`` -- the model-backed judge of `reqbench.core.judges.llm` (the paper's judge contracts).

A registered judge that answers something else (``token-overlap`` judges PACE checklists,
``word-overlap`` journey turns) is refused here with the list of judges that answer requests.
"""

from __future__ import annotations

from pathlib import Path

from reqbench.core.errors import InputError
from reqbench.core.judges.base import Judge
from reqbench.core.judges.exact import ExactJudge
from reqbench.core.judges.replay import ReplayJudge
from reqbench.core.judges.spec import build_judge, parse_judge_spec

JUDGE_SPECS = "exact | replay:FILE | llm:MODEL"


def make_judge(spec: str) -> Judge:
    """Build the request-answering judge named by `spec`; `InputError` on a bad or unsuitable spec."""
    parsed = parse_judge_spec(spec)
    judge = build_judge(parsed)
    if not isinstance(judge, Judge):
        raise InputError(f"judge {parsed.name!r} does not answer judge requests; use {JUDGE_SPECS} "
                         "(or a plugin's request judge)", item="--judge")
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
