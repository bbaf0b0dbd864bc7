"""Scoring one candidate patch against a frozen case: L0 -> L1 -> L2 -> deterministic aggregation.

`Scorer` owns one case: it materialises the base once, indexes it once, and (for the token-overlap judge)
localises the reference patch once. `Scorer.score(patch, judge)` returns a `CaseResult` whose dict is
what `reqbench pace score --json` prints. A patch that does not apply to the exact base raises
`PatchApplyError` (an evaluation-side error, never a zero).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reqbench.core import tempdirs
from reqbench.core.hashing import sha256_text
from reqbench.protocols.pace import repo
from reqbench.protocols.pace.aggregate import case_score, is_complete
from reqbench.protocols.pace.case import Case, check_frozen, contract_hash
from reqbench.protocols.pace.judges import judge_notice, make_point_judge
from reqbench.protocols.pace.l0 import check_contract
from reqbench.protocols.pace.l1.callgraph import RepoIndex, iter_files
from reqbench.protocols.pace.l1.evidence import EvidencePackage, Localizer, package_structure_exception
from reqbench.protocols.pace.l2 import PointJudge, judge_point
from reqbench.protocols.pace.models import Verdict
from reqbench.protocols.pace.variants import DEFAULT_VARIANT, check_variant

_BASE_INDEXES: dict[tuple[str, str], RepoIndex] = {}
_REFERENCES: dict[tuple[str, str, str, str], dict[str, EvidencePackage]] = {}
"""Per-process caches: a base tree is immutable while its signature holds; the reference evidence of a
frozen contract is a pure function of contract and base."""


def _tree_signature(root: Path) -> str:
    """Cheap identity of the indexed files of a tree (path, size, mtime)."""
    h = hashlib.sha256()
    for rel in iter_files(root):
        st = (root / rel).stat()
        h.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


@dataclass
class PointResult:
    point_id: str
    verdict: Verdict
    weight: float
    stage: str
    """L0 (conclusive violation) | L1 (package-structure exception) | L2 (checklist)."""
    l0: dict[str, Any] | None = None
    checklist: dict[str, Any] | None = None
    rounds: int = 0
    unresolved_evidence: list[str] = field(default_factory=list)
    detail: str = ""
    evidence_tokens: int = 0
    evidence: dict[str, Any] | None = None
    audit: list[dict[str, Any]] = field(default_factory=list)
    """L2 audit: per judged answer, the prompt's fence id and each citation's verification result."""
    severity_changes: list[dict[str, str]] = field(default_factory=list)
    """Criteria whose judged severity overrides the frozen default ({criterion_id, frozen, judged})."""
    connection_checks: list[dict[str, Any]] = field(default_factory=list)
    """Connection-related judgments checked against the L1 inventory, and corrections made."""
    judge_down: bool = False
    """The L2 judge could not be reached for this point (`l2.L2Outcome.judge_down`)."""
    description: str = ""
    """The point's frozen description, and below its criteria (id -> text): what a reader of the result
    needs beside each verdict (the viewer's row page shows them)."""
    criteria: dict[str, str] = field(default_factory=dict)

    @property
    def reasoning(self) -> str:
        """The cited reasoning attribution reads (non-covered criteria first)."""
        if self.stage == "L0":
            return f"contract mismatch: {self.detail}"
        parts = []
        for e in (self.checklist or {}).get("evidence_checklist", []):
            if e.get("judgment") != "covered":
                parts.append(f"{e.get('criterion_id')}: {e.get('reasoning') or e.get('evidence')}")
        return "; ".join(parts) or self.detail

    def to_dict(self, with_evidence: bool = False) -> dict[str, Any]:
        d: dict[str, Any] = {
            "point_id": self.point_id,
            "verdict": self.verdict.value,
            "weight": self.weight,
            "stage": self.stage,
            "l0": self.l0,
            "checklist": self.checklist,
            "rounds": self.rounds,
            "unresolved_evidence": self.unresolved_evidence,
            "detail": self.detail,
            "reasoning": self.reasoning,
            "evidence_tokens": self.evidence_tokens,
            "description": self.description,
            "criteria": self.criteria,
        }
        if self.audit:
            d["audit"] = self.audit
        if self.severity_changes:
            d["severity_changes"] = self.severity_changes
        if self.connection_checks:
            d["connection_checks"] = self.connection_checks
        if with_evidence:
            d["evidence"] = self.evidence
        return d


@dataclass
class CaseResult:
    case_id: str
    frozen_hash: str
    patch_sha256: str
    judge_id: str
    score: float | None
    complete: bool
    points: list[PointResult]

    @property
    def verdicts(self) -> dict[str, Verdict]:
        return {p.point_id: p.verdict for p in self.points}

    def to_dict(self, with_evidence: bool = False) -> dict[str, Any]:
        return {
            "case_id": self.case_id,
            "score": self.score,
            "complete": self.complete,
            "verdicts": {k: v.value for k, v in self.verdicts.items()},
            "unresolved": [p.point_id for p in self.points if p.verdict is Verdict.UNRESOLVED],
            "frozen_hash": self.frozen_hash,
            "patch_sha256": self.patch_sha256,
            "judge": self.judge_id,
            "judge_notice": judge_notice(self.judge_id),
            "points": [p.to_dict(with_evidence) for p in self.points],
        }


class Scorer:
    def __init__(self, case: Case, require_frozen: bool = True) -> None:
        self.case = case
        self.frozen_hash = check_frozen(case) if require_frozen else (case.spec.frozen_hash or "")
        self._base: Path | None = None
        self._base_index: RepoIndex | None = None
        self._reference: dict[str, EvidencePackage] | None = None
        self._variant, self._patch_text = DEFAULT_VARIANT, ""

    @property
    def base(self) -> Path:
        if self._base is None:
            self._base = repo.base_tree(self.case.spec.base, self.case.dir, self.case.spec.base_sha256)
        return self._base

    @property
    def base_index(self) -> RepoIndex:
        if self._base_index is None:
            key = (str(self.base), _tree_signature(self.base))
            if key not in _BASE_INDEXES:
                _BASE_INDEXES[key] = RepoIndex.build(self.base)
            self._base_index = _BASE_INDEXES[key]
        return self._base_index

    def localize(self, patch_text: str, tree: Path) -> Localizer:
        """Apply `patch_text` on a copy of the base at `tree` and build the L1 localiser for it."""
        repo.candidate_tree(self.base, patch_text, tree)
        touched = repo.patch_paths(patch_text)
        changed = repo.changed_files(self.base, tree, touched)
        cand = RepoIndex.build(tree)
        return Localizer(self.base_index, cand, changed)

    def reference_packages(self) -> dict[str, EvidencePackage]:
        if self._reference is None:
            key = (str(self.case.dir), contract_hash(self.case), str(self.base), _tree_signature(self.base))
            if key not in _REFERENCES:
                with tempdirs.folder("pace-ref") as tmp:
                    loc = self.localize(self.case.reference_patch, Path(tmp) / "tree")
                    _REFERENCES[key] = {p.id: loc.package(p) for p in self.case.points}
            self._reference = _REFERENCES[key]
        return self._reference

    def judge(self, spec: str) -> PointJudge:
        return make_point_judge(spec, self.reference_packages)

    def score(
        self, patch_text: str, judge: PointJudge | str = "", with_evidence: bool = False,
        variant: str = DEFAULT_VARIANT,
    ) -> CaseResult:
        """Score `patch_text`; `variant` is the judging variant (`variants.VARIANTS`, Table 5 ablations)."""
        check_variant(variant)
        if isinstance(judge, str):
            judge = self.judge(judge)
        self._variant, self._patch_text = variant, patch_text
        with tempdirs.folder("pace-cand") as tmp:
            tree = tmp / "tree"
            loc = self.localize(patch_text, tree)
            points = [self._point(p, loc, tree, judge, with_evidence) for p in self.case.points]
            for result, point in zip(points, self.case.points, strict=True):
                result.description = point.description
                result.criteria = {c.criterion_id: c.text for c in point.criteria}
        verdicts = {p.point_id: p.verdict for p in points}
        score = case_score(verdicts, self.case.weights)
        return CaseResult(
            self.case.id,
            self.frozen_hash,
            sha256_text(patch_text),
            judge.judge_id if self._variant == DEFAULT_VARIANT else f"{judge.judge_id}#{self._variant}",
            score,
            is_complete(score, verdicts),
            points,
        )

    def _point(
        self, point: Any, loc: Localizer, tree: Path, judge: PointJudge, with_evidence: bool
    ) -> PointResult:
        if point.contract is not None:
            l0 = check_contract(point.contract, tree, loc.cand)
            if l0.missing:
                return PointResult(
                    point.id, Verdict.MISSING, point.weight, "L0", l0.to_dict(), detail=l0.reason
                )
        else:
            l0 = None
        l0d = l0.to_dict() if l0 else None
        if package_structure_exception(point, loc.changed_paths, tree):
            return PointResult(
                point.id,
                Verdict.COVERED,
                point.weight,
                "L1",
                l0d,
                detail="package-structure contract: candidate-modified __init__.py",
            )
        pkg = loc.package(point)
        out = judge_point(self.case.id, point, pkg, loc, judge, self._variant, self._patch_text)
        return PointResult(
            point.id,
            out.verdict,
            point.weight,
            "L2",
            l0d,
            out.checklist.model_dump(mode="json") if out.checklist else None,
            out.rounds,
            out.unresolved_evidence,
            out.detail,
            len(pkg.render()) // 4,
            pkg.to_dict() if with_evidence else None,
            out.audit,
            out.severity_changes,
            out.connection_checks,
            out.judge_down,
        )
