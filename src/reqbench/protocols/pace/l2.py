"""L2: constrained semantic judgment with a fixed checklist (paper §3.1 L2, appendix O.5 and §13).

The judge sees the point description, the frozen criteria (id, text, polarity, severity) and the L1
evidence — never weights or the reference answer. Its answer must contain exactly the frozen criterion
ids, each with cited evidence, a severity (the frozen one confirmed or overridden; overrides are
recorded) and a covered/partial/missing judgment; otherwise it is rejected and asked again. A
non-empty ``missing_evidence`` triggers **one** targeted expansion and a second judgment; whatever is
still missing afterwards stays unresolved, which blocks the case score.

Grounding (`grounding`): a judge that declares ``requires_citations`` (the model judge) must back every
covered/partial entry with a citation that verifies against the candidate's evidence; any citation a
judge gives is verified. An ungrounded answer is re-asked once with the failures as feedback, then the
point is Unresolved. The outcome keeps an audit record: the prompt's fence id and every citation's
verification result.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import ValidationError

from reqbench.core.judges.base import JudgePending, JudgeRejected
from reqbench.protocols.pace.aggregate import fold_point
from reqbench.protocols.pace.connections import check_connections
from reqbench.protocols.pace.grounding import verify
from reqbench.protocols.pace.l1.evidence import EvidencePackage, Localizer
from reqbench.protocols.pace.models import Checklist, CodePoint, Severity, Verdict
from reqbench.protocols.pace.variants import direct_verdict

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
    """The structured package (the token-overlap heuristic reads it; model judges read `evidence_text`)."""
    allowed_alternatives: list[str] = field(default_factory=list)
    feedback: str = ""
    """Why the previous answer was rejected (set on a retry, so a cached bad answer is not replayed)."""
    fence: dict[str, Any] = field(default_factory=dict)
    """Set by a model judge: the audit of the fence its prompt put the candidate's evidence in."""
    variant: str = "full"
    """Judging variant (`variants.VARIANTS`); ``no-checklist`` asks for a direct verdict."""
    kind: str = "behavior"
    """The point's frozen kind (`models.CodePoint.kind`): the heuristic counts documentation and
    configuration files only for points about them (`judges.wired.counts_for`). Not shown to model judges."""

    def key(self) -> str:
        """The request's replay key (`reqbench.core.judges.replay`): case, point and judging round."""
        return f"pace/{self.case_id}/{self.point_id}/round-{self.round}"

    def public(self) -> dict[str, Any]:
        """The JSON a model judge is given (no weights, no reference)."""
        return {
            "description": self.description,
            "frozen_criteria": self.criteria,
            "allowed_alternatives": self.allowed_alternatives,
            "candidate_evidence": self.evidence_text,
            "connection_inventory": self.connection_inventory,
            "inspected_scope": self.inspected_scope,
            "evidence_omissions": self.evidence_omissions,
        }


class PointJudge(Protocol):
    judge_id: str

    def judge_point(self, request: PointRequest) -> str | dict[str, Any]:
        """Return the checklist (JSON text or dict). May raise `JudgeRejected` or `JudgePending`."""
        ...


def build_request(case_id: str, point: CodePoint, pkg: EvidencePackage, round_: int = 0) -> PointRequest:
    from dataclasses import asdict

    return PointRequest(
        case_id=case_id,
        point_id=point.id,
        description=point.description,
        criteria=[
            {
                "criterion_id": c.criterion_id,
                "text": c.text,
                "polarity": c.polarity.value,
                "severity": c.severity.value,
            }
            for c in point.criteria
        ],
        evidence_text=pkg.render(),
        connection_inventory=[asdict(c) for c in pkg.connections],
        inspected_scope=pkg.inspected_scope,
        evidence_omissions=pkg.omissions,
        round=round_,
        package=pkg,
        allowed_alternatives=list(point.allowed_alternatives),
        kind=point.kind,
    )


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
        raise JudgeRejected(
            f"{point.id}: answer breaks the checklist schema: {exc.errors()[0]['msg']}"
        ) from exc
    frozen = {c.criterion_id: c for c in point.criteria}
    seen: set[str] = set()
    for entry in checklist.evidence_checklist:
        cid = entry.criterion_id
        if cid not in frozen:
            raise JudgeRejected(f"{point.id}: criterion {cid!r} is not one of the frozen ids")
        if cid in seen:
            raise JudgeRejected(f"{point.id}: criterion {cid!r} judged twice")
        seen.add(cid)
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


