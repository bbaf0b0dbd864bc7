"""The one outcome taxonomy of reqbench: why a row ended as it did, and what that means for scoring.

Every protocol classifies each attempt with a `Reason`; the reason fixes the row's `RowStatus`
(`status_of`), so the line between "the agent failed" and "the harness could not measure" is drawn in one
place. The "Row outcomes" table of docs/runs.md is the user-facing copy of `REASONS`.

Rules (SpecPath "Run processing", PACE-Bench "Result validation"):

* an **agent-caused** condition (exit, timeout, empty submission, a submission that fails or hangs the
  checks, a budget that ran out) is always ``scored`` — never ``invalid`` nor ``pending``;
* ``invalid`` is external to the agent and observed by the harness itself (`verdict`: a provider failure the
  gateway or client recorded, a launcher failure, a harness exception). Whether the agent is run again
  depends on the reason (`reruns_agent`): a provider limit or an infrastructure failure is re-run at the
  same budget, at most `DEFAULT_MAX_ATTEMPTS` attempts in all; a harness exception or a metadata problem
  is attrition at once;
* ``pending`` means the frozen submission exists but its evaluation could not finish (judge down, check
  infrastructure): it is re-evaluated on that submission (``--resume``), the agent is never re-run.
"""

from __future__ import annotations

from dataclasses import dataclass

from reqbench.core.execute.reasons import Reason, as_reason
from reqbench.core.execute.settings import ProtocolResult
from reqbench.core.execute.types import RowOutcome, RowStatus

__all__ = ["REASONS", "Reason", "ReasonInfo", "as_reason", "check_reason", "classified", "reason_label",
           "readme_table", "reruns_agent", "status_of"]

DEFAULT_MAX_ATTEMPTS = 3
"""At most this many same-budget attempts of a row end ``invalid`` before the row is attrition."""


@dataclass(frozen=True)
class ReasonInfo:
    status: RowStatus
    meaning: str
    agent_caused: bool = False
    rerun: bool = False
    """An ``invalid`` attempt with this reason runs the agent again at the same budget (`reruns_agent`)."""


_S, _I, _P = RowStatus.SCORED, RowStatus.INVALID, RowStatus.PENDING
REASONS: dict[Reason, ReasonInfo] = {
    Reason.PASSED: ReasonInfo(_S, "the submission passed the evaluation (success)"),
    Reason.EVALUATED: ReasonInfo(_S, "a graded score was computed (PACE case score, journey session)"),
    Reason.CHECKS_FAILED: ReasonInfo(_S, "the checks ran and the submission failed them", True),
    Reason.AGENT_EXIT: ReasonInfo(_S, "the agent process exited nonzero or crashed", True),
    Reason.AGENT_TIMEOUT: ReasonInfo(_S, "the agent used up its wall-clock budget", True),
    Reason.VERIFIER_TIMEOUT: ReasonInfo(_S, "the submission made the checks exceed their fixed budget", True),
    Reason.WORKSPACE_OVER_LIMIT: ReasonInfo(_S, "the workspace grew past the size limit", True),
    Reason.EMPTY_SUBMISSION: ReasonInfo(_S, "the agent left no change", True),
    Reason.PATCH_APPLY: ReasonInfo(_S, "the submission does not apply to a fresh base", True),
    Reason.FORBIDDEN_CONTENT: ReasonInfo(_S, "the submission touches forbidden paths", True),
    Reason.BUDGET_EXHAUSTED: ReasonInfo(_S, "the cost or step budget ran out", True),
    Reason.RESOURCE_LIMIT: ReasonInfo(_S, "the agent exceeded a harness resource limit (the row's model-traffic "
                                          "store bound, request size)", True),
    Reason.INVALID_RESPONSE: ReasonInfo(_S, "the agent's response broke the response contract", True),
    Reason.CLARIFY: ReasonInfo(_S, "the agent asked for clarification instead of acting", True),
    Reason.CONTEXT_OVERFLOW: ReasonInfo(_S, "the inputs, sent whole, are longer than the model's context (the "
                                            "provider refused the prompt)", True),
    Reason.PROVIDER_RATE_LIMIT: ReasonInfo(_I, "the model provider answered 429 (rate limit)", rerun=True),
    Reason.PROVIDER_ERROR: ReasonInfo(_I, "the model provider failed (5xx, refused connection)", rerun=True),
    Reason.PROVIDER_TIMEOUT: ReasonInfo(_I, "the model provider did not answer in time", rerun=True),
    Reason.INFRASTRUCTURE: ReasonInfo(_I, "sandbox, runner or executor infrastructure failed", rerun=True),
    Reason.HARNESS_EXCEPTION: ReasonInfo(_I, "a bug in reqbench raised an exception (traceback stored)"),
    Reason.METADATA: ReasonInfo(_I, "(runs stored before the verdict table) the adapter returned a malformed "
                                    "record; now the agent's `agent_exit`"),
    Reason.JUDGE_UNAVAILABLE: ReasonInfo(_P, "the judge could not be reached or gave no usable verdict"),
    Reason.CHECK_INFRASTRUCTURE: ReasonInfo(_P, "the checks could not run (HARNESS_ERROR)"),
    Reason.EVIDENCE_UNRESOLVED: ReasonInfo(_P, "scoring evidence is unresolved (PACE)"),
}
assert set(REASONS) == set(Reason)
assert not any(i.agent_caused and i.status is not _S for i in REASONS.values())
assert not any(i.rerun and i.status is not _I for i in REASONS.values())


