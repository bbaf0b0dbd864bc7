"""Agreement statistics reproduce hand-computed values (PACE-Bench appendix agreement definitions)."""

import numpy as np
import pytest

from reqbench.core.stats.agreement import (
    confusion_matrix,
    exact_agreement,
    linear_weights,
    severe_disagreement_rate,
    weighted_kappa,
    weighted_kappa_from_matrix,
)

CATS = ["Missing", "Partial", "Covered"]


def test_linear_weights_match_the_tabled_agreement_weights() -> None:
    assert linear_weights(3).tolist() == [[1, 0.5, 0], [0.5, 1, 0.5], [0, 0.5, 1]]


def test_kappa_on_hand_built_matrix_equals_hand_computation() -> None:
    # Po = 16/20 + 0.5*4/20 = 0.9; marginals (.25,.25,.5) both sides; Pe = 0.5625
    m = np.array([[4, 1, 0], [1, 3, 1], [0, 1, 9]])
    assert weighted_kappa_from_matrix(m) == pytest.approx((0.9 - 0.5625) / (1 - 0.5625))
    assert weighted_kappa_from_matrix(m) == pytest.approx(0.7714285714)


def test_label_sequences_and_matrix_give_the_same_kappa() -> None:
    pairs = ([("Missing", "Missing")] * 4 + [("Missing", "Partial")] + [("Partial", "Missing")]
             + [("Partial", "Partial")] * 3 + [("Partial", "Covered")] + [("Covered", "Partial")]
             + [("Covered", "Covered")] * 9)
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    assert confusion_matrix(a, b, CATS).tolist() == [[4, 1, 0], [1, 3, 1], [0, 1, 9]]
    assert weighted_kappa(a, b, CATS) == pytest.approx(0.7714285714)
    assert exact_agreement(a, b) == pytest.approx(0.8)


def test_opposite_extremes_count_as_severe_but_adjacent_do_not() -> None:
    a = ["Covered", "Covered", "Partial", "Missing"]
    b = ["Missing", "Partial", "Missing", "Covered"]
    assert severe_disagreement_rate(a, b, "Missing", "Covered") == pytest.approx(0.5)


def test_perfect_inverse_ratings_give_negative_kappa() -> None:
    a = ["Missing", "Covered"] * 5
    b = ["Covered", "Missing"] * 5
    assert weighted_kappa(a, b, CATS) < 0


def test_unequal_lengths_are_rejected_not_truncated() -> None:
    with pytest.raises(ValueError):
        exact_agreement(["Covered"], ["Covered", "Missing"])
