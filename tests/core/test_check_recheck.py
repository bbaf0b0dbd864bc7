"""`core.checks.recheck.settle`: the verdict of a check whose process exited with an unexpected code, from
the first run and its restored re-check (hand-made results; the real runs are in tests/security)."""

from __future__ import annotations

from reqbench.core.checks import Check, CheckResult, CheckStatus
from reqbench.core.checks.recheck import settle

PLAIN = Check(name="plain", command="{python} run.py", probes="junit")
PYTEST = Check(name="guarded", command="{pytest} -q tests")


def odd(code: int, status: CheckStatus = CheckStatus.HARNESS_ERROR) -> CheckResult:
    return CheckResult(status, code, detail=f"exit code {code}", unexpected_exit=True)


def test_the_same_code_again_is_the_submissions_fail_with_no_probe_passed() -> None:
    got = settle(PLAIN, odd(5), odd(5))
    assert (got.status, got.reproduced, got.probes) == (CheckStatus.FAIL, True, {})


def test_a_guarded_fail_keeps_its_probes_and_is_marked_reproduced() -> None:
    again = odd(5, CheckStatus.FAIL)
    again.probes = {"tests/test_a.py::test_x": False}
    got = settle(PYTEST, odd(5, CheckStatus.FAIL), again)
    assert (got.status, got.reproduced, got.probes) == (CheckStatus.FAIL, True, {"tests/test_a.py::test_x": False})


def test_another_code_on_the_recheck_stays_the_harness_error_it_reads_as() -> None:
    got = settle(PLAIN, odd(5), odd(3))
    assert (got.status, got.reproduced) == (CheckStatus.HARNESS_ERROR, False)
    assert "re-checked after exit code 5" in got.detail


def test_a_recheck_that_ends_normally_stands() -> None:
    for again in (CheckResult(CheckStatus.PASS, 0, probes={"p": True}), CheckResult(CheckStatus.FAIL, 1)):
        got = settle(PLAIN, odd(5), again)
        assert (got.status, got.reproduced) == (again.status, False)


def test_a_timeout_or_start_failure_is_not_an_unexpected_exit() -> None:
    timed_out = CheckResult(CheckStatus.HARNESS_ERROR, None, timed_out=True)
    assert settle(PLAIN, odd(5), timed_out).status is CheckStatus.HARNESS_ERROR and not timed_out.reproduced
