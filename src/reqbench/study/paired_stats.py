"""The rules of paired comparisons between two configurations, at the protocol's unit of inference.

The unit is the paper's: SpecPath "The task/PR family, not an execution, history, or verifier probe, is the
inferential unit" (Run processing; "the 100 executions do not create 100 inferential clusters", RQ2);
PACE-Bench gives "equal weight to each case" over the same cases for every configuration (§4.1, appendix
"Evaluation scope"); SWE-Journey pairs per instance and model (B.2); ReqMemBench rates use the fixed set of
targets per configuration and condition (§4.1, C.2). Repeats are nested measurements of a unit: each
configuration is first averaged to one value per unit within one condition (`unit_means`), and only those
unit means are paired and tested. Conditions are never pooled in a test (SpecPath: "compare histories only
within that configuration"; each condition is its own row of every paper table).

* `unit_difference` -- the mean over units of the unit-mean differences, 95% percentile cluster bootstrap
  over units;
* `unit_test` -- the paired test on the units (exact McNemar or the exact sign-flip permutation test), or
  no p at all when too few units exist for any p to reach 0.05;
* `benjamini_hochberg` -- the adjusted p-values over every test of the comparison table.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reqbench.core.stats.intervals import DEFAULT_BOOT, DEFAULT_SEED, cluster_bootstrap_mean
from reqbench.core.stats.permutation import EXACT_MAX, MONTE_CARLO, min_units, sign_flip_p

LEVEL = 0.05
MIN_UNITS = min_units(LEVEL)
"""Fewer paired units than this (6 at 0.05: the smallest two-sided p of 5 units is 2/2^5 = 0.0625) get no p."""
TOO_FEW = "n too small"
PAIRED_BOOTSTRAP = (f"difference (first minus second): mean over {{units}} of the unit-mean differences, each "
                    f"configuration first averaged over its scored rows of the unit (repeats) within the "
                    f"condition; 95% percentile cluster bootstrap over {{units}} ({DEFAULT_BOOT} resamples, seed "
                    f"{DEFAULT_SEED}); fewer than 2 {{units}}: no interval; n = {{units}} both configurations scored")
TEST_RULE = (f"p: exact McNemar on discordant {{units}} when every {{unit}} is one binary outcome per configuration "
             f"(one repeat), else the two-sided sign-flip permutation test of the mean unit-mean difference (exact "
             f"up to {EXACT_MAX} {{units}}, else {MONTE_CARLO} seeded draws); '{TOO_FEW}': fewer than {MIN_UNITS} "
             f"{{units}}, where no test can give p <= {LEVEL} (the smallest two-sided p of n units is 2/2^n)")


@dataclass(frozen=True)
class Difference:
    """A paired difference: estimate, interval (None bounds when there is none) and its units."""

    estimate: float | None
    lo: float | None
    hi: float | None
    units: int


@dataclass(frozen=True)
class UnitTest:
    """A paired test over units: the units each configuration did better on, and p (None: n too small)."""

    test: str
    units: int
    first_higher: int
    second_higher: int
    p: float | None


def unit_means(values: Mapping[str, Sequence[float]]) -> dict[str, float]:
    """One configuration's value per unit within one condition: the mean of its scored rows (repeats)."""
    return {unit: math.fsum(v) / len(v) for unit, v in values.items() if v}


def unit_difference(diffs: Mapping[str, float]) -> Difference:
    """The mean of unit-mean differences (each unit weighs equally) and its cluster-bootstrap interval over
    units; with fewer than 2 units there is no interval, never a zero-width one."""
    values = list(diffs.values())
    if not values:
        return Difference(None, None, None, 0)
    if len(values) < 2:
        return Difference(values[0] + 0.0, None, None, 1)
    iv = cluster_bootstrap_mean(values)
    return Difference(iv.estimate, _finite(iv.lo), _finite(iv.hi), len(values))


def _finite(x: float) -> float | None:
    return None if math.isnan(x) else x + 0.0  # -0.0 (a percentile of zeros) prints as 0


def unit_test(first: Mapping[str, Sequence[float]], second: Mapping[str, Sequence[float]], *,
              binary: bool) -> UnitTest:
    """The paired test of two configurations in one condition, on the units both scored.

    Unit (the protocol's `PairedOutcome.clusters`, declared by its study hook), by paper section: SpecPath
    family (Run processing, RQ2: "The task/PR family ... is the inferential unit"); ReqMemBench target (§4.1,
    C.2: rates over the fixed targets of a configuration and condition); SWE-Journey instance (B.2, paired per
    instance and model); PACE-Bench case (§4.1 and "Evaluation scope": the same cases, each weighing equally).
    `first` and `second` map each unit to a configuration's scored row values in that condition (its
    repeats), averaged to one value per unit (`unit_means`).

    * Exact McNemar when the outcome is binary and every shared unit holds exactly one row on each side
      (ReqMemBench complete delivery or SpecPath final-contract success with one repeat): the discordant
      units are Binomial(b + c, 1/2) under the null (`mcnemar_exact`).
    * Otherwise the exact sign-flip permutation test on the unit-mean differences (`sign_flip_p`; PACE case
      scores, SWE-Journey Final F2P, or binary outcomes averaged over repeats): under the null of no difference
      each unit's difference is as likely either sign.

    With fewer than `MIN_UNITS` shared units no p is given: the smallest two-sided p of n units is 2/2^n
    (0.0625 at n = 5), so no outcome could reach 0.05 and a p would only mislead.
    """
    a, b = unit_means(first), unit_means(second)
    shared = sorted(set(a) & set(b))
    diffs = [a[u] - b[u] for u in shared]
    higher, lower = sum(1 for d in diffs if d > 0), sum(1 for d in diffs if d < 0)
    single = binary and all(len(first[u]) == len(second[u]) == 1 for u in shared)
    name = "McNemar (exact)" if single else "sign-flip"
    if len(shared) < MIN_UNITS:
        return UnitTest(name, len(shared), higher, lower, None)
    if single:
        return UnitTest(name, len(shared), higher, lower, mcnemar_exact(higher, lower))
    found = sign_flip_p(diffs)
    return UnitTest(f"{name} ({found.method})", len(shared), higher, lower, found.p)


def mcnemar_exact(first_only: int, second_only: int) -> float:
    """Exact McNemar p-value (two-sided): the discordant units -- those only the first configuration solved
    (`first_only`) and those only the second solved (`second_only`) -- are Binomial(b + c, 1/2) under the
    null of equal success probability; concordant units carry no information. 1.0 without discordant units.
    """
    n = first_only + second_only
    if n == 0:
        return 1.0
    from scipy.stats import binomtest  # imported here: scipy.stats is slow to import

    return float(binomtest(first_only, n, 0.5, alternative="two-sided").pvalue)


def benjamini_hochberg(pvalues: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (false discovery rate) over one family of m comparisons, in the
    input order: p_(i) * m / i for the i-th smallest, made monotone from the largest down, capped at 1.
    The family is every test of a study's comparison table (each pair of configurations in each condition
    that has a p)."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, pvalues[i] * m / rank)
        adjusted[i] = min(1.0, running)
    return adjusted
