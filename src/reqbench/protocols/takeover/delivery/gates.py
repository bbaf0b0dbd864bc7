"""The deterministic three-gate delivery decision (ReqMemBench §3.1, appendix C.2, Table 12).

Rules, in the order they are applied:

1. The agent did not complete or left no valid deliverable → score 0, target kept in the fixed
   denominator; no component PASS (these are *not* executed component FAILs).
2. Any check reports HARNESS_ERROR → the row is *pending*: no score yet, never an agent failure; the
   frozen submission is re-evaluated after recovery. HARNESS_ERROR takes precedence over FAILs. A gate's
   status follows C.2 (`read_gate`): exit 0 PASS, 1 FAIL; any other exit code, a start-up error or a
   timeout is HARNESS_ERROR. Bounds: an unexpected exit code is re-checked at once on the same submission
   (`core.checks.recheck`); the same code again is the submission's FAIL in the run that checked it, as in
   every protocol. A HARNESS_ERROR the submission's own code could still cause (a timeout, or a re-check
   that exited with another unexpected code) is re-checked on the frozen submission at each
   re-evaluation (``--resume``, ``regrade``); reproduced after `RECHECK_LIMIT` re-checks it is the
   submission's FAIL (a timeout then reads ``verifier_timeout``, which ``regrade --timeout-rerun`` can
   re-run under a larger budget), so no submission keeps its row pending for ever.
3. Build FAIL → target and regression are SKIPPED (not relabelled FAIL); score 0.
4. Any validly executed check FAILs → score 0; the primary failure is the first of build, target,
   regression that failed.
5. Build, target and regression all PASS → delivery PASS, score 1.

Component pass rates (eq. 5) count only PASS statuses over the fixed denominator.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from reqbench.core.checks import CheckResult, CheckStatus
from reqbench.core.execute.outcomes import Reason

GATES = ("build", "target", "regression")
RECHECK_LIMIT = 2
"""Re-checks of a frozen submission after which a HARNESS_ERROR its own code could cause is its FAIL."""


@dataclass(frozen=True)
class GateReading:
    """One executed gate under the paper's rule: its C.2 status and whether the submission's code was
    running when a HARNESS_ERROR arose (so re-checks of it are bounded, `RECHECK_LIMIT`)."""

    status: str
    submission_ran: bool = False


def read_gate(result: CheckResult, runs_pytest: bool) -> GateReading:
    """The C.2 status of one executed gate (ReqMemBench C.2: "Exit codes 0/1 indicate PASS/FAIL; other
    codes, startup errors, and check timeouts indicate HARNESS ERROR").

    * PASS stays PASS (core needs exit 0 and positive per-test evidence for it).
    * A timeout is HARNESS_ERROR; the submission ran if the runner had started (core said FAIL) or the
      gate is a plain command (it started: a start-up failure is not a timeout).
    * A FAIL whose process exited with a code other than 0 or 1 (pytest 2 interrupted or collection
      errors, 3 internal error, 4 usage error, 5 no tests; a crash or kill) is HARNESS_ERROR the
      submission's code could have caused -- unless the restored re-check exited the same way again
      (`CheckResult.reproduced`, `core.checks.recheck`): then it is the submission's FAIL. A FAIL with
      exit 0 or 1 stays FAIL (tests failed, skipped, or the evidence channel was tampered with).
    * Core's HARNESS_ERROR stays; the submission ran only for a plain command that exited with an
      unexpected code (a runner that never started, a start-up error, missing hidden tests: infrastructure).
    """
    status = result.status
    if status is CheckStatus.PASS or status is CheckStatus.SKIPPED:
        return GateReading(status.value)
    if result.timed_out:
        return GateReading(CheckStatus.HARNESS_ERROR.value, status is CheckStatus.FAIL or not runs_pytest)
    if status is CheckStatus.FAIL:
        if result.exit_code in (0, 1) or result.reproduced:
            return GateReading(CheckStatus.FAIL.value)
        return GateReading(CheckStatus.HARNESS_ERROR.value, True)
    return GateReading(status.value, not runs_pytest and result.exit_code not in (None, 0, 1))


class Decision(StrEnum):
    PASS = "pass"
    """All three gates passed: complete delivery, score 1."""
    FAIL = "fail"
    """A validly executed gate failed: score 0, primary failure recorded."""
    AGENT_FAILURE = "agent_failure"
    """No deliverable (incomplete run, no valid submission, CLARIFY in a gated condition): score 0."""
    PENDING = "pending"
    """A gate reported HARNESS_ERROR (or gates are unfinished): re-evaluate the frozen submission."""


@dataclass
class DeliveryOutcome:
    decision: Decision
    statuses: dict[str, str] = field(default_factory=dict)
    """Gate name -> PASS | FAIL | HARNESS_ERROR | SKIPPED | NOT_RUN."""
    primary_failure: str | None = None
    reason: str = ""
    cause: Reason | None = None
    """Rule 1 only: the taxonomy reason the agent failed with (its step's, or the submission's)."""
    skipped_tests: dict[str, list[str]] = field(default_factory=dict)
    """Gate -> tests the runner reported skipped (reported; a skipped test is never a PASS)."""

    @property
    def score(self) -> int | None:
        """1 for PASS, 0 for FAIL / AGENT_FAILURE, None while pending."""
        if self.decision is Decision.PENDING:
            return None
        return 1 if self.decision is Decision.PASS else 0

    def to_dict(self) -> dict[str, Any]:
        return {"decision": self.decision.value, "score": self.score, "statuses": dict(self.statuses),
                "primary_failure": self.primary_failure, "reason": self.reason,
                "cause": self.cause.value if self.cause else None,
                **({"skipped_tests": dict(self.skipped_tests)} if self.skipped_tests else {})}


def agent_failure(reason: str, cause: Reason) -> DeliveryOutcome:
    """Rule 1: no deliverable. Gates are NOT_RUN and contribute no PASS; `cause` is the row's reason."""
    return DeliveryOutcome(Decision.AGENT_FAILURE, {g: "NOT_RUN" for g in GATES}, None, reason, cause)


def decide(statuses: dict[str, str], settled: frozenset[str] = frozenset()) -> DeliveryOutcome:
    """Apply rules 2-5 to gate statuses (missing gates count as unfinished → pending). `settled`: gates
    whose HARNESS_ERROR the submission's code could cause and that reproduced after `RECHECK_LIMIT`
    re-checks; when every HARNESS_ERROR is settled they count as the submission's FAILs."""
    full = {g: statuses.get(g, "NOT_RUN") for g in GATES}
    errors = [g for g in GATES if full[g] == "HARNESS_ERROR"]
    if errors and not set(errors) <= settled:
        return DeliveryOutcome(Decision.PENDING, full, None, f"{errors[0]} check reported HARNESS_ERROR")
    if errors:
        primary = next(g for g in GATES if full[g] == "FAIL" or g in errors)
        return DeliveryOutcome(Decision.FAIL, full, primary,
                               f"{errors[0]} check reported HARNESS_ERROR again after {RECHECK_LIMIT} "
                               "re-checks of the frozen submission: the submission's failure")
    if full["build"] == "FAIL":
        return DeliveryOutcome(Decision.FAIL, full, "build", "build failed; other gates skipped")
    failed = [g for g in GATES if full[g] == "FAIL"]
    if failed:
        return DeliveryOutcome(Decision.FAIL, full, failed[0], f"{failed[0]} check failed")
    if all(full[g] == "PASS" for g in GATES):
        return DeliveryOutcome(Decision.PASS, full, None, "all gates passed")
    return DeliveryOutcome(Decision.PENDING, full, None, "gates unfinished")


def gates_to_run(build_status: str) -> tuple[str, ...]:
    """After build: FAIL or HARNESS_ERROR skips target and regression (C.2)."""
    return ("target", "regression") if build_status == "PASS" else ()
