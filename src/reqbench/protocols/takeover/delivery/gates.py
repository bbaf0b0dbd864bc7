"""The deterministic three-gate delivery decision (ReqMemBench §3.1, appendix C.2, Table 12).

Rules, in the order they are applied:

1. The agent did not complete or left no valid deliverable → score 0, target kept in the fixed
   denominator; no component PASS (these are *not* executed component FAILs).
2. Any check reports HARNESS_ERROR → the row is *pending*: no score yet, never an agent failure; the
   frozen submission is re-evaluated after recovery. HARNESS_ERROR takes precedence over FAILs.
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

from reqbench.core.execute.outcomes import Reason

GATES = ("build", "target", "regression")


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

    @property
    def score(self) -> int | None:
        """1 for PASS, 0 for FAIL / AGENT_FAILURE, None while pending."""
        if self.decision is Decision.PENDING:
            return None
        return 1 if self.decision is Decision.PASS else 0

    def to_dict(self) -> dict[str, Any]:
        return {"decision": self.decision.value, "score": self.score, "statuses": dict(self.statuses),
                "primary_failure": self.primary_failure, "reason": self.reason,
                "cause": self.cause.value if self.cause else None}


def agent_failure(reason: str, cause: Reason) -> DeliveryOutcome:
    """Rule 1: no deliverable. Gates are NOT_RUN and contribute no PASS; `cause` is the row's reason."""
    return DeliveryOutcome(Decision.AGENT_FAILURE, {g: "NOT_RUN" for g in GATES}, None, reason, cause)


def decide(statuses: dict[str, str]) -> DeliveryOutcome:
    """Apply rules 2-5 to gate statuses (missing gates count as unfinished → pending)."""
    full = {g: statuses.get(g, "NOT_RUN") for g in GATES}
    if any(s == "HARNESS_ERROR" for s in full.values()):
        first = next(g for g in GATES if full[g] == "HARNESS_ERROR")
        return DeliveryOutcome(Decision.PENDING, full, None, f"{first} check reported HARNESS_ERROR")
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
