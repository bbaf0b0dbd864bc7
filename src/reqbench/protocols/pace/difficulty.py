"""Task difficulty by requirement composition (paper §4.1 "Task difficulty", Figure 4, appendix
"Requirement Composition and Task Size").

A case's difficulty descriptor is its share of derived or implicit Code Points; cases fall in three
groups (<25%, 25%-50% inclusive, >50%), each group's mean case score is reported, and the case-level
association between share and score is Spearman's rho.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from reqbench.core.stats.rank import spearman
from reqbench.protocols.pace.case import Case
from reqbench.protocols.pace.models import Provenance

GROUPS = ("<25%", "25-50%", ">50%")


def derived_share(case: Case) -> float:
    """Share of the case's Code Points (by count) whose provenance is derived or implicit."""
    pts = case.points
    return sum(1 for p in pts if p.provenance is not Provenance.EXPLICIT) / len(pts) if pts else 0.0


def group_of(share: float) -> str:
    """Paper: "<25%, 25%-50% inclusive, and >50%"."""
    return GROUPS[0] if share < 0.25 else GROUPS[1] if share <= 0.5 else GROUPS[2]


def difficulty(cases: Sequence[Case], scores: Mapping[str, float | None]) -> dict[str, Any]:
    """Groups (cases, mean score) and Spearman's rho between derived/implicit share and case score.

    The paper groups cases by "the share of derived or implicit Code Points: <25%, 25%-50% inclusive,
    and >50%" and reports the group means (75.0, 61.6, 56.8) and "the exploratory case-level
    association rho = -.410". `scores` maps case id to its score (for several systems, pass their mean
    per case, as the paper's eight-model mean); unscored cases are left out of both.
    """
    shares = {c.id: derived_share(c) for c in cases}
    scored = [(cid, shares[cid], float(s)) for cid, s in scores.items() if s is not None and cid in shares]
    groups: dict[str, dict[str, Any]] = {}
    for g in GROUPS:
        vals = [s for _, sh, s in scored if group_of(sh) == g]
        groups[g] = {"cases": len(vals), "mean_score": statistics.fmean(vals) if vals else None}
    return {
        "share": shares,
        "groups": groups,
        "spearman": spearman([sh for _, sh, _ in scored], [s for _, _, s in scored]),
    }
