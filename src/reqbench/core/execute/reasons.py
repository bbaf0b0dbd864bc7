"""`Reason`: why a row ended as it did -- the codes of the one outcome taxonomy (`outcomes` holds what each
means: its status, whether the agent caused it, whether the agent is run again). A module of its own so that
`types.RowOutcome` can carry a `Reason`, not a string."""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    # ---- scored: the number counts (success or a fixed-budget failure)
    PASSED = "passed"
    EVALUATED = "evaluated"
    CHECKS_FAILED = "checks_failed"
    AGENT_EXIT = "agent_exit"
    AGENT_TIMEOUT = "agent_timeout"
    VERIFIER_TIMEOUT = "verifier_timeout"
    WORKSPACE_OVER_LIMIT = "workspace_over_limit"
    EMPTY_SUBMISSION = "empty_submission"
    PATCH_APPLY = "patch_apply_failure"
    FORBIDDEN_CONTENT = "forbidden_content"
    BUDGET_EXHAUSTED = "budget_exhausted"
    RESOURCE_LIMIT = "resource_limit"
    INVALID_RESPONSE = "invalid_response"
    CLARIFY = "clarify"
    CONTEXT_OVERFLOW = "context_overflow"
    # ---- invalid: external to the agent, attrition (provider limits and infrastructure re-run first)
    PROVIDER_RATE_LIMIT = "provider_rate_limit"
    PROVIDER_ERROR = "provider_error"
    PROVIDER_TIMEOUT = "provider_timeout"
    INFRASTRUCTURE = "infrastructure"
    HARNESS_EXCEPTION = "harness_exception"
    METADATA = "metadata"
    # ---- pending: the frozen submission is re-evaluated, the agent never re-run
    JUDGE_UNAVAILABLE = "judge_unavailable"
    CHECK_INFRASTRUCTURE = "check_infrastructure"
    EVIDENCE_UNRESOLVED = "evidence_unresolved"


def as_reason(value: object) -> Reason | None:
    """`value` as a `Reason`: a `Reason` or its code; None for none (""/None) or a code this version does not
    know (a stored run from another version keeps its rows; reports then group it by its detail)."""
    if isinstance(value, Reason) or value is None:
        return value
    try:
        return Reason(str(value)) if value else None
    except ValueError:
        return None