def reruns_agent(reason: Reason | str) -> bool:
    """Whether an ``invalid`` attempt ending for `reason` runs the agent again at the same budget.

    Rule (SpecPath §4.3 "Run processing"): "Provider-limit attempts may retry at the same budget up to three
    times"; "provider, runner, metadata, protocol, and verifier-infrastructure invalidity are excluded and
    reported as attrition". So a provider limit (`provider_rate_limit`, `provider_error`,
    `provider_timeout`) is re-run, and so is `infrastructure` (a sandbox launcher or executor that failed
    to start the row: a transient failure of this machine, re-run as reqbench's departure from the paper,
    which counts runner invalidity as attrition at once). A `harness_exception` (a bug in reqbench: the
    same code fails the same way again) and `metadata` are attrition at the first attempt, never a new
    agent attempt; so is an invalid attempt without a reason (a plugin that does not classify, or a run
    stored before reasons existed). A verifier that cannot run is ``pending``, never re-run (`status_of`).
    """
    try:
        return REASONS[Reason(reason)].rerun
    except ValueError:
        return False


def status_of(reason: Reason | str) -> RowStatus:
    """The row status a reason implies (the only mapping every protocol goes through)."""
    return REASONS[Reason(reason)].status


def reason_label(reason: Reason | str | None, detail: str = "") -> str:
    """What reports group unmeasured rows by: the reason, or (for rows stored before reasons existed)
    the first meaningful line of the detail."""
    if reason:
        return str(reason)
    lines = (detail or "").strip().splitlines()
    if not lines:
        return "no detail recorded"
    return (lines[-1] if lines[0].startswith("Traceback") else lines[0])[:160]


def readme_table() -> str:
    """The outcome table of docs/runs.md, generated from `REASONS` (a test keeps the page in step)."""
    lines = ["| status | reason | meaning | agent re-run |", "|---|---|---|---|"]
    for status in (_S, _I, _P):
        lines += [f"| {status.value} | `{r.value}` | {i.meaning} | {_rerun_text(i)} |"
                  for r, i in REASONS.items() if i.status is status]
    return "\n".join(lines)


def _rerun_text(info: ReasonInfo) -> str:
    if info.status is _P:
        return "no: re-evaluated on the frozen submission"
    if info.status is _I:
        return f"yes, same budget, {DEFAULT_MAX_ATTEMPTS} attempts in all" if info.rerun else "no: attrition"
    return "no"


def classified(reason: Reason, result: ProtocolResult | None = None, detail: str = "",
               artifacts: dict[str, bytes] | None = None) -> RowOutcome:
    """A `RowOutcome` whose status follows from `reason`; `detail` defaults to the reason, the result to an
    empty base result."""
    return RowOutcome(status_of(reason), result=ProtocolResult() if result is None else result,
                      detail=detail or reason.value,
                      artifacts=dict(artifacts or {}), reason=reason)


def check_reason(outcome: RowOutcome) -> None:
    """A reason that is unknown or contradicts the status is a protocol bug (raised as ValueError)."""
    if outcome.reason is None:
        return
    expected = status_of(outcome.reason)
    if expected is not RowStatus(outcome.status):
        raise ValueError(f"outcome reason {outcome.reason!r} means {expected.value}, "
                         f"not {RowStatus(outcome.status).value}")
