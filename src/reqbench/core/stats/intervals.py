"""Confidence intervals shared by every protocol: percentile bootstrap, cluster bootstrap, exact binomial.

All bootstraps are seeded (default 20260729) so a report is reproducible to the last digit. The cluster
bootstrap resamples whole clusters (e.g. task families) with replacement and recomputes the statistic on
each resample; it is the right interval when the cluster, not the execution, is the inferential unit
(SpecPath: "the task/PR family ... is the inferential unit").

numpy is imported by the functions that need it, not with the module: the protocols import this module
to define their reports, and every command's start-up would pay for numpy. Inside `estimates_only()` the
interval functions return their estimate alone (NaN bounds, method `NOT_COMPUTED`) without resampling or
importing numpy or scipy: for a caller that shows estimates only (``reqbench run --quiet``'s headline). The
estimate is computed the same way in and out of that block.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")
DEFAULT_SEED = 20260729
DEFAULT_BOOT = 2000
NOT_COMPUTED = "not computed (estimate only)"
_ESTIMATES_ONLY: ContextVar[bool] = ContextVar("reqbench_estimates_only", default=False)


@contextmanager
def estimates_only() -> Iterator[None]:
    """Within the block (this thread or task), every interval function returns its estimate with NaN
    bounds and the method `NOT_COMPUTED`: nothing is resampled, numpy and scipy are not imported."""
    token = _ESTIMATES_ONLY.set(True)
    try:
        yield
    finally:
        _ESTIMATES_ONLY.reset(token)


def _estimate_only(estimate: float) -> Interval | None:
    """The interval of `estimate` inside `estimates_only`, else None (compute it)."""
    return Interval(estimate, math.nan, math.nan, NOT_COMPUTED) if _ESTIMATES_ONLY.get() else None


@dataclass(frozen=True)
class Interval:
    estimate: float
    lo: float
    hi: float
    method: str

    def as_list(self) -> list[float]:
        return [self.lo, self.hi]


def _percentiles(samples: Sequence[float], level: float) -> tuple[float, float]:
    """The two-sided percentile bounds of `samples` at `level`, NaN resamples dropped."""
    import numpy as np

    values = np.asarray(samples, dtype=float)
    finite = values[~np.isnan(values)]
    if not finite.size:
        return math.nan, math.nan
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(finite, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def cluster_bootstrap(clusters: Sequence[T], stat: Callable[[Sequence[T]], float], *,
                      n_boot: int = DEFAULT_BOOT, seed: int = DEFAULT_SEED,
                      level: float = 0.95) -> Interval:
    """Percentile interval of `stat` under resampling whole clusters with replacement.

    `stat` receives a list of clusters (with repeats) and may return NaN when a resample leaves it
    undefined (e.g. no eligible block); such resamples are dropped. With no clusters the estimate and
    bounds are NaN.
    """
    items = list(clusters)
    if not items:
        return Interval(math.nan, math.nan, math.nan, "cluster bootstrap")
    estimate = float(stat(items))
    if (only := _estimate_only(estimate)) is not None:
        return only
    import numpy as np

    rng = np.random.default_rng(seed)
    n = len(items)
    samples = [float(stat([items[i] for i in rng.integers(0, n, size=n)])) for _ in range(n_boot)]
    lo, hi = _percentiles(samples, level)
    return Interval(estimate, lo, hi, f"cluster bootstrap over {n} clusters, {n_boot} resamples, "
                                      f"seed {seed}, percentile {level:.0%}")


def cluster_bootstrap_mean(cluster_values: Sequence[float], *, n_boot: int = DEFAULT_BOOT,
                           seed: int = DEFAULT_SEED, level: float = 0.95) -> Interval:
    """Cluster bootstrap of a cluster-macro mean: one value per cluster (e.g. a family's rate), clusters
    resampled with replacement, the mean recomputed per resample (vectorised)."""
    values = [float(v) for v in cluster_values]
    n = len(values)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, "cluster bootstrap")
    estimate = math.fsum(values) / n  # correctly rounded; the same with and without `estimates_only`
    if (only := _estimate_only(estimate)) is not None:
        return only
    import numpy as np

    vals = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_boot, n))
    lo, hi = _percentiles(vals[idx].mean(axis=1), level)
    return Interval(estimate, lo, hi, f"cluster bootstrap over {n} clusters, {n_boot} "
                                      f"resamples, seed {seed}, percentile {level:.0%}")


def bootstrap_mean(values: Sequence[float], *, n_boot: int = DEFAULT_BOOT, seed: int = DEFAULT_SEED,
                   level: float = 0.95) -> Interval:
    """Percentile bootstrap interval of the mean of independent values."""
    iv = cluster_bootstrap_mean(values, n_boot=n_boot, seed=seed, level=level)
    return Interval(iv.estimate, iv.lo, iv.hi, iv.method.replace("cluster bootstrap over", "bootstrap of")
                    .replace("clusters", "values"))


def exact_binomial(successes: int, trials: int, *, level: float = 0.95) -> Interval:
    """Clopper-Pearson exact interval for a binomial proportion (NaN estimate when trials == 0)."""
    if trials < 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes}/{trials}")
    if trials == 0:
        return Interval(math.nan, 0.0, 1.0, "exact binomial (Clopper-Pearson)")
    if (only := _estimate_only(successes / trials)) is not None:
        return only
    from scipy.stats import beta  # imported here: scipy.stats costs seconds at CLI start-up
    alpha = 1.0 - level
    lo = 0.0 if successes == 0 else float(beta.ppf(alpha / 2, successes, trials - successes + 1))
    hi = 1.0 if successes == trials else float(beta.ppf(1 - alpha / 2, successes + 1, trials - successes))
    return Interval(successes / trials, lo, hi, "exact binomial (Clopper-Pearson)")


def wilson(successes: float, n: float, z: float = 1.96) -> tuple[float, float] | None:
    """The Wilson score interval of a proportion (None when n is 0)."""
    if n <= 0:
        return None
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)
