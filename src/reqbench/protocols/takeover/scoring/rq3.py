"""RQ3 — request update (ACT) or clarification (CLARIFY) (ReqMemBench 3.2, C.1, eq. 2 and 4).

A wrong decision scores 0 on the gold branch's content metrics and the other branch is N/A; an
agent failure (invalid or missing response) is a wrong decision (C.2)."""

from __future__ import annotations

from dataclasses import dataclass, field

from reqbench.core.judges.base import JudgePending
from reqbench.protocols.takeover.judging import (
    AlignSide,
    BlockerCandidate,
    JudgeSession,
    clarification_request,
)
from reqbench.protocols.takeover.judging.contracts import REQUIREMENT_ALIGNMENT
from reqbench.protocols.takeover.judging.requests import label_of
from reqbench.protocols.takeover.phase_a.response import AgentResponse
from reqbench.protocols.takeover.scoring.alignment import Alignment, align
from reqbench.protocols.takeover.scoring.instances import FinalGold, Rq3Gold
from reqbench.protocols.takeover.scoring.matching import ordered_matching
from reqbench.protocols.takeover.scoring.states import StatePair, make_pair, score_pairs

EXACT_STAGES = ("action", "set", "state", "removal")
"""Order of the exact post-state conditions; the first unmet one classifies a failure (Table 28)."""


@dataclass
class Rq3Result:
    status: str
    gold_decision: str
    decision: str | None
    post_state_score: float | None = None
    exact: bool | None = None
    exact_failure: str | None = None
    matched_set: bool | None = None
    blocking_issue_f1: float | None = None
    question_validity: float | None = None
    strict_clarification: bool | None = None
    n_pred: int = 0
    n_gold: int = 0
    n_matched: int = 0
    alignment: Alignment | None = None
    pairs: list[StatePair] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)

    @property
    def decision_correct(self) -> bool:
        """Decision Accuracy unit: the predicted decision equals the gold one (failure = wrong)."""
        return self.decision == self.gold_decision

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "status": self.status, "gold_decision": self.gold_decision, "decision": self.decision,
            "decision_correct": self.decision_correct, "post_state_score": self.post_state_score,
            "exact": self.exact, "exact_failure": self.exact_failure, "matched_set": self.matched_set,
            "blocking_issue_f1": self.blocking_issue_f1, "question_validity": self.question_validity,
            "strict_clarification": self.strict_clarification,
            "n_pred": self.n_pred, "n_gold": self.n_gold, "n_matched": self.n_matched,
        }
        if self.pairs:
            out["requirements"] = [{"prediction_ref": p.pred_ref, "gold_ref": p.gold_id,
                                    "state_score": p.state_score, "exact": p.exact,
                                    "dimensions": p.dimension_scores} for p in self.pairs]
        return out


def post_state_score(pairs: list[StatePair], n_pred: int, n_gold: int) -> float:
    """Post-State Score of one Gold-ACT target (eq. 2, C.1).

    PostState_q = 2·Σ_{r ∈ M⁺_q} s_r / (|R̂_q| + |R_q|), s_r the mean over applicable state dimensions
    (eq. 4); a matched state with no applicable dimension adds 0. Partial credit for partially
    correct states; missing and extra requirements enlarge the denominator. 0 for a CLARIFY decision
    or an agent failure; N/A on Gold-CLARIFY targets. Averaged over all Gold-ACT targets (312 in the
    paper, Table 24) and, conditionally, over Gold-ACT targets predicted ACT (Table 25)."""
    total = sum(p.state_score or 0.0 for p in pairs)
    return 2 * total / (n_pred + n_gold) if n_pred + n_gold else 0.0


def removed_attribute_keys(gold: Rq3Gold, rid: str) -> list[str]:
    """Gold removal list: ``delta.removed_paths`` entries under ``attributes.``, prefix removed."""
    tr = gold.affected_requirement_transitions.get(rid)
    paths = tr.delta.removed_paths if tr else []
    return sorted(p[len("attributes."):] for p in paths if p.startswith("attributes."))


def exact_failure(result: Rq3Result, removals_ok: bool) -> str | None:
    """Exact Post-State Accuracy (3.2, C.1): None when exact, else the first unmet condition.

    Exact requires, in order: an ACT decision (``action``); no missing or extra requirement, i.e.
    #predicted = #gold = #matched (``set``); every matched state exact — all applicable fields correct
    and no extra field (``state``); each predicted ``removed_attribute_keys``, sorted, equal to the
    gold removal list (``removal``). Change type is kept but not compared. Over Gold-ACT targets."""
    if result.decision != "ACT":
        return "action"
    if not (result.n_pred == result.n_gold == result.n_matched):
        return "set"
    if not all(p.exact for p in result.pairs):
        return "state"
    return None if removals_ok else "removal"


def _sides_for_gold(gold: Rq3Gold, rids: list[str]) -> list[AlignSide]:
    summaries = gold.affected_requirement_alignment_gold
    return [AlignSide(rid, summaries[rid].canonical_summary if rid in summaries else rid) for rid in rids]


