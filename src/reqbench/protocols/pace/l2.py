"""L2: constrained semantic judgment with a fixed checklist (paper §3.1 L2, appendix O.5 and §13).

The judge sees the point description, the frozen criteria (id, text, polarity, severity) and the L1
evidence — never weights or the reference answer. Its answer must contain exactly the frozen criterion
ids, each with cited evidence, the echoed severity and a covered/partial/missing judgment; otherwise it
is rejected and asked again. A non-empty ``missing_evidence`` triggers **one** targeted expansion and a
second judgment; whatever is still missing afterwards stays unresolved, which blocks the case score.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import ValidationError

from reqbench.core.judges.base import JudgePending, JudgeRejected
from reqbench.protocols.pace.aggregate import fold_point
from reqbench.protocols.pace.l1.evidence import EvidencePackage, Localizer
from reqbench.protocols.pace.models import Checklist, CodePoint, Verdict

ATTEMPTS = 3


@dataclass
class PointRequest:
    """What a judge receives for one point (the checklist schema input)."""

    case_id: str
    point_id: str
    description: str
    criteria: list[dict[str, str]]
    evidence_text: str
    connection_inventory: list[dict[str, Any]]
    inspected_scope: list[str]
    evidence_omissions: list[str]
    round: int = 0
    package: EvidencePackage | None = field(default=None, repr=False)
    """The structured package (the offline heuristic reads it; model judges read `evidence_text`)."""
    allowed_alternatives: list[str] = field(default_factory=list)

    def public(self) -> dict[str, Any]:
        """The JSON a model judge is given (no weights, no reference)."""
        return {"description": self.description, "frozen_criteria": self.criteria,
                "allowed_alternatives": self.allowed_alternatives,
                "candidate_evidence": self.evidence_text, "connection_inventory": self.connection_inventory,
                "inspected_scope": self.inspected_scope, "evidence_omissions": self.evidence_omissions}


class PointJudge(Protocol):
    judge_id: str

    def judge_point(self, request: PointRequest) -> str | dict[str, Any]:
        """Return the checklist (JSON text or dict). May raise `JudgeRejected` or `JudgePending`."""
        ...


def build_request(case_id: str, point: CodePoint, pkg: EvidencePackage, round_: int = 0) -> PointRequest:
    from dataclasses import asdict

    return PointRequest(
        case_id=case_id, point_id=point.id, description=point.description,
        criteria=[{"criterion_id": c.criterion_id, "text": c.text, "polarity": c.polarity.value,
                   "severity": c.severity.value} for c in point.criteria],
        evidence_text=pkg.render(), connection_inventory=[asdict(c) for c in pkg.connections],
        inspected_scope=pkg.inspected_scope, evidence_omissions=pkg.omissions, round=round_, package=pkg,
        allowed_alternatives=list(point.allowed_alternatives))


def validate_checklist(point: CodePoint, raw: str | dict[str, Any]) -> Checklist:
    """Parse and check a judge answer against the frozen criteria; raise `JudgeRejected` on any breach."""
    if isinstance(raw, str):
        try:
            raw = json.loads(_strip_fences(raw))
        except json.JSONDecodeError as exc:
            raise JudgeRejected(f"{point.id}: answer is not JSON ({exc.msg})") from exc
    try:
        checklist = Checklist.model_validate(raw)
    except ValidationError as exc:
        raise JudgeRejected(f"{point.id}: answer breaks the checklist schema: {exc.errors()[0]['msg']}") from exc
    frozen = {c.criterion_id: c for c in point.criteria}
    seen: set[str] = set()
    for entry in checklist.evidence_checklist:
        cid = entry.criterion_id
        if cid not in frozen:
            raise JudgeRejected(f"{point.id}: criterion {cid!r} is not one of the frozen ids")
        if cid in seen:
            raise JudgeRejected(f"{point.id}: criterion {cid!r} judged twice")
        seen.add(cid)
        if entry.severity is not frozen[cid].severity:
            raise JudgeRejected(f"{point.id}: criterion {cid!r} severity changed from {frozen[cid].severity}")
        if not entry.evidence.strip():
            raise JudgeRejected(f"{point.id}: criterion {cid!r} cites no evidence")
    missing = [c for c in frozen if c not in seen]
    if missing:
        raise JudgeRejected(f"{point.id}: criteria not judged: {missing}")
    return checklist


def _strip_fences(text: str) -> str:
    t = text.strip()
    if t.startswith("```"):
        t = t.split("\n", 1)[1] if "\n" in t else ""
        t = t.rsplit("```", 1)[0]
    return t


def _ask(judge: PointJudge, point: CodePoint, request: PointRequest) -> Checklist:
    last: Exception | None = None
    for _ in range(ATTEMPTS):
        try:
            return validate_checklist(point, judge.judge_point(request))
        except JudgeRejected as exc:
            last = exc
    raise JudgePending(f"{point.id}: no valid checklist after {ATTEMPTS} attempts: {last}")


@dataclass
class L2Outcome:
    verdict: Verdict
    checklist: Checklist | None
    rounds: int
    unresolved_evidence: list[str]
    detail: str = ""


def judge_point(case_id: str, point: CodePoint, pkg: EvidencePackage, localizer: Localizer,
                judge: PointJudge) -> L2Outcome:
    """Judge one point: checklist, at most one targeted expansion, deterministic folding."""
    try:
        checklist = _ask(judge, point, build_request(case_id, point, pkg, 0))
        rounds = 1
        if checklist.missing_evidence:
            localizer.expand(pkg, checklist.missing_evidence)
            checklist = _ask(judge, point, build_request(case_id, point, pkg, 1))
            rounds = 2
    except JudgePending as exc:
        return L2Outcome(Verdict.UNRESOLVED, None, 0, [], f"judge pending: {exc}")
    if checklist.missing_evidence:
        return L2Outcome(Verdict.UNRESOLVED, checklist, rounds, list(checklist.missing_evidence),
                         "evidence still missing after the single targeted expansion")
    severity = {c.criterion_id: c.severity for c in point.criteria}
    verdict = fold_point((e.judgment, severity[e.criterion_id]) for e in checklist.evidence_checklist)
    return L2Outcome(verdict, checklist, rounds, [])
