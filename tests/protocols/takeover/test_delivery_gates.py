"""The three-gate decision of ReqMemBench C.2 / Table 12, case by case."""

import pytest

from reqbench.core.checks import CheckResult, CheckStatus
from reqbench.core.execute.outcomes import Reason
from reqbench.protocols.takeover.delivery.gates import (
    RECHECK_LIMIT,
    Decision,
    agent_failure,
    decide,
    gates_to_run,
    read_gate,
)


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


# ---- C.2 gate statuses from check results ("Exit codes 0/1 indicate PASS/FAIL; other codes, startup errors,
# and check timeouts indicate HARNESS ERROR")


@pytest.mark.parametrize("status,exit_code,timed_out,pytest_gate,expected", [
    ("PASS", 0, False, True, ("PASS", False)),
    ("FAIL", 1, False, True, ("FAIL", False)),            # tests failed
    ("FAIL", 0, False, True, ("FAIL", False)),            # tampered channel / skipped test, exit 0
    ("FAIL", 2, False, True, ("HARNESS_ERROR", True)),    # pytest: interrupted / collection errors
    ("FAIL", 5, False, True, ("HARNESS_ERROR", True)),    # pytest: no tests collected
    ("FAIL", -9, False, True, ("HARNESS_ERROR", True)),   # killed
    ("FAIL", None, True, True, ("HARNESS_ERROR", True)),  # timeout while the submission's tests ran
    ("HARNESS_ERROR", None, True, True, ("HARNESS_ERROR", False)),  # timeout before the runner started
    ("HARNESS_ERROR", 1, False, True, ("HARNESS_ERROR", False)),    # the runner never started
    ("HARNESS_ERROR", None, True, False, ("HARNESS_ERROR", True)),  # plain command timed out
    ("HARNESS_ERROR", 3, False, False, ("HARNESS_ERROR", True)),    # plain command exited 3
    ("HARNESS_ERROR", None, False, False, ("HARNESS_ERROR", False)),  # plain command did not start
    ("FAIL", 1, False, False, ("FAIL", False)),
])
def test_gate_status_follows_the_exit_code_rule(status, exit_code, timed_out, pytest_gate, expected):
    reading = read_gate(CheckResult(CheckStatus(status), exit_code, timed_out=timed_out), pytest_gate)
    assert (reading.status, reading.submission_ran) == expected


def test_a_reproduced_submission_side_harness_error_is_settled_as_the_submissions_fail():
    statuses = {"build": "PASS", "target": "HARNESS_ERROR", "regression": "FAIL"}
    assert decide(statuses).decision is Decision.PENDING
    settled = decide(statuses, frozenset({"target"}))
    assert (settled.decision, settled.score, settled.primary_failure) == (Decision.FAIL, 0, "target")
    assert str(RECHECK_LIMIT) in settled.reason
    # an infrastructure error on another gate keeps the row pending whatever was settled
    both = {"build": "PASS", "target": "HARNESS_ERROR", "regression": "HARNESS_ERROR"}
    assert decide(both, frozenset({"target"})).decision is Decision.PENDING