def _score_act(result: Rq3Result, gold: Rq3Gold, final: FinalGold, response: AgentResponse,
               session: JudgeSession, file: str | None) -> None:
    posts = response.post_task_states or []
    gold_states = final.post_task_states or {}
    rids = list(gold_states)
    preds = [AlignSide(p.requirement_ref, p.requirement_summary, (), p.state.model_dump()) for p in posts]
    golds = [AlignSide(s.ref, s.summary, (), gold_states[s.ref]) for s in _sides_for_gold(gold, rids)]
    result.n_pred, result.n_gold = len(preds), len(golds)
    result.alignment = align(REQUIREMENT_ALIGNMENT, preds, golds, session)
    result.n_matched = len(result.alignment.matches)
    removals_ok = True
    for i, j in sorted(result.alignment.matches.items()):
        rid = rids[j]
        result.pairs.append(make_pair(preds[i].ref, rid, golds[j].summary, preds[i].state or {},
                                      gold_states[rid], gold.post_state_scoring_specs.get(rid, {}), file))
        removals_ok &= sorted(posts[i].removed_attribute_keys) == removed_attribute_keys(gold, rid)
    score_pairs(result.pairs, session)
    result.post_state_score = post_state_score(result.pairs, result.n_pred, result.n_gold)
    result.matched_set = result.n_pred == result.n_gold == result.n_matched > 0
    result.exact_failure = exact_failure(result, removals_ok)
    result.exact = result.exact_failure is None


def clarification_scores(n_pred: int, n_gold: int, n_matched: int, valid_matched: int,
                         decision: str | None) -> tuple[float, float, bool]:
    """Blocking-Issue F1, Question Validity and strict clarification of one Gold-CLARIFY target (C.1).

    Blockers match one to one (prediction order, gold indices) on edges that need the matched
    requirement, the same dimension, the same field when gold names one, and an EQUIVALENT missing
    information label. Blocking-Issue F1 = 2·m / (#predicted clarifications + #gold blockers).
    Question Validity = matched blockers whose question is VALID / m, 0 without matches. Strict
    clarification: a CLARIFY decision, every gold blocker matched (m = #gold) and all their questions
    valid (extra predicted blockers lower F1 but do not fail it). All 0 for an ACT decision or an
    agent failure; N/A on Gold-ACT targets. Averaged over Gold-CLARIFY targets (37, Table 24)."""
    if decision != "CLARIFY":
        return 0.0, 0.0, False
    f1 = 2 * n_matched / (n_pred + n_gold) if n_pred + n_gold else 0.0
    qv = valid_matched / n_matched if n_matched else 0.0
    strict = n_gold > 0 and n_matched == n_gold and valid_matched == n_matched
    return f1, qv, strict


def _score_clarify(result: Rq3Result, gold: Rq3Gold, final: FinalGold, response: AgentResponse,
                   session: JudgeSession, task_text: str) -> None:
    clars = response.clarifications
    first: dict[str, str] = {}
    for c in clars:
        first.setdefault(c.requirement_ref, c.requirement_summary)
    preds = [AlignSide(ref, summary) for ref, summary in first.items()]
    golds = _sides_for_gold(gold, list(gold.affected_requirement_alignment_gold))
    result.alignment = align(REQUIREMENT_ALIGNMENT, preds, golds, session)
    matched_gold = {preds[i].ref: golds[j].ref for i, j in result.alignment.matches.items()}
    blockers = final.blocking_clarifications
    cands: list[tuple[int, int, BlockerCandidate]] = []
    for i, c in enumerate(clars):
        for j, b in enumerate(blockers):
            if (matched_gold.get(c.requirement_ref) == b.requirement_id and c.dimension == b.dimension
                    and (b.field is None or c.field == b.field)):
                cands.append((i, j, BlockerCandidate(
                    f"c{i}.b{j}", c.requirement_summary, b.dimension, b.field, c.missing_information,
                    b.missing_information, c.question, tuple(b.acceptable_question_facts))))
    edges: list[tuple[int, int]] = []
    valid_pairs: set[tuple[int, int]] = set()
    if cands:
        request = clarification_request([c for _, _, c in cands], task_text)
        labels = session.ask(request)
        for i, j, cand in cands:
            if label_of(request, labels, cand.candidate_id, "issue_relation") == "EQUIVALENT":
                edges.append((i, j))
            if label_of(request, labels, cand.candidate_id, "question_validity") == "VALID":
                valid_pairs.add((i, j))
    matches = ordered_matching(len(clars), len(blockers), edges)
    valid = sum(1 for pair in matches.items() if pair in valid_pairs)
    result.n_pred, result.n_gold, result.n_matched = len(clars), len(blockers), len(matches)
    result.blocking_issue_f1, result.question_validity, result.strict_clarification = \
        clarification_scores(len(clars), len(blockers), len(matches), valid, "CLARIFY")


def score_rq3(gold: Rq3Gold, condition: str, response: AgentResponse | None, session: JudgeSession,
              task_text: str = "", file: str | None = None) -> Rq3Result:
    """RQ3 for one target under `condition`; `response` None = agent failure."""
    final = gold.final_gold_by_condition[condition]
    result = Rq3Result("scored" if response is not None else "agent_failure", final.decision,
                       response.decision.value if response is not None else None)
    act = final.decision == "ACT"
    if response is None or not result.decision_correct:
        if act:
            result.post_state_score, result.exact, result.exact_failure = 0.0, False, "action"
            result.n_gold = len(final.post_task_states or {})
        else:
            result.blocking_issue_f1, result.question_validity, result.strict_clarification = \
                clarification_scores(0, len(final.blocking_clarifications), 0, 0, result.decision)
            result.n_gold = len(final.blocking_clarifications)
        return result
    try:
        if act:
            _score_act(result, gold, final, response, session, file)
        else:
            _score_clarify(result, gold, final, response, session, task_text)
    except JudgePending as exc:
        return Rq3Result("pending", final.decision, result.decision, pending=[str(exc)])
    return result
