"""Point judges for L2, built from a judge spec parsed by the one parser (`reqbench.core.judges.spec`):

* ``token-overlap`` (the default) -- the reference-evidence token-recall heuristic (`judges.token_overlap`);
  ``offline`` is its older name (registered for PACE only), still accepted because the pace commands
  documented it.
* ``replay:FILE`` -- recorded checklists in the one replay format (`reqbench.core.judges.replay`), one
  record per point request, keyed by `PointRequest.key()` with the checklist as its ``answer``.
* ``llm[:MODEL]`` -- the checklist prompt over the OpenAI-compatible client (`judges.llm`).

Any other registered judge answers label requests, not checklists, and is refused with this list.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from reqbench.core.errors import InputError
from reqbench.core.judges.spec import build_judge, heuristic, parse_judge_spec
from reqbench.protocols.pace.l1.evidence import EvidencePackage
from reqbench.protocols.pace.l2 import PointJudge

DEFAULT_JUDGE = "token-overlap"
ACCEPTED = ("token-overlap", "offline", "replay", "llm")

HEURISTIC_NOTICE = (
    "token-overlap heuristic judge: each criterion is compared with the reference patch's evidence for the "
    "same point. This is a smoke test of the pipeline, not a PACE score (judge with llm:MODEL or replay:FILE)."
)
"""Printed in the header of `pace score` and of the report whenever the token-overlap heuristic judged."""


def judge_notice(judge_id: str) -> str | None:
    """The header notice for results judged by `judge_id`: the heuristic notice, or None for a real judge.

    Paper §3.1 (L2): acceptance is a constrained semantic judgment that "cannot introduce new requirements"
    and never sees the reference answer (appendix §13: "L2 sees criterion text and the evidence package,
    but not weights or the reference answer"). The heuristic reads the reference patch, so its numbers are
    labelled as a reference-relative smoke test wherever they are shown (``offline-heuristic`` is the id
    results recorded before the rename carry).
    """
    return HEURISTIC_NOTICE if judge_id.startswith(("token-overlap", "offline")) else None


def withheld_success_rate(judge_ids: list[str]) -> str | None:
    """Why no success rate is shown for results judged by `judge_ids`, or None when it may be.

    PACE-Bench §3.1 defines success as a case whose every Code Point the semantic L2 judge accepts; a
    reference-relative token heuristic (`judge_notice`) cannot make that judgment, so a success rate from
    it would read as a PACE success rate. Reports show the case mean (labelled a smoke test) and withhold
    the rate whenever any row was judged by the heuristic."""
    if any(judge_notice(j) for j in judge_ids):
        return "withheld: the token-overlap heuristic cannot decide PACE success (judge with llm:MODEL or replay:FILE)"
    return None


@heuristic
def make_token_overlap(arg: str | None) -> type:
    """Registry factory of ``token-overlap``: the judge class, built per case with its reference packages."""
    if arg:
        raise InputError(f"judge 'token-overlap' takes no argument (got {arg!r})", item="--judge")
    from reqbench.protocols.pace.judges.token_overlap import TokenOverlapJudge

    return TokenOverlapJudge


def make_point_judge(spec: str, reference: Callable[[], Mapping[str, EvidencePackage]]) -> PointJudge:
    """Build a judge from its spec ('' = the default). `reference` lazily yields the reference packages
    (token-overlap only)."""
    parsed = parse_judge_spec(spec or DEFAULT_JUDGE, accepts=ACCEPTED, what="PACE checklists")
    if parsed.name in ("token-overlap", "offline"):
        judge: PointJudge = build_judge(parsed)(reference())
        return judge
    if parsed.name == "replay":
        from reqbench.protocols.pace.judges.replay import ReplayPointJudge

        if not parsed.arg:
            raise InputError("replay judge needs a file: replay:FILE", item=spec)
        return ReplayPointJudge(Path(parsed.arg))
    from reqbench.protocols.pace.judges.llm import LLMPointJudge

    return LLMPointJudge(model=parsed.arg)
