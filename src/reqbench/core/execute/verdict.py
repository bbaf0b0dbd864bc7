"""The one verdict table: how an agent step and a check end, decided from evidence the harness recorded.

A comparison of agents is sound only when the same event ends the same way for every agent in every
protocol (DESIGN §12). Two functions decide it, and nothing else may:

* `step_reason` — an agent step: ``None`` when the agent completed (its deliverable goes on to be
  evaluated), otherwise the `Reason` it ended with;
* `check_reason` — a check run on a frozen submission; a check whose process exits with a code other than
  0 or 1 is first decided by one restored re-check of the same submission (`core.checks.recheck`: the same
  code again is the submission's FAIL, in every protocol).

``invalid`` comes only from what the *harness* observed itself (`core.llm.ledger`): a provider failure the
model gateway or client recorded in that step (after retries, and only when the step did not complete), a
sandbox launcher failure, or an exception in harness code (`runner`, ``harness_exception``). Everything the
agent or its tool did or said -- exit codes, crashes, an adapter that raises, a timeout, output text such
as "rate limit exceeded", hostile files -- is its ``scored`` outcome. An adapter's own claim of a provider
failure (``AgentStatus.PROVIDER_ERROR``) is *not* evidence: without a recorded failure it is the agent's
exit.

Where the protocols differ, it is in what a scored agent failure means for the row, each by its paper:
takeover and SpecPath score the row as failed at the step (ReqMemBench C.2; SpecPath §4.3 "fixed-budget
failure"); PACE scores the candidate the agent left, all Code Points Missing when it left nothing
(PACE-Bench §4 "Evaluation scope"); journey records the failed turn and the session goes on, scored on the
final workspace (SWE-Journey §3.4). `EVENT_OUTCOMES` is that table; docs/runs.md prints it
(`readme_verdict_table`) and `tests/core/test_verdict_table.py` runs every cell.
"""

from __future__ import annotations

from collections.abc import Sequence

from reqbench.core.agents.base import AgentResult, AgentStatus, Budget
from reqbench.core.execute.outcomes import Reason, status_of
from reqbench.core.llm.ledger import FailureKind, ObservedFailure

_PROVIDER = {FailureKind.RATE_LIMIT: Reason.PROVIDER_RATE_LIMIT, FailureKind.TIMEOUT: Reason.PROVIDER_TIMEOUT,
             FailureKind.PROVIDER: Reason.PROVIDER_ERROR}
_BY_STATUS = {AgentStatus.TIMEOUT: Reason.AGENT_TIMEOUT, AgentStatus.ERROR: Reason.AGENT_EXIT,
              AgentStatus.PROVIDER_ERROR: Reason.AGENT_EXIT, AgentStatus.NO_SUBMISSION: Reason.EMPTY_SUBMISSION}


def step_reason(result: AgentResult, observed: Sequence[ObservedFailure], budget: Budget) -> Reason | None:
    """How an agent step ended: None when it completed within budget, else the reason.

    Order: a launcher failure (the harness could not run the agent) is ``infrastructure``; a step that did
    not complete after a provider failure the harness recorded is that provider reason; a harness resource
    limit the gateway enforced is ``resource_limit``, a model budget ``budget_exhausted``; then the agent's
    own status, where an unverified provider claim counts as its exit; a completed step over its dollar
    budget is ``budget_exhausted``."""
    kinds = [o.kind for o in observed]
    if FailureKind.LAUNCHER in kinds:
        return Reason.INFRASTRUCTURE
    completed = result.status is AgentStatus.COMPLETED
    provider = [o.kind for o in observed if o.kind in _PROVIDER]
    if not completed and provider:
        return _PROVIDER[provider[-1]]
    if not completed and FailureKind.RESOURCE in kinds:
        return Reason.RESOURCE_LIMIT
    if not completed and FailureKind.BUDGET in kinds:
        return Reason.BUDGET_EXHAUSTED
    if not completed:
        return Reason.CONTEXT_OVERFLOW if result.context_overflow else _BY_STATUS[result.status]
    limit, cost = budget.max_cost_usd, result.usage.cost_usd
    if limit is not None and cost is not None and cost > limit:
        return Reason.BUDGET_EXHAUSTED
    return None


