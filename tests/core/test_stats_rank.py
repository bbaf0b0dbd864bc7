"""Spearman's p-value is exact for small n: the share of the n! orderings whose |rho| reaches the observed
one, checked by hand, by a brute-force enumeration written out here, and against scipy; above 9 pairs, the
t approximation scipy.stats.spearmanr uses."""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pytest
from scipy.stats import permutation_test, rankdata, spearmanr

from reqbench.core.stats.rank import average_ranks, spearman


def _brute_force_p(x: list[float], y: list[float]) -> float:
    rx, ry = average_ranks(x), average_ranks(y)
    observed = abs(spearmanr(rx, ry).statistic)
    found = [abs(spearmanr(rx, [ry[i] for i in order]).statistic) for order in permutations(range(len(y)))]
    return sum(1 for r in found if r >= observed - 1e-12) / len(found)


def test_perfect_agreement_of_four_is_two_orderings_of_twenty_four() -> None:
    out = spearman([1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 30.0, 40.0])
    assert out["rho"] == pytest.approx(1.0) and out["p"] == pytest.approx(2 / 24)  # once printed 0
    assert spearman([1.0, 2.0, 3.0], [3.0, 2.0, 1.0])["p"] == pytest.approx(2 / 6)  # 2 of 6 reach |rho| = 1


@pytest.mark.parametrize(("x", "y"), [
    ([1.0, 2.0, 3.0, 4.0, 5.0], [20.0, 10.0, 40.0, 30.0, 50.0]),
    ([3.0, 1.0, 4.0, 1.5, 5.0, 9.0], [2.0, 6.0, 5.0, 3.0, 5.5, 8.0]),
    ([1.0, 2.0, 2.0, 3.0, 4.0, 5.0], [1.0, 3.0, 2.0, 2.0, 5.0, 4.0]),  # ties: average ranks
])
def test_exact_p_equals_brute_force_enumeration(x: list[float], y: list[float]) -> None:
    assert spearman(x, y)["p"] == pytest.approx(_brute_force_p(x, y), rel=1e-9)


def test_exact_p_equals_scipy_permutation_test() -> None:
    x, y = np.array([5.0, 1.0, 4.0, 2.0, 3.0]), np.array([4.5, 2.0, 5.0, 1.0, 2.5])

    def rho(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
        a, b = rankdata(a, axis=axis), rankdata(b, axis=axis)
        a, b = a - a.mean(axis=axis, keepdims=True), b - b.mean(axis=axis, keepdims=True)
        return np.asarray((a * b).sum(axis=axis) / np.sqrt((a * a).sum(axis=axis) * (b * b).sum(axis=axis)))

    expected = permutation_test((x, y), rho, vectorized=True, permutation_type="pairings", n_resamples=np.inf,
                                alternative="two-sided").pvalue
    assert spearman(list(x), list(y))["p"] == pytest.approx(float(expected), rel=1e-9)


def test_above_nine_pairs_the_t_approximation_as_scipy() -> None:
    x = [float(v) for v in range(12)]
    y = [2.0, 1.0, 0.0, 5.0, 3.0, 4.0, 8.0, 6.0, 7.0, 11.0, 9.0, 10.0]
    assert spearman(x, y)["p"] == pytest.approx(spearmanr(x, y).pvalue, rel=1e-9)
    assert spearman(x, x)["p"] == pytest.approx(2 / 479001600)  # 2 / 12!, never 0
