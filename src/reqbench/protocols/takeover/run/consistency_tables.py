"""The cross-RQ consistency tables of a takeover report (ReqMemBench C.3, E.2 Table 27).

For every target scored under C1, RQ1 and RQ2 align the same predictions with the same gold
requirements in separate judge calls; `scoring.consistency.check_consistency` flags each pair labelled
differently and each target whose match counts differ. The report shows them (they are findings for human
review, not corrections: after adjudication the labels are appended to a replay file and the run is
re-graded, `reqbench regrade --judge replay:FILE`):

* ``rq_consistency`` — per condition: targets checked, targets flagged, flagged pairs, pairs whose matching
  eligibility differs (SAME_ATOM in exactly one RQ), targets whose match counts differ;
* ``rq_consistency_flags`` — one row per flagged pair (condition, target, prediction ref → gold ref) with
  both labels and both match counts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reqbench.protocols.takeover.scoring.target import TargetScore


def consistency_tables(scores: Mapping[str, Sequence[TargetScore]]) -> dict[str, dict[str, dict[str, Any]]]:
    """``{"rq_consistency": {...}, "rq_consistency_flags": {...}}`` for the conditions that have any checked
    target (tables left out when empty)."""
    summary: dict[str, dict[str, Any]] = {}
    flags: dict[str, dict[str, Any]] = {}
    for cond, rows in scores.items():
        checked = [s for s in rows if s.consistency is not None]
        if not checked:
            continue
        summary[cond] = {
            "targets_checked": len(checked),
            "targets_flagged": sum(not s.consistency.consistent for s in checked if s.consistency),
            "flagged_pairs": sum(len(s.consistency.flags) for s in checked if s.consistency),
            "eligibility_differs": sum(f.eligibility_differs for s in checked if s.consistency
                                       for f in s.consistency.flags),
            "match_count_differs": sum(s.consistency.rq1_matches != s.consistency.rq2_matches
                                       for s in checked if s.consistency),
        }
        for s in checked:
            assert s.consistency is not None
            for f in s.consistency.flags:
                flags[f"{cond} {s.target_id} {f.prediction_ref} ~ {f.gold_ref}"] = {
                    "rq1_relation": f.rq1_relation, "rq2_relation": f.rq2_relation,
                    "eligibility_differs": f.eligibility_differs,
                    "rq1_matches": s.consistency.rq1_matches, "rq2_matches": s.consistency.rq2_matches}
    out: dict[str, dict[str, dict[str, Any]]] = {}
    if summary:
        out["rq_consistency"] = summary
    if flags:
        out["rq_consistency_flags"] = flags
    return out
