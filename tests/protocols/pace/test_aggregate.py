"""Deterministic aggregation reproduces the paper's arithmetic and never drops unresolved weight."""

import pytest

from reqbench.protocols.pace.aggregate import case_score, fold_point, is_complete, system_summary
from reqbench.protocols.pace.models import Judgment as J
from reqbench.protocols.pace.models import Severity as S
from reqbench.protocols.pace.models import Verdict as V


def test_identifier_only_control_arithmetic_reproduces_4_03() -> None:
    # appendix: 54 criteria, 3 Partial (weights summing to 8.8), total frozen weight 109.105
    weights = {"p1": 3.0, "p2": 2.9, "p3": 2.9}
    weights |= {f"m{i}": 2.0 for i in range(50)}
    weights["m50"] = 0.305
    verdicts = {k: (V.PARTIAL if k.startswith("p") else V.MISSING) for k in weights}
    assert sum(weights.values()) == pytest.approx(109.105)
    score = case_score(verdicts, weights)
    assert score == pytest.approx(100 * 0.5 * 8.8 / 109.105)
    assert round(score, 2) == 4.03


def test_hard_miss_dominates_partial_entries() -> None:
    assert fold_point([(J.PARTIAL, S.SOFT), (J.MISSING, S.HARD)]) is V.MISSING


def test_soft_miss_folds_to_partial_not_missing() -> None:
    assert fold_point([(J.COVERED, S.HARD), (J.MISSING, S.SOFT)]) is V.PARTIAL


def test_all_covered_folds_to_covered() -> None:
    assert fold_point([(J.COVERED, S.HARD), (J.COVERED, S.SOFT)]) is V.COVERED


def test_unresolved_point_blocks_the_score_instead_of_dropping_weight() -> None:
    assert case_score({"a": V.COVERED, "b": V.UNRESOLVED}, {"a": 1.0, "b": 1.0}) is None


def test_complete_delivery_needs_95_and_no_missing() -> None:
    verdicts = {f"p{i}": V.COVERED for i in range(40)} | {"m": V.MISSING}
    weights = {k: 1.0 for k in verdicts}
    score = case_score(verdicts, weights)
    assert score is not None and score > 95
    assert not is_complete(score, verdicts)
    assert is_complete(96.0, {"a": V.PARTIAL})


def test_system_summary_is_equal_weight_case_mean_with_standard_error() -> None:
    s = system_summary({"a": [(100.0, True)], "b": [(50.0, False)], "c": [(0.0, False)]}, ["a", "b", "c"])
    assert s.mean == pytest.approx(50.0)
    assert s.se == pytest.approx(50.0 / 3**0.5)
    assert s.success_rate == pytest.approx(1 / 3)
    assert (s.n_cases, s.n_scored, s.unresolved) == (3, 3, 0)


def test_repeats_are_averaged_within_a_case_before_the_mean_and_its_standard_error() -> None:
    runs = {"a": [(100.0, True), (80.0, False), (90.0, True)], "b": [(50.0, False), (70.0, False), (60.0, False)],
            "c": [(40.0, False), (50.0, False), (45.0, False)]}
    s = system_summary(runs, ["a", "b", "c"])
    # case means 90, 60, 45 -> mean 65; SD sqrt((25^2 + 5^2 + 20^2) / 2) = sqrt(525); SE over 3 cases, not 9 rows
    assert s.mean == pytest.approx(65.0) and s.se == pytest.approx(525 ** 0.5 / 3 ** 0.5)
    assert s.n_cases == 3 and s.success_rate == pytest.approx((2 / 3) / 3)


def test_a_planned_case_without_a_scored_run_withholds_the_summary() -> None:
    s = system_summary({"a": [(100.0, True)], "b": [(100.0, True)]}, ["a", "b", "c"], unresolved=1)
    assert (s.mean, s.se, s.success_rate) == (None, None, None)
    assert (s.n_cases, s.n_scored, s.unresolved) == (3, 2, 1)
    assert system_summary({"a": [(100.0, True)]}, ["a", "b"]).mean is None  # a missing case, even uncounted
