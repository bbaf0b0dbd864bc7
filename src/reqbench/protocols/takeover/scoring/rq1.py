"""RQ1 — relevant requirement and evidence identification (ReqMemBench 3.2, C.1; C1 only)."""

from __future__ import annotations

from dataclasses import dataclass, field

from reqbench.core.judges.base import JudgePending
from reqbench.protocols.takeover.judging import AlignSide, JudgeSession
from reqbench.protocols.takeover.judging.contracts import RQ1_ALIGNMENT
from reqbench.protocols.takeover.phase_a.response import AgentResponse
from reqbench.protocols.takeover.scoring.alignment import PRF, Alignment, align
from reqbench.protocols.takeover.scoring.instances import Rq1Gold
from reqbench.protocols.takeover.scoring.matching import ordered_matching


@dataclass
class Rq1Result:
    status: str
    """``scored``, ``pending`` (judge answer missing) or ``agent_failure``."""
    requirement: PRF | None
    evidence: PRF
    alignment: Alignment | None = None
    pending: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "status": self.status,
            "requirement": self.requirement.as_json() if self.requirement else None,
            "evidence": self.evidence.as_json(),
        }
        if self.alignment is not None:
            out["matches"] = [list(m) for m in self.alignment.matched_refs()]
        return out


def gold_sides(gold: Rq1Gold) -> list[AlignSide]:
    out = []
    for rid in gold.relevant_requirement_ids:
        atom = gold.gold_requirement_atoms[rid]
        ids = tuple(m for g in atom.required_evidence_groups for m in g.acceptable_message_ids)
        out.append(AlignSide(rid, atom.canonical_summary, tuple(dict.fromkeys(ids))))
    return out


def requirement_prf(n_pred: int, n_gold: int, n_matched: int) -> PRF:
    """RQ1 requirement identification (C.1).

    Matched requirements (maximum-cardinality, maximum-weight SAME_ATOM matching) are TP; unmatched
    predictions are FP, unmatched gold requirements FN. Precision = TP / #predictions (0 without
    predictions), Recall = TP / #gold, F1 = 2·TP / (#predictions + #gold) (0 without predictions).
    Per target; macro-averaged over targets under C1 only (E.2).
    """
    return PRF.from_counts(n_matched, n_pred, n_gold)


def evidence_prf(pred_items: list[tuple[str, str]], gold: Rq1Gold) -> PRF:
    """RQ1 evidence identification (C.1), independent of requirement matching.

    Gold units: (gold requirement, required evidence group); a group is covered by any one of its
    acceptable messages. Prediction units: (requirement_ref, message id) pairs. Each predicted pair
    covers at most one group (maximum-cardinality matching, predictions and groups in input order).
    Matched pairs are TP; uncovered groups are FN. An unmatched pair citing an acceptable message of a
    covered group, or a neutral-context message of any gold requirement, is neither credited nor
    penalised; every other unmatched pair is FP. Precision = TP/(TP+FP) (0 when TP+FP = 0),
    Recall = TP/(TP+FN), F1 = 2·TP/(2·TP+FP+FN).
    """
    groups: list[set[str]] = []
    neutral: set[str] = set()
    for rid in gold.relevant_requirement_ids:
        atom = gold.gold_requirement_atoms[rid]
        groups.extend({str(m) for m in g.acceptable_message_ids} for g in atom.required_evidence_groups)
        neutral |= {str(m) for m in atom.neutral_context_message_ids}
    edges = [(i, j) for i, (_, mid) in enumerate(pred_items) for j, grp in enumerate(groups) if mid in grp]
    matches = ordered_matching(len(pred_items), len(groups), edges)
    covered_msgs = set().union(*(groups[j] for j in matches.values())) if matches else set()
    fp = sum(1 for i, (_, mid) in enumerate(pred_items)
             if i not in matches and mid not in covered_msgs and mid not in neutral)
    tp = len(matches)
    return PRF.from_counts(tp, tp + fp, len(groups))


def score_rq1(gold: Rq1Gold, response: AgentResponse | None, session: JudgeSession) -> Rq1Result:
    """RQ1 for one target. `response` None = agent failure: every metric 0 (C.2)."""
    n_groups = sum(len(gold.gold_requirement_atoms[r].required_evidence_groups)
                   for r in gold.relevant_requirement_ids)
    if response is None:
        return Rq1Result("agent_failure", PRF.from_counts(0, 0, len(gold.relevant_requirement_ids)),
                         PRF.from_counts(0, 0, n_groups))
    items = [(r.requirement_ref, str(m)) for r in response.requirements for m in r.evidence_message_ids]
    evidence = evidence_prf(items, gold)
    preds = [AlignSide(r.requirement_ref, r.requirement_summary, tuple(r.evidence_message_ids))
             for r in response.requirements]
    golds = gold_sides(gold)
    try:
        alignment = align(RQ1_ALIGNMENT, preds, golds, session, [g.evidence_message_ids for g in golds])
    except JudgePending as exc:
        return Rq1Result("pending", None, evidence, pending=[str(exc)])
    return Rq1Result("scored", requirement_prf(len(preds), len(golds), len(alignment.matches)),
                     evidence, alignment)
