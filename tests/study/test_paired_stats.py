"""The paired-comparison rules, each against values computed by hand or by the textbook definition."""

from __future__ import annotations

import pytest

from reqbench.study.paired_stats import benjamini_hochberg, mcnemar_exact, paired_difference, wilcoxon_signed_rank


def test_benjamini_hochberg_is_step_up_monotone_and_capped() -> None:
    p = [0.01, 0.04, 0.03, 0.20]
    # sorted 0.01, 0.03, 0.04, 0.20 -> 0.04, 0.06, 0.0533, 0.20 -> monotone from the top: 0.04, 0.0533, 0.0533, 0.2
    assert benjamini_hochberg(p) == pytest.approx([0.04, 0.04 * 4 / 3, 0.04 * 4 / 3, 0.20])
    assert benjamini_hochberg([0.9, 0.95]) == pytest.approx([0.95, 0.95])
    assert benjamini_hochberg([]) == []


def test_mcnemar_exact_uses_only_discordant_pairs() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(0, 5) == pytest.approx(2 * 0.5 ** 5)
    assert mcnemar_exact(1, 4) == pytest.approx(2 * (1 + 5) / 32)  # P(X <= 1) doubled, X ~ Bin(5, 1/2)


def test_paired_difference_is_task_macro_with_no_interval_under_two_tasks() -> None:
    d = paired_difference({"a": [1.0, 1.0, 0.0], "b": [0.0]})
    assert d.estimate == pytest.approx((2 / 3 + 0) / 2) and d.pairs == 4 and d.clusters == 2
    assert d.lo is not None and d.hi is not None and d.lo <= d.estimate <= d.hi
    one = paired_difference({"a": [1.0, 0.0]})
    assert one.estimate == 0.5 and one.lo is None and one.hi is None


def test_wilcoxon_signed_rank_of_all_zero_differences_is_one() -> None:
    assert wilcoxon_signed_rank([0.0, 0.0]) == 1.0
    assert wilcoxon_signed_rank([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]) == pytest.approx(2 / 64)  # exact: all positive
