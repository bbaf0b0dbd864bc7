"""Rank correlation shared by the protocols: Spearman's rho with average ranks for ties."""

from __future__ import annotations

import math
from collections.abc import Sequence


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
    """Spearman's rho (Pearson correlation of average ranks) and its two-sided p-value (t approximation,
    as scipy.stats.spearmanr); rho is None when fewer than 3 pairs or a constant variable."""
    if len(x) != len(y):
        raise ValueError("x and y must have the same length")
    n = len(x)
    if n < 3:
        return {"rho": None, "p": None, "n": n}
    rx, ry = average_ranks(x), average_ranks(y)
    mx, my = sum(rx) / n, sum(ry) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return {"rho": None, "p": None, "n": n}
    rho = sxy / math.sqrt(sxx * syy)
    if abs(rho) >= 1.0:
        return {"rho": rho, "p": 0.0, "n": n}
    from scipy.stats import t as student_t  # imported here: scipy.stats is slow to import

    tstat = rho * math.sqrt((n - 2) / (1 - rho * rho))
    return {"rho": rho, "p": float(2 * student_t.sf(abs(tstat), n - 2)), "n": n}
