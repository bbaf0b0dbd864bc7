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
seed 20260729 (`core.stats.intervals.cluster_bootstrap`); ``task`` resamples units instead. Fewer than
2 families: no interval, with the reason (`_estimate`). Estimates are fractions in [0, 1].
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from reqbench.core.stats.intervals import DEFAULT_BOOT, DEFAULT_SEED, cluster_bootstrap, cluster_bootstrap_mean
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
    reason: str = ""
    """Why the row ended so (`core.execute.outcomes.Reason`); feeds the attrition table."""

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


BOOTSTRAPS = ("family", "task")
DEFAULT_BOOTSTRAP = "family"
NO_INTERVAL = "no interval: fewer than 2 families (a bootstrap over one family has zero width)"
TASK_METHOD = (f"95% percentile task-level bootstrap over units (rows, blocks or pairs) ignoring family "
               f"clustering ({DEFAULT_BOOT} resamples, seed {DEFAULT_SEED}); task-macro estimate")


def ci_method(bootstrap: str = DEFAULT_BOOTSTRAP) -> str:
    """The estimator of every interval, as `specpath stats` and the report print it."""
    return CI_METHOD if bootstrap == "family" else TASK_METHOD


def _estimate(per_family: dict[str, list[float]], bootstrap: str = DEFAULT_BOOTSTRAP
              ) -> tuple[float, list[float | None], str | None]:
    """Task-macro mean over families of their units' mean, its interval, and why there is none.

    SpecPath treats the task/PR family as the inferential unit, so the default interval resamples
    families (``family``); ``task`` resamples the units (scored rows, eligible blocks or control pairs)
    independently, the estimate still task-macro. The paper does not say what to do with a single family:
    any bootstrap over fewer than 2 families (clusters) is degenerate, so no interval is reported and the
    reason is returned instead of a zero-width interval.
    """
    if bootstrap not in BOOTSTRAPS:
        raise ValueError(f"bootstrap must be one of {BOOTSTRAPS}, not {bootstrap!r}")
    fams = {f: v for f, v in per_family.items() if v}
    rates = [sum(v) / len(v) for v in fams.values()]
    estimate = sum(rates) / len(rates) if rates else math.nan
    if len(fams) < 2:
        return estimate, [None, None], NO_INTERVAL
    if bootstrap == "family":
        iv = cluster_bootstrap_mean(rates)
        return iv.estimate, [_num(iv.lo), _num(iv.hi)], None
    units = [(f, x) for f, v in fams.items() for x in v]

    def stat(sample: Sequence[tuple[str, float]]) -> float:
        by: dict[str, list[float]] = defaultdict(list)
        for f, x in sample:
            by[f].append(x)
        return sum(sum(v) / len(v) for v in by.values()) / len(by)

    iv2 = cluster_bootstrap(units, stat)
    return estimate, [_num(iv2.lo), _num(iv2.hi)], None


