"""Run processing (SpecPath "Run processing"): what a finished attempt counts as, in the core taxonomy.

The decision sequence is fixed so infrastructure loss is never mistaken for agent failure:

1. provider-limit attempts are resolved first — returned *invalid* (``provider_*``); the executor retries
   them at the same budget (at most three tries) and selects the earliest complete non-external attempt
   (`core.store.selection`);
2. protocol and metadata gates: an agent record that is not a well-formed result is *invalid*
   (``metadata``);
3. only then is the record classified: agent timeout, no patch, forbidden content, patch-apply failure,
   nonzero agent exit, cost limit, a rejected workspace (over a workspace limit or
   unreadable: ``workspace_over_limit``), verifier test failure and a verifier that exceeds its fixed budget on
   the submission are **fixed-budget failures** (scored, outcome ``failure``); a verifier that cannot run
   for another reason is *pending* (``check_infrastructure``) and re-verified on the frozen patch, never
   re-running the agent. An empty or incorrect patch stays an agent outcome.

Every reason is a `core.execute.outcomes.Reason`; ``result["reason"]`` repeats it for the results JSONL.
"""

from __future__ import annotations

from typing import Any

from reqbench.core.execute.outcomes import Reason, classified
from reqbench.core.execute.types import RowOutcome, RowStatus
from reqbench.protocols.specpath.row_result import SpecpathResult


def outcome_of(reason: Reason) -> str:
    """success | failure | invalid | pending for a reason (the one mapping every row goes through)."""
    if reason is Reason.PASSED:
        return "success"
    status = classified(reason).status
    return "failure" if status is RowStatus.SCORED else status.value


def row_outcome(reason: Reason, base: dict[str, Any], *, signature: list[int] | None = None,
                detail: str = "", artifacts: dict[str, bytes] | None = None,
                extra: dict[str, Any] | None = None) -> RowOutcome:
    """The `RowOutcome` of a classified row: scored for success/failure, else invalid or pending.

    `base` carries the row identity (family, config, condition, repeat); the result always has
    ``outcome`` and ``signature`` so it doubles as a results-JSONL row.
    """
    result = SpecpathResult.model_validate({**base, "outcome": outcome_of(reason), "signature": signature,
                                            "reason": reason.value, **(extra or {})})
    return classified(reason, result, detail, artifacts)