class Ungrounded(JudgePending):
    """The judge's covered/partial verdicts did not cite verifiable evidence, twice."""

    def __init__(self, message: str, audit: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.audit = audit


def _ask(judge: PointJudge, point: CodePoint, request: PointRequest,
         log: list[dict[str, Any]]) -> Checklist:
    """A schema-valid, grounded checklist; schema breaches get `ATTEMPTS` tries, ungrounded answers one
    re-ask. Each accepted or ungrounded answer appends its audit (fence, citation results) to `log`."""
    last: Exception | None = None
    required = bool(getattr(judge, "requires_citations", False))
    ungrounded = 0
    for _ in range(ATTEMPTS):
        try:
            checklist = validate_checklist(point, judge.judge_point(request))
        except JudgeRejected as exc:
            last = exc
            request.feedback = str(exc)
            continue
        audit, problems = verify(point, checklist, request.package, required)
        if required or request.fence or any(a["citations"] for a in audit):
            log.append({"round": request.round, "fence": dict(request.fence), "citations": audit,
                        "accepted": not problems, "problems": problems})
        if not problems:
            return checklist
        ungrounded += 1
        if ungrounded > 1:
            raise Ungrounded(f"{point.id}: citations did not verify after one re-ask: {problems}", audit)
        request.feedback = ("citations that do not verify against the evidence package: "
                            + "; ".join(problems) + ". Cite file, line range and the exact quoted code")
    raise JudgePending(f"{point.id}: no valid checklist after {ATTEMPTS} attempts: {last}")


@dataclass
class L2Outcome:
    verdict: Verdict
    checklist: Checklist | None
    rounds: int
    unresolved_evidence: list[str]
    detail: str = ""
    audit: list[dict[str, Any]] = field(default_factory=list)
    """Per judged answer: fence id, each citation's verification result, accepted or not."""
    severity_changes: list[dict[str, str]] = field(default_factory=list)
    """Criteria whose judged severity overrides the frozen one: {criterion_id, frozen, judged}."""
    connection_checks: list[dict[str, Any]] = field(default_factory=list)
    """Connection-related judgments checked against the inventory, and the corrections made."""
    judge_down: bool = False
    """The judge could not be reached (the row is pending ``judge_unavailable``, never unresolved)."""


def judged_severities(point: CodePoint, checklist: Checklist) -> tuple[dict[str, Severity], list[dict[str, str]]]:
    """The severity each criterion folds with, and the recorded overrides of the frozen severity.

    Paper appendix O.5 (checklist schema): the judge's output is ``evidence_checklist: [{criterion_id,
    evidence, severity, judgment}]`` and appendix §13: "Each entry cites evidence, records severity, and
    judges the same condition with its original polarity." Severity is therefore judged. The frozen
    per-criterion severity of the contract is the default: an entry without a severity confirms it; an
    entry with another severity overrides it, and the override is returned as
    ``{criterion_id, frozen, judged}`` so every change is visible in the point result.
    """
    out: dict[str, Severity] = {}
    changes: list[dict[str, str]] = []
    frozen = {c.criterion_id: c.severity for c in point.criteria}
    for e in checklist.evidence_checklist:
        sev = e.severity or frozen[e.criterion_id]
        out[e.criterion_id] = sev
        if sev is not frozen[e.criterion_id]:
            changes.append({"criterion_id": e.criterion_id, "frozen": frozen[e.criterion_id].value,
                            "judged": sev.value})
    return out, changes


def judge_point(
    case_id: str, point: CodePoint, pkg: EvidencePackage, localizer: Localizer, judge: PointJudge,
    variant: str = "full", full_diff: str = "",
) -> L2Outcome:
    """Judge one point: checklist, at most one targeted expansion, deterministic folding.

    `variant` selects a Table 5 ablation (`variants`): ``full-diff`` shows `full_diff` instead of the
    localized package, ``no-checklist`` takes the judge's direct verdict, ``no-expansion`` skips the
    targeted expansion."""
    log: list[dict[str, Any]] = []
    request = build_request(case_id, point, pkg, 0)
    request.variant = variant
    if variant == "full-diff":
        request.evidence_text = full_diff
        request.connection_inventory, request.inspected_scope, request.evidence_omissions = [], [], []
    if variant == "no-checklist":
        try:
            verdict = direct_verdict(point, judge.judge_point(request))
        except JudgePending as exc:
            return L2Outcome(Verdict.UNRESOLVED, None, 0, [], f"judge pending: {exc}", log, judge_down=True)
        except JudgeRejected as exc:
            return L2Outcome(Verdict.UNRESOLVED, None, 1, [], f"no direct verdict: {exc}", log)
        return L2Outcome(verdict, None, 1, [], "direct verdict (no checklist aggregation)", log)
    try:
        checklist = _ask(judge, point, request, log)
        rounds = 1
        if checklist.missing_evidence and variant not in ("no-expansion", "full-diff"):
            localizer.expand(pkg, checklist.missing_evidence)
            checklist = _ask(judge, point, build_request(case_id, point, pkg, 1), log)
            rounds = 2
    except JudgePending as exc:
        return L2Outcome(Verdict.UNRESOLVED, None, 0, [], f"judge pending: {exc}", log, judge_down=True)
    if checklist.missing_evidence:
        return L2Outcome(
            Verdict.UNRESOLVED,
            checklist,
            rounds,
            list(checklist.missing_evidence),
            "evidence still missing after the single targeted expansion",
            log,
        )
    checks, corrections = check_connections(point, checklist, pkg)
    severity, changes = judged_severities(point, checklist)
    verdict = fold_point((e.judgment, severity[e.criterion_id]) for e in checklist.evidence_checklist)
    conn = [*checks, *({"correction": c} for c in corrections)]
    return L2Outcome(verdict, checklist, rounds, [], audit=log, severity_changes=changes,
                     connection_checks=conn)
