"""Point judges for L2: ``offline`` (reference-similarity heuristic, the default), ``replay:FILE``,
``llm[:MODEL]`` (the checklist prompt over the OpenAI-compatible client)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from reqbench.core.errors import InputError
from reqbench.protocols.pace.l1.evidence import EvidencePackage
from reqbench.protocols.pace.l2 import PointJudge

HEURISTIC_NOTICE = (
    "offline heuristic judge: each criterion is compared with the reference patch's evidence for the same "
    "point. This is a smoke test of the pipeline, not a PACE score (judge with llm:MODEL or replay:FILE)."
)
"""Printed in the header of `pace score` and of the report whenever the offline heuristic judged."""


def judge_notice(judge_id: str) -> str | None:
    """The header notice for results judged by `judge_id`: the heuristic notice, or None for a real judge.

    Paper §3.1 (L2): acceptance is a constrained semantic judgment that "cannot introduce new requirements"
    and never sees the reference answer (appendix §13: "L2 sees criterion text and the evidence package,
    but not weights or the reference answer"). The offline heuristic reads the reference patch, so its
    numbers are labelled as a reference-relative smoke test wherever they are shown.
    """
    return HEURISTIC_NOTICE if judge_id.startswith("offline") else None


def make_point_judge(spec: str, reference: Callable[[], Mapping[str, EvidencePackage]]) -> PointJudge:
    """Build a judge from its spec. `reference` lazily yields the reference packages (offline only)."""
    name, _, arg = spec.partition(":")
    if name in ("offline", "exact", ""):
        from reqbench.protocols.pace.judges.offline import OfflineJudge

        return OfflineJudge(reference())
    if name == "replay":
        from reqbench.protocols.pace.judges.replay import ReplayJudge

        if not arg:
            raise InputError("replay judge needs a file: replay:FILE", item=spec)
        return ReplayJudge(Path(arg))
    if name == "llm":
        from reqbench.protocols.pace.judges.llm import LLMPointJudge

        return LLMPointJudge(model=arg or None)
    raise InputError("unknown judge (offline | replay:FILE | llm[:MODEL])", item=spec)
