"""The rules of paired comparisons between two configurations on the same rows, one function each.

Pairing follows the papers: SpecPath compares histories "only within that configuration" on paired blocks
(RQ2) and reports control deltas "relative to the paired direct condition" with a cluster bootstrap over
families; SWE-Journey B.2 reports "the mean paired difference" over the same models. A study pairs two
configurations on the same (task, condition, repeat) rows, both scored, and asks whether they differ:

* `paired_difference` -- task-macro mean of per-task mean differences, 95% percentile cluster bootstrap
  over tasks (the protocol's interval unit);
* `mcnemar_exact` -- binary outcomes: exact two-sided binomial test on the discordant pairs;
* `wilcoxon_signed_rank` -- scores: the two-sided signed-rank test on the paired differences;
* `benjamini_hochberg` -- the adjusted p-values over the family of all pairwise comparisons of a study.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reqbench.core.stats.intervals import DEFAULT_BOOT, DEFAULT_SEED, cluster_bootstrap_mean

PAIRED_BOOTSTRAP = (f"paired difference (row minus column): task-macro mean of per-task mean differences "
                    f"over rows both configurations scored; 95% percentile cluster bootstrap over tasks "
                    f"({DEFAULT_BOOT} resamples, seed {DEFAULT_SEED}); fewer than 2 tasks: no interval")


@dataclass(frozen=True)
class Difference:
    """A paired difference: estimate, interval (None bounds when there is none) and support."""

    estimate: float | None
    lo: float | None
    hi: float | None
    pairs: int
    clusters: int


def paired_difference(diffs_by_cluster: Mapping[str, Sequence[float]]) -> Difference:
    """Task-macro paired difference and its cluster-bootstrap interval.

    Each task (SpecPath family, takeover target, journey instance, PACE case) weighs equally: the estimate is
    the mean over tasks of the mean of that task's paired differences, as SpecPath's control deltas
    ("task-macro ... over pairs", RQ3). The interval resamples tasks with replacement (SpecPath: "the
    task/PR family ... is the inferential unit"); with fewer than 2 tasks it is absent, never zero-width.
    """
    per = {k: list(v) for k, v in diffs_by_cluster.items() if v}
    pairs = sum(len(v) for v in per.values())
    if not per:
        return Difference(None, None, None, 0, 0)
    means = [sum(v) / len(v) for v in per.values()]
    estimate = sum(means) / len(means)
    if len(means) < 2:
        return Difference(estimate, None, None, pairs, len(means))
    iv = cluster_bootstrap_mean(means)
    return Difference(estimate, _finite(iv.lo), _finite(iv.hi), pairs, len(means))


def _finite(x: float) -> float | None:
    return None if math.isnan(x) else x + 0.0  # -0.0 (a percentile of zeros) prints as 0


def mcnemar_exact(first_only: int, second_only: int) -> float:
    """Exact McNemar p-value (two-sided): the discordant pairs -- rows only the first configuration solved
    (`first_only`) and rows only the second solved (`second_only`) -- are Binomial(b + c, 1/2) under the
    null of equal success probability; concordant rows carry no information. 1.0 without discordant pairs.
    """
    n = first_only + second_only
    if n == 0:
        return 1.0
    from scipy.stats import binomtest  # imported here: scipy.stats is slow to import

    return float(binomtest(first_only, n, 0.5, alternative="two-sided").pvalue)


def wilcoxon_signed_rank(diffs: Sequence[float]) -> float:
    """Two-sided Wilcoxon signed-rank p-value of paired score differences (zero differences dropped, the
    exact distribution for small samples, as scipy chooses); 1.0 when every difference is zero."""
    nonzero = [d for d in diffs if d != 0]
    if not nonzero:
        return 1.0
    from scipy.stats import wilcoxon

    return float(wilcoxon(nonzero, zero_method="wilcox", alternative="two-sided").pvalue)


def benjamini_hochberg(pvalues: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (false discovery rate) over one family of m comparisons, in the
    input order: p_(i) * m / i for the i-th smallest, made monotone from the largest down, capped at 1.
    The family is every pairwise comparison of the study's configurations."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, pvalues[i] * m / rank)
        adjusted[i] = min(1.0, running)
    return adjusted
