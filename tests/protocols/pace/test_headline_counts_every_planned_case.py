"""The PACE headline is a mean over every planned case of the suite (PACE-Bench §4.1, appendix "Evaluation
scope"): a case lost to the harness withholds it, and repeats are averaged within their case first.

Threat guarded: a case the harness lost (invalid, pending, unstarted) silently leaving the denominator, so
a run that scored 2 of 3 cases reports "score 100" over 2; and repeats counted as extra cases, shrinking
the standard error."""

from __future__ import annotations

from typing import Any

import pytest

from reqbench.core.bundled import bundled_suite
from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.protocols.lookup import protocol_for_suite


@pytest.fixture(scope="module")
def suite() -> Any:
    root = bundled_suite("pace")
    return protocol_for_suite(root).load(root)


def _scored(case: str, score: float, repeat: int = 0) -> tuple[Row, RowOutcome]:
    return Row(case, "prd", "a", repeat), RowOutcome(RowStatus.SCORED, {"case_id": case, "score": score,
                                                                        "complete": score >= 95, "verdicts": {}})


def test_a_case_lost_to_the_harness_withholds_the_headline(suite: Any) -> None:
    cases = [c.id for c in suite.cases]
    assert len(cases) == 3
    lost = [_scored(cases[0], 100.0), _scored(cases[1], 100.0), (Row(cases[2], "prd", "a", 0),
                                                                 RowOutcome(RowStatus.INVALID, {}))]
    system = suite.summary_data(lost)["systems"]["a/prd"]
    assert (system["n_cases"], system["n_scored"], system["mean"], system["se"]) == (3, 2, None, None)
    assert suite.summarize(lost).headline == {"a/prd score": "2/3 cases scored, 1 invalid run(s): no score yet"}
    unstarted = suite.summary_data(lost[:2])["systems"]["a/prd"]
    assert unstarted["mean"] is None and unstarted["n_cases"] == 3
    assert unstarted["score_note"] == "2/3 cases scored, 1 unstarted or unscored run(s): no score yet"


def test_repeats_are_case_means_before_the_mean_and_standard_error(suite: Any) -> None:
    cases = [c.id for c in suite.cases]
    scores = {cases[0]: (100.0, 80.0, 90.0), cases[1]: (50.0, 70.0, 60.0), cases[2]: (40.0, 50.0, 45.0)}
    rows = [_scored(case, s, r) for case, values in scores.items() for r, s in enumerate(values)]
    data = suite.summary_data(rows)
    system = data["systems"]["a/prd"]
    assert (system["n_cases"], system["n_scored"], system["mean"]) == (3, 3, pytest.approx(65.0))
    assert system["se"] == pytest.approx(525 ** 0.5 / 3 ** 0.5)  # over 9 rows it would be 7.07
    assert data["case_scores"]["a/prd"] == {cases[0]: 90.0, cases[1]: 60.0, cases[2]: 45.0}
