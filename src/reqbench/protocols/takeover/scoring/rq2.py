"""RQ2 — pre-request state reconstruction (ReqMemBench 3.2, C.1, eq. 3; C1 and C2)."""

from __future__ import annotations

from dataclasses import dataclass, field

from reqbench.core.judges.base import JudgePending
from reqbench.protocols.takeover.judging import AlignSide, JudgeSession
from reqbench.protocols.takeover.judging.contracts import REQUIREMENT_ALIGNMENT
from reqbench.protocols.takeover.phase_a.response import AgentResponse
from reqbench.protocols.takeover.scoring.alignment import Alignment, align
from reqbench.protocols.takeover.scoring.instances import Rq2Gold
from reqbench.protocols.takeover.scoring.states import StatePair, make_pair, score_pairs


@dataclass
class Rq2Result:
    status: str
    """``scored``, ``pending`` or ``agent_failure``."""
    attribute_score: float | None
    coverage: float | None
    matched_state_score: float | None = None
    n_pred: int = 0
    n_gold: int = 0
    n_matched: int = 0
    alignment: Alignment | None = None
    pairs: list[StatePair] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {"status": self.status, "attribute_score": self.attribute_score,
                                  "coverage": self.coverage,
                                  "matched_state_score": self.matched_state_score,
                                  "n_pred": self.n_pred, "n_gold": self.n_gold, "n_matched": self.n_matched}
        if self.pairs:
            out["requirements"] = [{"prediction_ref": p.pred_ref, "gold_ref": p.gold_id,
                                    "attribute_score": p.attribute_score, "state_score": p.state_score,
                                    "dimensions": p.dimension_scores} for p in self.pairs]
        return out


def coverage(n_matched: int, n_gold: int) -> float | None:
    """Requirement Coverage_q = |M⁻_q| / |R⁻_q| (eq. 3).

    Matched (SAME_ATOM, ordered maximum-cardinality matching) over all gold pre-request requirements;
    0 with no match and for agent failures; N/A only without gold requirements. Averaged over every
    target of the condition (E.2, Table 21b)."""
    return n_matched / n_gold if n_gold else None


def target_attribute_score(pairs: list[StatePair]) -> float | None:
    """Attribute Reconstruction Score of one target (eq. 3, C.1, C.2).

    Mean of a_r = 2·Σ v_ij / (|F̂_r| + |F_r|) over matched requirements that have applicable attribute
    fields; unmatched extra requirements do not enter it. N/A with no requirement match or when no
    matched requirement has applicable fields (legitimate N/A, excluded from the mean over targets,
    Table 22 counts the rest); agent failures score 0 and stay in the mean."""
    vals = [p.attribute_score for p in pairs if p.attribute_score is not None]
    return sum(vals) / len(vals) if vals else None


def score_rq2(gold: Rq2Gold, response: AgentResponse | None, session: JudgeSession,
              file: str | None = None) -> Rq2Result:
    """RQ2 for one target; `response` None = agent failure (attribute score 0, coverage 0)."""
    n_gold = len(gold.gold_requirement_ids)
    if response is None:
        return Rq2Result("agent_failure", 0.0, 0.0 if n_gold else None, n_gold=n_gold)
    preds = [AlignSide(r.requirement_ref, r.requirement_summary, tuple(r.evidence_message_ids),
                       r.pre_task_state.model_dump()) for r in response.requirements]
    golds = [AlignSide(rid, gold.requirement_summaries.get(rid, rid),
                       tuple(gold.alignment_evidence_message_ids.get(rid, [])), gold.states.get(rid))
             for rid in gold.gold_requirement_ids]
    result = Rq2Result("scored", None, None, n_pred=len(preds), n_gold=n_gold)
    try:
        result.alignment = align(REQUIREMENT_ALIGNMENT, preds, golds, session)
        result.n_matched = len(result.alignment.matches)
        result.coverage = coverage(result.n_matched, n_gold)
        for i, j in sorted(result.alignment.matches.items()):
            rid = gold.gold_requirement_ids[j]
            result.pairs.append(make_pair(preds[i].ref, rid, golds[j].summary, preds[i].state or {},
                                          gold.states[rid], gold.field_scoring_specs.get(rid, {}), file))
        score_pairs(result.pairs, session)
    except JudgePending as exc:
        return Rq2Result("pending", None, result.coverage, n_pred=len(preds), n_gold=n_gold,
                         n_matched=result.n_matched, alignment=result.alignment, pending=[str(exc)])
    result.attribute_score = target_attribute_score(result.pairs)
    states = [p.state_score for p in result.pairs if p.state_score is not None]
    result.matched_state_score = sum(states) / len(states) if states else None
    return result
