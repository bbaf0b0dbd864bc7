"""SpecPath statistics: final-contract realisation (FCR), matched blocks, CPV and control deltas.

Definitions (SpecPath "Run processing", RQ1, RQ2, RQ3) — each lives in exactly one function below:

* a row is *scored* when its outcome is success or failure; invalid rows are attrition, never scored;
* FCR(c) = mean over families with >= 1 scored row in c of (successes / scored rows) — task-macro;
* a *block* is (family, config, repeat); *possible* blocks are those with any row in the results;
  *complete* when all five core histories are scored; *eligible* when complete and direct succeeded;
  *positive* (any-CPV) when eligible and at least one of duplicate/split/override/cancellation failed;
  per-variant CPV uses that variant alone;
* CPV = mean over families with >= 1 eligible block of (positive / eligible) — task-macro;
* control delta (paraphrase-direct, length-matched-no-revision) = task-macro mean over *pairs*
  (family, config, repeat) where both the control and direct are scored of (control − direct) success.

Intervals: 95 % percentile cluster bootstrap over families (the inferential unit), 2,000 resamples,
seed 20260729 (`core.stats.intervals.cluster_bootstrap`). Estimates are fractions in [0, 1].
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from reqbench.core.stats.intervals import DEFAULT_BOOT, DEFAULT_SEED, cluster_bootstrap_mean
from reqbench.protocols.specpath.models import CONTROL_CONDITIONS, CORE_CONDITIONS, REVISION_CONDITIONS

CI_METHOD = (f"95% percentile cluster bootstrap over families ({DEFAULT_BOOT} resamples, "
             f"seed {DEFAULT_SEED}); task-macro: each family weighs equally")


@dataclass(frozen=True)
class ResultRow:
    family: str
    config: str
    condition: str
    repeat: int
    outcome: str
    signature: tuple[int, ...] | None = None
    scaffold: str = ""
    model: str = ""

    @property
    def scored(self) -> bool:
        return self.outcome in ("success", "failure")

    @property
    def success(self) -> bool:
        return self.outcome == "success"

    @property
    def block(self) -> tuple[str, str, int]:
        return (self.family, self.config, self.repeat)


def _num(x: float) -> float | None:
    return None if math.isnan(x) else round(x, 6)


def _estimate(per_family: dict[str, tuple[float, float]]) -> tuple[float, list[float | None]]:
    """Task-macro mean of numerator/denominator over families with a nonzero denominator, and its CI."""
    rates = [n / d for n, d in per_family.values() if d > 0]
    iv = cluster_bootstrap_mean(rates)
    return iv.estimate, [_num(iv.lo), _num(iv.hi)]


def fcr(rows: Iterable[ResultRow], condition: str) -> dict[str, Any]:
    """Task-macro FCR of one condition: mean over families (>= 1 scored row) of successes / scored."""
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        if r.condition == condition and r.scored:
            per[r.family][0] += r.success
            per[r.family][1] += 1
    est, ci = _estimate({f: (s, n) for f, (s, n) in per.items()})
    return {"estimate": _num(est), "ci": ci, "support": sum(n for _, n in per.values()),
            "families": {f: {"successes": s, "scored": n} for f, (s, n) in sorted(per.items())}}


@dataclass
class Block:
    family: str
    config: str
    repeat: int
    outcomes: dict[str, bool]
    """Core condition -> success, for scored rows only."""

    @property
    def complete(self) -> bool:
        return all(c in self.outcomes for c in CORE_CONDITIONS)

    @property
    def eligible(self) -> bool:
        return self.complete and self.outcomes["direct"]

    def positive(self, variants: Sequence[str] = REVISION_CONDITIONS) -> bool:
        """CPV-positive: eligible and at least one of `variants` failed."""
        return self.eligible and any(not self.outcomes[v] for v in variants)


def blocks(rows: Iterable[ResultRow]) -> list[Block]:
    """Every possible block (family, config, repeat) seen in the results, with its scored core outcomes."""
    out: dict[tuple[str, str, int], Block] = {}
    for r in rows:
        b = out.setdefault(r.block, Block(r.family, r.config, r.repeat, {}))
        if r.scored and r.condition in CORE_CONDITIONS:
            b.outcomes[r.condition] = r.success
    return [out[k] for k in sorted(out)]


def cpv(all_blocks: Sequence[Block], variants: Sequence[str] = REVISION_CONDITIONS) -> dict[str, Any]:
    """Task-macro CPV: mean over families (>= 1 eligible block) of positive / eligible blocks."""
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for b in all_blocks:
        if b.eligible:
            per[b.family][0] += b.positive(variants)
            per[b.family][1] += 1
    est, ci = _estimate({f: (p, e) for f, (p, e) in per.items()})
    return {"estimate": _num(est), "ci": ci, "positive": sum(p for p, _ in per.values()),
            "eligible": sum(e for _, e in per.values()),
            "families": {f: {"positive": p, "eligible": e} for f, (p, e) in sorted(per.items())}}


def control_delta(rows: Iterable[ResultRow], control: str, baseline: str = "direct") -> dict[str, Any]:
    """Task-macro paired FCR difference (control − direct) over (family, config, repeat) pairs."""
    by_key: dict[tuple[str, str, int], dict[str, bool]] = defaultdict(dict)
    for r in rows:
        if r.scored and r.condition in (control, baseline):
            by_key[r.block][r.condition] = r.success
    per: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for (family, _, _), pair in by_key.items():
        if control in pair and baseline in pair:
            per[family][0] += int(pair[control]) - int(pair[baseline])
            per[family][1] += 1
    est, ci = _estimate({f: (d, n) for f, (d, n) in per.items()})
    return {"delta": _num(est), "ci": ci,
            "pairs": int(sum(n for _, n in per.values()))}


def _core_summary(rows: list[ResultRow]) -> dict[str, Any]:
    bl = blocks(rows)
    conds = [c for c in (*CORE_CONDITIONS, *CONTROL_CONDITIONS) if any(r.condition == c for r in rows)]
    extra = sorted({r.condition for r in rows} - set(conds))
    return {
        "fcr": {c: fcr(rows, c) for c in [*conds, *extra]},
        "blocks": {"possible": len(bl), "complete": sum(b.complete for b in bl),
                   "eligible": sum(b.eligible for b in bl)},
        "cpv": {"any": cpv(bl), **{v: cpv(bl, (v,)) for v in REVISION_CONDITIONS}},
    }


def _group(rows: list[ResultRow], key: Callable[[ResultRow], str]) -> dict[str, Any]:
    groups: dict[str, list[ResultRow]] = defaultdict(list)
    for r in rows:
        groups[key(r)].append(r)
    return {g: _core_summary(rs) for g, rs in sorted(groups.items())}


def summarize_results(rows: list[ResultRow]) -> dict[str, Any]:
    """The full statistics dict (`specpath stats --json`): FCR, blocks, CPV, controls and breakdowns."""
    out = {"method": CI_METHOD,
           "rows": {"total": len(rows), "scored": sum(r.scored for r in rows),
                    "invalid": sum(not r.scored for r in rows)},
           **_core_summary(rows),
           "controls": {c: control_delta(rows, c) for c in CONTROL_CONDITIONS
                        if any(r.condition == c for r in rows)}}
    out["by_family"] = _group(rows, lambda r: r.family)
    out["by_scaffold"] = _group(rows, lambda r: r.scaffold or r.config.partition(":")[0])
    out["by_model"] = _group(rows, lambda r: r.model or (r.config.partition(":")[2] or r.config))
    return out
