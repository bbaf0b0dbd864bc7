"""The paired-comparison rules, each against scipy or values computed by hand, on the unit of inference."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest, permutation_test

from reqbench.core.stats.permutation import MONTE_CARLO, min_units, sign_flip_p, smallest_sign_flip_p
from reqbench.study.paired_stats import (
    MIN_UNITS,
    benjamini_hochberg,
    mcnemar_exact,
    unit_difference,
    unit_means,
    unit_test,
)


def _scipy_sign_flip(diffs: list[float], **kw: object) -> float:
    result = permutation_test((np.asarray(diffs),), lambda x, axis: np.mean(x, axis=axis), vectorized=True,
                              permutation_type="samples", alternative="two-sided", **kw)  # type: ignore[arg-type]
    return float(result.pvalue)


def test_benjamini_hochberg_is_step_up_monotone_and_capped() -> None:
    p = [0.01, 0.04, 0.03, 0.20]
    # sorted 0.01, 0.03, 0.04, 0.20 -> 0.04, 0.06, 0.0533, 0.20 -> monotone from the top: 0.04, 0.0533, 0.0533, 0.2
    assert benjamini_hochberg(p) == pytest.approx([0.04, 0.04 * 4 / 3, 0.04 * 4 / 3, 0.20])
    assert benjamini_hochberg([0.9, 0.95]) == pytest.approx([0.95, 0.95])
    assert benjamini_hochberg([]) == []


def test_mcnemar_exact_uses_only_discordant_pairs() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(0, 6) == pytest.approx(2 * 0.5 ** 6)
    assert mcnemar_exact(1, 4) == pytest.approx(2 * (1 + 5) / 32)  # P(X <= 1) doubled, X ~ Bin(5, 1/2)
    assert mcnemar_exact(2, 9) == pytest.approx(binomtest(2, 11, 0.5).pvalue)


@pytest.mark.parametrize("diffs", [
    [0.5, 1.0, -0.25, 2.0, 0.0, 1.5],                        # a zero difference takes part
    [1.0, 1.0, 1.0, -1.0, 1.0, 1.0, 1.0, 0.0],              # tied magnitudes
    [12.5, -3.0, 40.0, 7.25, 0.5, 18.0, -1.0, 22.0, 3.0],
    [0.1 * k - 0.6 for k in range(17)],                      # more than one block of the enumeration
])
def test_sign_flip_p_equals_scipy_exact_permutation_test(diffs: list[float]) -> None:
    found = sign_flip_p(diffs)
    assert found.p == pytest.approx(_scipy_sign_flip(diffs, n_resamples=np.inf), rel=1e-12)
    assert found.method == f"exact, 2^{len(diffs)} sign assignments"


def test_sign_flip_p_by_hand() -> None:
    assert sign_flip_p([1.0] * 6).p == pytest.approx(2 / 64)  # only all-plus and all-minus reach |sum| 6
    # [2, -1, 1]: sums of the 8 sign assignments 2, 0, 4, 2, -2, -4, 0, -2 -> |sum| >= 2 in 6 of 8
    assert sign_flip_p([2.0, -1.0, 1.0]).p == pytest.approx(6 / 8)
    assert sign_flip_p([0.0, 0.0]).p == 1.0 and sign_flip_p([]).p == 1.0


def test_sign_flip_p_beyond_exact_is_seeded_monte_carlo_and_says_so() -> None:
    diffs = [float(v) for v in np.random.default_rng(7).normal(0.4, 1.0, size=25)]
    first, again = sign_flip_p(diffs), sign_flip_p(diffs)
    assert first == again and f"{MONTE_CARLO} seeded" in first.method
    exact = _scipy_sign_flip(diffs, n_resamples=400_000, random_state=1)
    assert abs(first.p - exact) < 0.01


def test_smallest_p_and_the_fewest_units_that_can_reach_five_percent() -> None:
    assert smallest_sign_flip_p(5) == 0.0625 and smallest_sign_flip_p(6) == 0.03125
    assert min_units(0.05) == MIN_UNITS == 6 and min_units(0.01) == 8


def test_repeats_are_averaged_within_a_unit_before_pairing() -> None:
    # repeat r of one configuration is not paired with repeat r of the other: unit means are
    first = {"a": [1.0, 0.0], "b": [1.0, 1.0]}
    second = {"a": [0.0, 1.0], "b": [0.0, 0.0]}
    assert unit_means(first) == {"a": 0.5, "b": 1.0}
    d = unit_difference({"a": 0.0, "b": 1.0})
    assert d.estimate == 0.5 and d.units == 2 and d.lo is not None and d.hi is not None
    one = unit_difference({"a": 0.25})
    assert one.estimate == 0.25 and one.lo is None and one.hi is None and one.units == 1
    test = unit_test(first, second, binary=True)
    assert test.units == 2 and (test.first_higher, test.second_higher) == (1, 0) and test.p is None


def test_no_p_below_six_units_whatever_the_rows() -> None:
    # 5 units with 10 repeats each, every row better: 50 row pairs, yet at most 5 independent signs
    first = {f"u{i}": [1.0] * 10 for i in range(5)}
    second = {f"u{i}": [0.0] * 10 for i in range(5)}
    found = unit_test(first, second, binary=True)
    assert found.units == 5 and found.p is None and found.first_higher == 5


def test_single_binary_outcomes_use_mcnemar_and_repeats_the_sign_flip_test() -> None:
    first = {f"u{i}": [1.0] for i in range(8)}
    second = {f"u{i}": [0.0 if i < 7 else 1.0] for i in range(8)}
    single = unit_test(first, second, binary=True)
    assert single.test == "McNemar (exact)" and single.p == pytest.approx(2 * 0.5 ** 7)
    repeated = unit_test({u: v * 2 for u, v in first.items()}, {u: [v[0], 1.0] for u, v in second.items()},
                         binary=True)  # unit means 1 vs 0.5 (seven units) and 1 vs 1: the sign-flip test
    assert repeated.test.startswith("sign-flip") and repeated.p == pytest.approx(2 / 2 ** 7)


def test_scores_are_tested_on_unit_means_against_scipy() -> None:
    first = {"c1": [80.0, 90.0, 70.0], "c2": [55.0], "c3": [60.0, 64.0], "c4": [100.0, 90.0],
             "c5": [40.0, 50.0], "c6": [75.0, 71.0], "c7": [30.0, 33.0]}
    second = {"c1": [60.0], "c2": [57.0, 59.0], "c3": [40.0, 50.0], "c4": [70.0], "c5": [45.0],
              "c6": [70.0, 70.0, 72.0], "c7": [10.0], "c8": [1.0]}  # c8: not in both
    found = unit_test(first, second, binary=False)
    diffs = [80 - 60, 55 - 58, 62 - 45, 95 - 70, 45 - 45, 73 - 70.666666666666667, 31.5 - 10]
    assert found.units == 7 and (found.first_higher, found.second_higher) == (5, 1)
    assert found.p == pytest.approx(_scipy_sign_flip(diffs, n_resamples=np.inf), rel=1e-9)


def test_each_condition_is_its_own_test_and_bh_covers_only_the_tests_with_a_p() -> None:
    from reqbench.core.protocol_study import PairedOutcome
    from reqbench.study.pairs import comparisons

    units = [f"t{i}" for i in range(8)]
    a = {"C1": {u: [1.0] for u in units}, "C2": {u: [1.0] for u in units}, "C3": {u: [1.0] for u in units[:3]}}
    b = {"C1": {u: [0.0] for u in units}, "C2": {u: [0.0 if i < 6 else 1.0] for i, u in enumerate(units)},
         "C3": {u: [0.0] for u in units[:3]}}
    found = {c.condition: c for c in comparisons(PairedOutcome("x", True, "targets", "target"), {"A": a, "B": b})}
    assert set(found) == {"C1", "C2", "C3"}  # never one test over the 19 units of all conditions
    p1, p2 = 2 * 0.5 ** 8, 2 * 0.5 ** 6
    assert found["C1"].test.p == pytest.approx(p1) and found["C2"].test.p == pytest.approx(p2)
    assert found["C3"].test.p is None and found["C3"].p_adjusted is None and found["C3"].test.units == 3
    assert found["C1"].p_adjusted == pytest.approx(p1 * 2) and found["C2"].p_adjusted == pytest.approx(p2)