def fcr(rows: Iterable[ResultRow], condition: str, bootstrap: str = DEFAULT_BOOTSTRAP) -> dict[str, Any]:
    """Task-macro FCR of one condition: mean over families (>= 1 scored row) of successes / scored."""
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        if r.condition == condition and r.scored:
            per[r.family][0] += r.success
            per[r.family][1] += 1
    est, ci, why = _estimate({f: [1.0] * s + [0.0] * (n - s) for f, (s, n) in per.items()}, bootstrap)
    return {"estimate": _num(est), "ci": ci, **({"no_interval": why} if why else {}),
            "support": sum(n for _, n in per.values()),
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


def cpv(all_blocks: Sequence[Block], variants: Sequence[str] = REVISION_CONDITIONS,
        bootstrap: str = DEFAULT_BOOTSTRAP) -> dict[str, Any]:
    """Task-macro CPV: mean over families (>= 1 eligible block) of positive / eligible blocks."""
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for b in all_blocks:
        if b.eligible:
            per[b.family][0] += b.positive(variants)
            per[b.family][1] += 1
    est, ci, why = _estimate({f: [1.0] * p + [0.0] * (e - p) for f, (p, e) in per.items()}, bootstrap)
    return {"estimate": _num(est), "ci": ci, **({"no_interval": why} if why else {}),
            "positive": sum(p for p, _ in per.values()),
            "eligible": sum(e for _, e in per.values()),
            "families": {f: {"positive": p, "eligible": e} for f, (p, e) in sorted(per.items())}}


def control_delta(rows: Iterable[ResultRow], control: str, baseline: str = "direct",
                  bootstrap: str = DEFAULT_BOOTSTRAP) -> dict[str, Any]:
    """Task-macro paired FCR difference (control − direct) over (family, config, repeat) pairs."""
    by_key: dict[tuple[str, str, int], dict[str, bool]] = defaultdict(dict)
    for r in rows:
        if r.scored and r.condition in (control, baseline):
            by_key[r.block][r.condition] = r.success
    per: dict[str, list[float]] = defaultdict(list)
    for (family, _, _), pair in by_key.items():
        if control in pair and baseline in pair:
            per[family].append(float(int(pair[control]) - int(pair[baseline])))
    est, ci, why = _estimate(dict(per), bootstrap)
    return {"delta": _num(est), "ci": ci, **({"no_interval": why} if why else {}),
            "pairs": sum(len(v) for v in per.values())}


def _core_summary(rows: list[ResultRow], bootstrap: str = DEFAULT_BOOTSTRAP) -> dict[str, Any]:
    bl = blocks(rows)
    conds = [c for c in (*CORE_CONDITIONS, *CONTROL_CONDITIONS) if any(r.condition == c for r in rows)]
    extra = sorted({r.condition for r in rows} - set(conds))
    return {
        "fcr": {c: fcr(rows, c, bootstrap) for c in [*conds, *extra]},
        "blocks": {"possible": len(bl), "complete": sum(b.complete for b in bl),
                   "eligible": sum(b.eligible for b in bl)},
        "cpv": {"any": cpv(bl, bootstrap=bootstrap),
                **{v: cpv(bl, (v,), bootstrap) for v in REVISION_CONDITIONS}},
    }


def _group(rows: list[ResultRow], key: Callable[[ResultRow], str], bootstrap: str) -> dict[str, Any]:
    groups: dict[str, list[ResultRow]] = defaultdict(list)
    for r in rows:
        groups[key(r)].append(r)
    return {g: _core_summary(rs, bootstrap) for g, rs in sorted(groups.items())}


def attrition(rows: list[ResultRow]) -> dict[str, dict[str, int]]:
    """Attrition by reason per configuration and in total (SpecPath Table 3): rows, successes, agent
    failures, then invalid (and pending) rows by reason."""
    counts: dict[str, dict[str, int]] = {}
    for r in rows:
        column = r.outcome if r.scored else f"invalid: {r.reason or 'unspecified'}"
        for key in (r.config, "all"):
            cell = counts.setdefault(key, {})
            for c in ("rows", column):
                cell[c] = cell.get(c, 0) + 1
    extra = sorted({c for cell in counts.values() for c in cell} - {"rows", "success", "failure"})
    order = [k for k in counts if k != "all"] + (["all"] if counts else [])
    return {k: {c: counts[k].get(c, 0) for c in ("rows", "success", "failure", *extra)} for k in order}


def summarize_results(rows: list[ResultRow], bootstrap: str = DEFAULT_BOOTSTRAP) -> dict[str, Any]:
    """The full statistics dict (`specpath stats --json`): FCR, blocks, CPV, controls and breakdowns.
    `bootstrap` is ``family`` (cluster bootstrap over families, the default) or ``task``."""
    out = {"method": ci_method(bootstrap), "bootstrap": bootstrap,
           "rows": {"total": len(rows), "scored": sum(r.scored for r in rows),
                    "invalid": sum(not r.scored for r in rows)},
           **_core_summary(rows, bootstrap),
           "controls": {c: control_delta(rows, c, bootstrap=bootstrap) for c in CONTROL_CONDITIONS
                        if any(r.condition == c for r in rows)}}
    out["attrition"] = attrition(rows)
    out["by_family"] = _group(rows, lambda r: r.family, bootstrap)
    out["by_scaffold"] = _group(rows, lambda r: r.scaffold or r.config.partition(":")[0], bootstrap)
    out["by_model"] = _group(rows, lambda r: r.model or (r.config.partition(":")[2] or r.config), bootstrap)
    return out