def check_reason(*, harness_error: bool, passed: bool, timed_out: bool = False) -> Reason:
    """How a check on a frozen submission ended: the check could not run (``check_infrastructure``,
    pending: re-evaluated, the agent never re-run), passed, ran out of its fixed budget because of the
    submission (``verifier_timeout``), or failed."""
    if harness_error:
        return Reason.CHECK_INFRASTRUCTURE
    if passed:
        return Reason.PASSED
    return Reason.VERIFIER_TIMEOUT if timed_out else Reason.CHECKS_FAILED


PROTOCOLS = ("takeover", "specpath", "journey", "pace")
_RETRIED = "invalid, re-run at the same budget, attrition after 3 attempts"

EVENTS: dict[str, str] = {
    "adapter_raises": "the agent's adapter raises an exception",
    "tool_exits_nonzero": "the agent's tool exits non-zero (or crashes, or is killed at its memory cap)",
    "provider_text_without_call": "the tool prints a provider-error text (\"429 rate limit\") and made no "
                                  "model call",
    "upstream_429_then_200": "the provider answers 429, then 200 on the gateway's or client's retry",
    "upstream_5xx_x3": "the provider answers 5xx on every retry and the step ends without completing",
    "agent_timeout": "the agent uses up its wall-clock budget",
    "hostile_scratch": "the agent leaves a deep tree, a FIFO or 10^5 files in its HOME/TMPDIR scratch",
    "empty_submission": "the agent completes and changes nothing",
    "launcher_failure": "the sandbox launcher cannot start the agent's process",
    "check_exits_unexpectedly_twice": "the submission makes the check's test process exit with 5 (neither 0 "
                                      "nor 1), and again on the restored re-check of the same submission",
}


def _agent_failure(reason: Reason) -> dict[str, tuple[str, str]]:
    """A scored agent failure: the row fails at the step (takeover, specpath); PACE scores what the agent
    left; journey goes on with the next turn."""
    return {"takeover": ("scored", reason.value), "specpath": ("scored", reason.value),
            "journey": ("scored", Reason.EVALUATED.value), "pace": ("scored", Reason.EVALUATED.value)}


def _everywhere(reason: Reason) -> dict[str, tuple[str, str]]:
    return {p: (status_of(reason).value, reason.value) for p in PROTOCOLS}


EVENT_OUTCOMES: dict[str, dict[str, tuple[str, str]]] = {
    "adapter_raises": _agent_failure(Reason.AGENT_EXIT),
    "tool_exits_nonzero": _agent_failure(Reason.AGENT_EXIT),
    "provider_text_without_call": _agent_failure(Reason.AGENT_EXIT),
    "upstream_429_then_200": _agent_failure(Reason.EMPTY_SUBMISSION),
    "upstream_5xx_x3": _everywhere(Reason.PROVIDER_ERROR),
    "agent_timeout": _agent_failure(Reason.AGENT_TIMEOUT),
    "hostile_scratch": _agent_failure(Reason.EMPTY_SUBMISSION),
    "empty_submission": _agent_failure(Reason.EMPTY_SUBMISSION),
    "launcher_failure": _everywhere(Reason.INFRASTRUCTURE),
    "check_exits_unexpectedly_twice": _agent_failure(Reason.CHECKS_FAILED),
}
"""event -> protocol -> (row status, row reason) for an agent that otherwise changes nothing (so a
completed step is an empty submission). Takeover's row reason is its coding stage's. PACE runs no check
process (its scorer reads the candidate), so a submission's exit code changes nothing there."""
assert set(EVENT_OUTCOMES) == set(EVENTS)


def readme_verdict_table() -> str:
    """The "same event, same verdict" table of docs/runs.md, generated from `EVENT_OUTCOMES`."""
    head = "| agent-side event | " + " | ".join(PROTOCOLS) + " |"
    lines = [head, "|---" * (len(PROTOCOLS) + 1) + "|"]
    for event, meaning in EVENTS.items():
        cells = []
        for p in PROTOCOLS:
            status, reason = EVENT_OUTCOMES[event][p]
            cells.append(f"{status} `{reason}`" + (f" ({_RETRIED})" if status == "invalid" and p == "takeover"
                                                    else ""))
        lines.append(f"| {meaning} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
