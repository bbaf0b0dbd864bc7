"""pass@k and pass^k on a hand-built three-run table (PACE-Bench repeated-delivery measures)."""

import pytest

from reqbench.core.stats.passk import pass_at_k, pass_curves, pass_hat_k

RUNS = [
    {"a": True, "b": False, "c": True, "d": False},
    {"a": True, "b": True, "c": False, "d": False},
    {"a": True, "b": False, "c": False, "d": True},
]


def test_pass_at_k_is_the_union_over_the_run_prefix() -> None:
    assert [pass_at_k(RUNS, k) for k in (1, 2, 3)] == [0.5, 0.75, 1.0]


def test_pass_hat_k_is_the_intersection_over_the_run_prefix() -> None:
    assert [pass_hat_k(RUNS, k) for k in (1, 2, 3)] == [0.5, 0.25, 0.25]


def test_curves_use_only_the_prefix_of_the_fixed_run_order() -> None:
    runs = [{"a": False, "b": True}, {"a": True, "b": True}]
    assert pass_curves(runs) == {"pass_at_k": [0.5, 1.0], "pass_hat_k": [0.5, 0.5]}
    assert pass_curves(runs[::-1]) == {"pass_at_k": [1.0, 1.0], "pass_hat_k": [1.0, 0.5]}


def test_k_beyond_the_number_of_runs_is_rejected() -> None:
    with pytest.raises(ValueError):
        pass_hat_k(RUNS, 4)


def test_runs_over_different_items_are_rejected() -> None:
    with pytest.raises(ValueError):
        pass_at_k([{"a": True}, {"b": True}], 2)
