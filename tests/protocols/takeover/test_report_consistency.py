"""Cross-RQ consistency flags (C.3, E.2 Table 27) appear in the run report, not only in `takeover score`."""

from __future__ import annotations

from reqbench.protocols.takeover.run.consistency_tables import consistency_tables
from reqbench.protocols.takeover.scoring.consistency import ConsistencyFlag, ConsistencyReport
from reqbench.protocols.takeover.scoring.target import TargetScore


def _score(target: str, report: ConsistencyReport | None) -> TargetScore:
    return TargetScore(target, "C1", "scored", rq3=None, consistency=report)  # type: ignore[arg-type]


def test_the_paper_case_is_flagged_with_both_labels_and_match_counts() -> None:
    # E.2: the same prediction-gold pair is MERGED_ATOMS in RQ1 (recall 0) and SAME_ATOM in RQ2
    flagged = ConsistencyReport([ConsistencyFlag("reward_pay", "Prize Claim Flow out", "MERGED_ATOMS",
                                                 "SAME_ATOM")], rq1_matches=0, rq2_matches=1)
    clean = ConsistencyReport([], rq1_matches=2, rq2_matches=2)
    tables = consistency_tables({"diag-C1": [_score("T007", flagged), _score("T008", clean)],
                                 "diag-C2": [_score("T007", None)]})
    assert tables["rq_consistency"] == {"diag-C1": {"targets_checked": 2, "targets_flagged": 1, "flagged_pairs": 1,
                                                    "eligibility_differs": 1, "match_count_differs": 1}}
    assert tables["rq_consistency_flags"] == {"diag-C1 T007 reward_pay ~ Prize Claim Flow out": {
        "rq1_relation": "MERGED_ATOMS", "rq2_relation": "SAME_ATOM", "eligibility_differs": True,
        "rq1_matches": 0, "rq2_matches": 1}}


def test_no_checked_target_gives_no_table() -> None:
    assert consistency_tables({"diag-C2": [_score("T1", None)]}) == {}
