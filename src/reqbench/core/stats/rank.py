"""Rank correlation shared by the protocols: Spearman's rho with average ranks for ties, and its two-sided
p-value: exact (every permutation of one variable's ranks) up to `EXACT_SPEARMAN_MAX` pairs, where the t
approximation is far off (n = 4, rho = 1: exact p = 2/4! = 0.083, the t approximation gives 0), else the t
approximation as scipy.stats.spearmanr."""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import permutations

EXACT_SPEARMAN_MAX = 9
"""Up to this many pairs the p-value enumerates all n! orderings (9! = 362,880)."""


def average_ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks; tied values share the mean of the ranks they occupy."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> dict[str, float | int | None]:
    """Spearman's rho (Pearson correlation of average ranks) and its two-sided p-value (`spearman_p`); rho
    is None when fewer than 3 pairs or a constant variable."""
    if len(x) != len(y):
        raise ValueError("x and y must have the same length")
    n = len(x)
    if n < 3:
        return {"rho": None, "p": None, "n": n}
    rx, ry = average_ranks(x), average_ranks(y)
    rho = _pearson(rx, ry)
    if rho is None:
        return {"rho": None, "p": None, "n": n}
    return {"rho": rho, "p": spearman_p(rx, ry, rho), "n": n}


def _pearson(a: Sequence[float], b: Sequence[float]) -> float | None:
    n = len(a)
    ma, mb = sum(a) / n, sum(b) / n
    sab = sum((u - ma) * (v - mb) for u, v in zip(a, b, strict=True))
    saa = sum((u - ma) ** 2 for u in a)
    sbb = sum((v - mb) ** 2 for v in b)
    return None if saa == 0 or sbb == 0 else sab / math.sqrt(saa * sbb)


def spearman_p(rx: Sequence[float], ry: Sequence[float], rho: float) -> float:
    """Two-sided p of Spearman's `rho` over the ranks `rx`, `ry` (n >= 3, neither constant).

    n <= `EXACT_SPEARMAN_MAX`: the exact permutation p, the share of the n! orderings of `ry` whose |rho| is
    at least the observed |rho| (relative tolerance 1e-9 for ties). Larger n: the t approximation with n - 2
    degrees of freedom (scipy.stats.spearmanr); |rho| = 1 there has p = 2 / n!, the two orderings that
    reach it."""
    n = len(rx)
    if n <= EXACT_SPEARMAN_MAX:
        import numpy as np

        centred = np.asarray(rx, dtype=float) - sum(rx) / n
        y = np.asarray(ry, dtype=float) - sum(ry) / n
        orders = np.fromiter((i for p in permutations(range(n)) for i in p), dtype=np.int64).reshape(-1, n)
        rhos = (y[orders] @ centred) / math.sqrt(float(centred @ centred) * float(y @ y))
        return float(np.mean(np.abs(rhos) >= abs(rho) * (1 - 1e-9)))
    if abs(rho) >= 1.0:
        return 2.0 / math.factorial(n)
    from scipy.stats import t as student_t  # imported here: scipy.stats is slow to import

    tstat = rho * math.sqrt((n - 2) / (1 - rho * rho))
    return float(2 * student_t.sf(abs(tstat), n - 2))
