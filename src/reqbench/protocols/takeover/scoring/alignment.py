"""Requirement alignment (ReqMemBench C.1): the judge labels every prediction-gold pair; only
``SAME_ATOM`` makes an edge; a one-to-one matching follows (weighted for RQ1, ordered for RQ2/RQ3).
Also the P/R/F1 record shared by RQ1's requirement and evidence metrics."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from reqbench.protocols.takeover.judging import AlignSide, Contract, JudgeSession, alignment_request
from reqbench.protocols.takeover.judging.contracts import RQ1_ALIGNMENT
from reqbench.protocols.takeover.scoring.matching import ordered_matching, rq1_edge_weight, rq1_matching


@dataclass
class Alignment:
    """Labels of every (prediction index, gold index) pair and the resulting matching."""

    predictions: list[AlignSide]
    golds: list[AlignSide]
    relations: dict[tuple[int, int], str] = field(default_factory=dict)
    matches: dict[int, int] = field(default_factory=dict)

    def relation_by_ref(self) -> dict[tuple[str, str], str]:
        return {(self.predictions[i].ref, self.golds[j].ref): lab for (i, j), lab in self.relations.items()}

    def matched_refs(self) -> list[tuple[str, str]]:
        return [(self.predictions[i].ref, self.golds[j].ref) for i, j in sorted(self.matches.items())]


def align(contract: Contract, predictions: Sequence[AlignSide], golds: Sequence[AlignSide],
          session: JudgeSession, gold_weight_ids: Sequence[Sequence[object]] | None = None) -> Alignment:
    """Ask `contract` for every pair and match on SAME_ATOM edges. RQ1 (`RQ1_ALIGNMENT`) uses the
    weighted matching with `gold_weight_ids[j]` = union of gold j's acceptable message ids."""
    result = Alignment(list(predictions), list(golds))
    if not predictions or not golds:
        return result
    request = alignment_request(contract, predictions, golds, messages=session.messages)
    labels = session.ask(request)
    for i in range(len(predictions)):
        for j in range(len(golds)):
            result.relations[(i, j)] = labels[f"p{i}.g{j}"]
    edges = [(i, j) for (i, j), lab in result.relations.items() if lab == "SAME_ATOM"]
    if contract is RQ1_ALIGNMENT:
        ids = gold_weight_ids or [()] * len(golds)
        weighted = [(i, j, rq1_edge_weight(predictions[i].summary, golds[j].summary,
                                           predictions[i].evidence_message_ids, ids[j])) for i, j in edges]
        result.matches = rq1_matching(len(predictions), len(golds), weighted)
    else:
        result.matches = ordered_matching(len(predictions), len(golds), edges)
    return result


@dataclass(frozen=True)
class PRF:
    """Precision, recall and F1 of one target (fractions in [0, 1]; recall None without gold units)."""

    precision: float
    recall: float | None
    f1: float
    tp: int
    n_pred: int
    n_gold: int

    @staticmethod
    def from_counts(tp: int, n_pred: int, n_gold: int) -> PRF:
        """P = tp/n_pred (0 without predictions), R = tp/n_gold, F1 = 2tp/(n_pred+n_gold)."""
        precision = tp / n_pred if n_pred else 0.0
        recall = tp / n_gold if n_gold else None
        f1 = 2 * tp / (n_pred + n_gold) if n_pred + n_gold else 0.0
        return PRF(precision, recall, f1, tp, n_pred, n_gold)

    def as_json(self) -> dict[str, float | None]:
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1}
