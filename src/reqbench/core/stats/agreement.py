"""Agreement between two raters over ordinal labels: exact agreement and weighted Cohen's kappa.

PACE-Bench appendix "Agreement metric definitions": exact agreement is N^-1 sum 1(y_i = y_ref_i);
linearly weighted kappa gives adjacent categories agreement weight 0.5 and opposite extremes 0 on the
three-level scale Missing < Partial < Covered. Severe disagreements are opposite-extreme inversions.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def exact_agreement(a: Sequence[str], b: Sequence[str]) -> float:
    """Fraction of items with identical labels. Raises on empty or unequal-length inputs."""
    _check(a, b)
    return sum(1 for x, y in zip(a, b, strict=True) if x == y) / len(a)


def linear_weights(k: int) -> np.ndarray:
    """Agreement weights w_ij = 1 - |i - j| / (k - 1); for k = 3: 1 / 0.5 / 0 as tabled in the paper."""
    idx = np.arange(k)
    weights: np.ndarray = 1.0 - np.abs(idx[:, None] - idx[None, :]) / (k - 1)
    return weights


def confusion_matrix(a: Sequence[str], b: Sequence[str], categories: Sequence[str]) -> np.ndarray:
    """Counts m[i, j] of items rated categories[i] by `a` and categories[j] by `b`."""
    _check(a, b)
    pos = {c: i for i, c in enumerate(categories)}
    m = np.zeros((len(categories), len(categories)))
    for x, y in zip(a, b, strict=True):
        if x not in pos or y not in pos:
            raise ValueError(f"label outside categories: {x!r} / {y!r}")
        m[pos[x], pos[y]] += 1
    return m


def weighted_kappa_from_matrix(m: np.ndarray, weights: np.ndarray | None = None) -> float:
    """kappa_w = (P_o - P_e) / (1 - P_e) with agreement weights; P_o = sum w_ij p_ij,
    P_e = sum w_ij p_i. p_.j. Returns 1.0 when both raters use one identical category (P_e = 1)."""
    m = np.asarray(m, dtype=float)
    n = m.sum()
    if n <= 0:
        raise ValueError("empty confusion matrix")
    w = linear_weights(m.shape[0]) if weights is None else np.asarray(weights, dtype=float)
    p = m / n
    po = float((w * p).sum())
    pe = float((w * np.outer(p.sum(axis=1), p.sum(axis=0))).sum())
    if abs(1.0 - pe) < 1e-12:
        return 1.0 if abs(po - 1.0) < 1e-12 else 0.0
    return (po - pe) / (1.0 - pe)


def weighted_kappa(
    a: Sequence[str], b: Sequence[str], categories: Sequence[str], weights: np.ndarray | None = None
) -> float:
    """Weighted Cohen's kappa of two label sequences over ordered `categories` (linear by default)."""
    return weighted_kappa_from_matrix(confusion_matrix(a, b, categories), weights)


def severe_disagreement_rate(a: Sequence[str], b: Sequence[str], low: str, high: str) -> float:
    """Share of items where one rater says `low` and the other `high` (e.g. Covered-Missing inversions)."""
    _check(a, b)
    return sum(1 for x, y in zip(a, b, strict=True) if {x, y} == {low, high}) / len(a)


def _check(a: Sequence[str], b: Sequence[str]) -> None:
    if len(a) != len(b):
        raise ValueError(f"rater sequences differ in length: {len(a)} vs {len(b)}")
    if not a:
        raise ValueError("no items to compare")
