"""Run processing (SpecPath "Run processing"): what a finished attempt counts as.

The decision sequence is fixed so infrastructure loss is never mistaken for agent failure:

1. provider-limit attempts are resolved first — returned *invalid*; the executor retries them at the same
   budget (at most three tries) and selects the earliest complete non-external attempt
   (`core.store.selection`);
2. protocol and metadata gates: an agent record that is not a well-formed result is *invalid*;
3. only then is the record classified: agent timeout, no patch, a rejected workspace (over a workspace
   limit or unreadable), forbidden content, patch-apply failure, nonzero agent exit, cost limit and
   verifier test failure are **fixed-budget failures** (scored,
   outcome ``failure``); provider, runner, metadata and verifier-infrastructure problems are
   **external invalids** (attrition, never scored). An empty or incorrect patch stays an agent outcome.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from reqbench.core.execute.types import RowOutcome, RowStatus


class Reason(StrEnum):
    """Why a row ended as it did. The first group are fixed-budget failures, the second external."""

    PASSED = "passed"
    """Every final-contract probe passed (Y = 1, eq. 5)."""
    TEST_FAILURE = "test_failure"
    AGENT_TIMEOUT = "agent_timeout"
    NO_PATCH = "no_patch"
    FORBIDDEN_CONTENT = "forbidden_content"
    PATCH_APPLY = "patch_apply_failure"
    AGENT_EXIT = "nonzero_agent_exit"
    COST_LIMIT = "cost_limit"
    WORKSPACE_REJECTED = "workspace_rejected"
    """The agent's workspace broke a workspace limit or could not be read (`core.workspace.guard`)."""
    PROVIDER = "provider"
    RUNNER = "runner"
    METADATA = "metadata"
    VERIFIER = "verifier_infrastructure"


FIXED_BUDGET_FAILURES = frozenset({Reason.TEST_FAILURE, Reason.AGENT_TIMEOUT, Reason.NO_PATCH,
                                   Reason.FORBIDDEN_CONTENT, Reason.PATCH_APPLY, Reason.AGENT_EXIT,
                                   Reason.COST_LIMIT, Reason.WORKSPACE_REJECTED})
EXTERNAL_INVALID = frozenset({Reason.PROVIDER, Reason.RUNNER, Reason.METADATA, Reason.VERIFIER})


def outcome_of(reason: Reason) -> str:
    """success | failure | invalid for a reason (the one mapping every row goes through)."""
    if reason is Reason.PASSED:
        return "success"
    if reason in FIXED_BUDGET_FAILURES:
        return "failure"
    return "invalid"


def row_outcome(reason: Reason, base: dict[str, Any], *, signature: list[int] | None = None,
                detail: str = "", artifacts: dict[str, bytes] | None = None,
                extra: dict[str, Any] | None = None) -> RowOutcome:
    """The `RowOutcome` of a classified row: scored for success/failure, invalid for external reasons.

    `base` carries the row identity (family, config, condition, repeat); the result always has
    ``outcome`` and ``signature`` so it doubles as a results-JSONL row.
    """
    outcome = outcome_of(reason)
    result = {**base, "outcome": outcome, "signature": signature, "reason": reason.value, **(extra or {})}
    status = RowStatus.INVALID if outcome == "invalid" else RowStatus.SCORED
    return RowOutcome(status, result=result, detail=detail or reason.value, artifacts=artifacts or {})
