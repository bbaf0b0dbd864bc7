"""Exact (or seeded Monte Carlo) permutation p-values for small samples, and the floor below which none can
reach a significance level.

* `sign_flip_p` -- the paired permutation test: under the null of no difference every paired difference is
  as likely positive as negative, so the null distribution of their sum is the 2^n sign assignments.
  Exact enumeration up to `EXACT_MAX` differences, else a seeded Monte Carlo sample of `MONTE_CARLO`
  assignments (p = (1 + hits) / (1 + draws), never 0).
* `smallest_sign_flip_p` / `min_units` -- the smallest two-sided p any sign-flip (or exact McNemar, or
  exact signed-rank) test can give with n units, 2 / 2^n, and the fewest units for which it reaches a level:
  below that a p-value is refused, not printed.

numpy is imported by the functions, not with the module (start-up cost of every command).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reqbench.core.stats.intervals import DEFAULT_SEED

EXACT_MAX = 20
"""Up to this many differences the 2^n sign assignments are enumerated (2^20 = 1,048,576)."""
MONTE_CARLO = 100_000
"""Sign assignments drawn (seeded) above `EXACT_MAX` differences."""
_CHUNK_BITS = 14  # assignments of the first 14 signs form one array; the rest are looped over


@dataclass(frozen=True)
class PermutationP:
    """A permutation p-value and how it was computed (``exact, 2^n assignments`` or the Monte Carlo draws)."""

    p: float
    method: str


def smallest_sign_flip_p(n: int) -> float:
    """The smallest two-sided p of a sign-flip test on n non-zero differences: all of one sign, 2 / 2^n."""
    return min(1.0, 2.0 / 2.0 ** n)


def min_units(level: float = 0.05) -> int:
    """The fewest units whose smallest two-sided sign-flip p is at most `level` (6 for 0.05: 2/64)."""
    n = 1
    while smallest_sign_flip_p(n) > level:
        n += 1
    return n


def sign_flip_p(diffs: Sequence[float], *, seed: int = DEFAULT_SEED, draws: int = MONTE_CARLO) -> PermutationP:
    """Two-sided sign-flip permutation p of the mean of paired differences: the share of sign assignments
    whose |sum| is at least the observed |sum| (relative tolerance 1e-9 for ties). Zero differences take
    part (their sign changes nothing), so n is every paired unit. 1.0 without differences."""
    values = [float(d) for d in diffs]
    n = len(values)
    if n == 0 or not any(values):
        return PermutationP(1.0, f"exact, {2 ** n} sign assignments")
    import numpy as np

    x = np.asarray(values, dtype=float)
    observed = abs(float(x.sum()))
    threshold = observed - 1e-9 * max(observed, float(np.abs(x).sum()))
    if n <= EXACT_MAX:
        return PermutationP(_exact_hits(values, threshold) / 2.0 ** n, f"exact, 2^{n} sign assignments")
    rng = np.random.default_rng(seed)
    hits = 0
    for start in range(0, draws, 10_000):
        signs = rng.choice(np.array([-1.0, 1.0]), size=(min(10_000, draws - start), n))
        hits += int((np.abs(signs @ x) >= threshold).sum())
    return PermutationP((1 + hits) / (1 + draws), f"Monte Carlo, {draws} seeded sign assignments (seed {seed})")


def _exact_hits(values: list[float], threshold: float) -> int:
    """How many of the 2^n sign assignments of `x` have |sum| >= threshold (first bits as one array)."""
    import numpy as np

    head, tail = np.asarray(values[:_CHUNK_BITS], dtype=float), values[_CHUNK_BITS:]
    k = len(head)
    bits = (np.arange(2 ** k)[:, None] >> np.arange(k)[None, :]) & 1
    head_sums = (1 - 2 * bits) @ head
    hits = 0
    for mask in range(2 ** len(tail)):
        offset = sum(-t if (mask >> i) & 1 else t for i, t in enumerate(tail))
        hits += int((np.abs(head_sums + offset) >= threshold).sum())
    return hits
