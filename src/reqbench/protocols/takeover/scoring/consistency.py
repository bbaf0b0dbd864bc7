"""Cross-RQ consistency (ReqMemBench C.3, E.2): RQ1 and RQ2 align the same predicted requirements
with the same gold requirements in separate judge calls. A pair labelled differently — above all one
that is a SAME_ATOM edge in one RQ and not in the other — is flagged for human review; after review,
the adjudicated labels are appended to the replay file and the target is re-scored."""

from __future__ import annotations

from dataclasses import dataclass

from reqbench.protocols.takeover.scoring.alignment import Alignment


@dataclass(frozen=True)
class ConsistencyFlag:
    prediction_ref: str
    gold_ref: str
    rq1_relation: str
    rq2_relation: str

    @property
    def eligibility_differs(self) -> bool:
        """SAME_ATOM (a matching edge) in exactly one of the two RQs."""
        return (self.rq1_relation == "SAME_ATOM") != (self.rq2_relation == "SAME_ATOM")

    def as_json(self) -> dict[str, object]:
        return {"prediction_ref": self.prediction_ref, "gold_ref": self.gold_ref,
                "rq1_relation": self.rq1_relation, "rq2_relation": self.rq2_relation,
                "eligibility_differs": self.eligibility_differs}


@dataclass(frozen=True)
class ConsistencyReport:
    flags: list[ConsistencyFlag]
    rq1_matches: int
    rq2_matches: int

    @property
    def consistent(self) -> bool:
        return not self.flags and self.rq1_matches == self.rq2_matches

    def as_json(self) -> dict[str, object]:
        return {"consistent": self.consistent, "rq1_matches": self.rq1_matches,
                "rq2_matches": self.rq2_matches, "flags": [f.as_json() for f in self.flags]}


def check_consistency(rq1: Alignment, rq2: Alignment) -> ConsistencyReport:
    """Flag every (prediction ref, gold ref) pair present in both alignments with different labels;
    also report both match counts (a difference is itself a finding for the target)."""
    a = rq1.relation_by_ref()
    b = rq2.relation_by_ref()
    flags = [ConsistencyFlag(p, g, a[(p, g)], b[(p, g)]) for (p, g) in a
             if (p, g) in b and a[(p, g)] != b[(p, g)]]
    return ConsistencyReport(flags, len(rq1.matches), len(rq2.matches))
