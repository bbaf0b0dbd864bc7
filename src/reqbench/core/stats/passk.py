"""Repeated-delivery measures over a fixed run order (PACE-Bench appendix "Repeated-delivery measures").

For the first k runs: pass@k is the fraction of items that succeed in at least one run (union);
pass^k is the fraction that succeed in every run (intersection). Applied to points (Covered) or to cases
(complete delivery). Notation after Chen et al.; the empirical prefix form, not the unbiased estimator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def _table(runs: Sequence[Mapping[str, bool]], k: int) -> tuple[list[str], Sequence[Mapping[str, bool]]]:
    if k < 1 or k > len(runs):
        raise ValueError(f"k must be between 1 and {len(runs)}, got {k}")
    items = sorted(runs[0])
    for r in runs[1:]:
        if sorted(r) != items:
            raise ValueError("every run must cover the same items")
    if not items:
        raise ValueError("no items")
    return items, runs[:k]


def pass_at_k(runs: Sequence[Mapping[str, bool]], k: int) -> float:
    """Fraction of items successful in at least one of runs[0..k-1]."""
    items, first = _table(runs, k)
    return sum(1 for i in items if any(r[i] for r in first)) / len(items)


def pass_hat_k(runs: Sequence[Mapping[str, bool]], k: int) -> float:
    """pass^k: fraction of items successful in every one of runs[0..k-1]."""
    items, first = _table(runs, k)
    return sum(1 for i in items if all(r[i] for r in first)) / len(items)


def pass_curves(runs: Sequence[Mapping[str, bool]]) -> dict[str, list[float]]:
    """pass@k and pass^k for k = 1..len(runs) in the fixed run order."""
    ks = range(1, len(runs) + 1)
    return {"pass_at_k": [pass_at_k(runs, k) for k in ks], "pass_hat_k": [pass_hat_k(runs, k) for k in ks]}
