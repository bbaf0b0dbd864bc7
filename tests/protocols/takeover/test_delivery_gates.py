"""The three-gate decision of ReqMemBench C.2 / Table 12, case by case."""

import pytest

from reqbench.core.execute.outcomes import Reason
from reqbench.protocols.takeover.delivery.gates import Decision, agent_failure, decide, gates_to_run


def test_all_pass_is_delivery_pass():
    out = decide({"build": "PASS", "target": "PASS", "regression": "PASS"})
    assert (out.decision, out.score, out.primary_failure) == (Decision.PASS, 1, None)


def test_build_fail_skips_other_gates_and_is_primary():
    out = decide({"build": "FAIL", "target": "SKIPPED", "regression": "SKIPPED"})
    assert (out.decision, out.score, out.primary_failure) == (Decision.FAIL, 0, "build")
    assert gates_to_run("FAIL") == ()


@pytest.mark.parametrize("target,regression,primary", [("FAIL", "PASS", "target"), ("PASS", "FAIL", "regression"),
                                                       ("FAIL", "FAIL", "target")])
def test_primary_failure_in_build_target_regression_order(target, regression, primary):
    out = decide({"build": "PASS", "target": target, "regression": regression})
    assert (out.decision, out.primary_failure) == (Decision.FAIL, primary)


def test_harness_error_takes_precedence_over_fail_and_is_pending():
    out = decide({"build": "PASS", "target": "FAIL", "regression": "HARNESS_ERROR"})
    assert out.decision is Decision.PENDING
    assert out.score is None


def test_build_harness_error_skips_and_stays_pending():
    assert gates_to_run("HARNESS_ERROR") == ()
    out = decide({"build": "HARNESS_ERROR", "target": "SKIPPED", "regression": "SKIPPED"})
    assert out.decision is Decision.PENDING


def test_missing_gate_is_unfinished_not_pass():
    assert decide({"build": "PASS", "target": "PASS"}).decision is Decision.PENDING


def test_agent_failure_scores_zero_with_no_component_pass():
    out = agent_failure("no deliverable", Reason.EMPTY_SUBMISSION)
    assert out.score == 0 and out.cause is Reason.EMPTY_SUBMISSION
    assert set(out.statuses.values()) == {"NOT_RUN"}
