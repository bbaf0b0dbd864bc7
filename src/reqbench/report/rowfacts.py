"""Flat facts of one row, the same for every protocol: what `reqbench export`, the viewer's row table and
its row page show, column by column. Each column means one thing whatever the protocol:

* ``outcome`` -- one vocabulary (`OUTCOMES`): ``success`` or ``failure`` for a scored row, else its
  status (``invalid``, ``pending``, ``unstarted``). A scored row is a success when its reason is
  ``passed``, or, for a graded row (``evaluated``), when the protocol's own success rule holds (PACE:
  complete delivery; journey: every F2P test passes at the end; takeover Phase A: the post-state
  score is 1; any other protocol, and rows stored before reasons: a ``success`` flag or a score of 1);
* ``protocol_outcome`` -- the protocol's own label (takeover's gate decision, journey's end reason,
  PACE's complete/incomplete, specpath's outcome); empty for unscored rows;
* ``score`` -- the protocol's number for the row (None where it has none);
* ``reason`` -- always the outcome taxonomy code of the attempt (`core.execute.outcomes.Reason`);
* ``detail`` -- prose: the protocol's one-line explanation, then the attempt's own detail;
* ``cost_usd`` / ``tokens`` -- the row's model calls as recorded in ``model_calls`` (the gateway's and
  the model client's, `report.model_usage`), never an agent's self-report; None without calls;
* ``seconds`` -- the agent's wall-clock time.
"""

from __future__ import annotations

from typing import Any

from reqbench.core.execute.outcomes import Reason
from reqbench.core.execute.settings import ProtocolResult

FLAT_COLUMNS = ("outcome", "protocol_outcome", "score", "reason", "detail", "cost_usd", "tokens", "seconds")
OUTCOMES = ("success", "failure", "invalid", "pending", "unstarted")


def row_facts(status: str, reason: str, result: ProtocolResult, detail: str = "",
              calls: dict[str, Any] | None = None) -> dict[str, Any]:
    """The `FLAT_COLUMNS` of one row (see the module docstring); `result` is the protocol's model, which
    answers for its own label, score, success, prose and seconds (`ProtocolResult.row_label` ...); `calls`
    is the row's entry of `StoreRecorder.totals()` (None when it made no model call)."""
    facts: dict[str, Any] = dict.fromkeys(FLAT_COLUMNS)
    facts["reason"] = reason or ""
    prose: str | None = None
    if status == "scored":
        label, score, prose, success = result.row_label(), result.row_score(), result.row_prose(), result.row_success()
        facts.update(protocol_outcome=label, score=score)
        if reason == Reason.PASSED.value:
            success = True
        elif reason and reason != Reason.EVALUATED.value:
            success = False
        elif success is None:  # a graded row (or one stored before reasons): full marks
            success = score is not None and score >= 1
        facts["outcome"] = "success" if success else "failure"
    else:
        facts["outcome"] = status if status in OUTCOMES else "invalid"
    own = (detail or "").strip()
    parts = [p for p in (prose, own) if p and p != reason]
    facts["detail"] = "\n".join(dict.fromkeys(parts))
    if calls:
        facts["tokens"] = int(calls["prompt_tokens"] + calls["completion_tokens"])
        facts["cost_usd"] = calls["cost_usd"]
    facts["seconds"] = result.row_seconds()
    return facts

