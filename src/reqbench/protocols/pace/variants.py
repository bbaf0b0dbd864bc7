"""Judging variants for the paper's component study (Table 5): the full pipeline and three ablations.

* ``full``          the complete protocol: localized L1 evidence, checklist, one targeted expansion;
* ``full-diff``     "w/o tiered judgment": the complete candidate diff replaces the localized evidence
                    package (no connection inventory, no scope, no expansion to localize);
* ``no-checklist``  "w/o checklist aggregation": the judge emits the point verdict directly
                    (``{"verdict": "Covered|Partial|Missing", "evidence": ...}``), nothing is folded;
* ``no-expansion``  the checklist without the targeted expansion: evidence a judge names as missing
                    leaves the point Unresolved at once.

"w/o contract grounding" is a change of the case (description without criteria), the vanilla and
agent-as-a-judge baselines are different judges; they are not variants of this scorer. The paper
describes its ablations in one sentence each; ``no-expansion`` is ours (it isolates appendix §13's
single expansion). `pace score --variant` and `Scorer.score(variant=...)` select one.
"""

from __future__ import annotations

import json
from typing import Any

from reqbench.core.judges.base import JudgeRejected
from reqbench.protocols.pace.models import CodePoint, Verdict

VARIANTS = ("full", "full-diff", "no-checklist", "no-expansion")
DEFAULT_VARIANT = "full"

DIRECT_INSTRUCTION = (
    'Judge the point as a whole instead of a checklist: reply with one JSON object {"verdict": '
    '"Covered|Partial|Missing", "evidence": "..."} and nothing else.'
)


def check_variant(name: str) -> str:
    if name not in VARIANTS:
        from reqbench.core.errors import InputError

        raise InputError(f"unknown judging variant {name!r} ({' | '.join(VARIANTS)})", item="--variant")
    return name


def direct_verdict(point: CodePoint, raw: str | dict[str, Any]) -> Verdict:
    """The verdict a ``no-checklist`` judge emits directly (paper Table 5: "the judge emits a verdict
    directly"). A checklist answer (the token-overlap heuristic has no other form) is read as covered only if
    every entry is covered, missing if every entry is missing, otherwise partial — its severities
    ignored, which is what dropping checklist aggregation means."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw.strip().removeprefix("```json").removeprefix("```").removesuffix("```"))
        except json.JSONDecodeError as exc:
            raise JudgeRejected(f"{point.id}: answer is not JSON ({exc.msg})") from exc
    if not isinstance(raw, dict):
        raise JudgeRejected(f"{point.id}: answer is not a JSON object")
    if "verdict" in raw:
        label = str(raw["verdict"]).capitalize()
        if label not in ("Covered", "Partial", "Missing"):
            raise JudgeRejected(f"{point.id}: verdict {raw['verdict']!r} is not Covered/Partial/Missing")
        return Verdict(label)
    judgments = {str(e.get("judgment")) for e in raw.get("evidence_checklist", []) if isinstance(e, dict)}
    if not judgments:
        raise JudgeRejected(f"{point.id}: no verdict")
    if judgments == {"covered"}:
        return Verdict.COVERED
    return Verdict.MISSING if judgments == {"missing"} else Verdict.PARTIAL
