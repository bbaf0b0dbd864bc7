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

FLAT_COLUMNS = ("outcome", "protocol_outcome", "score", "reason", "detail", "cost_usd", "tokens", "seconds")
OUTCOMES = ("success", "failure", "invalid", "pending", "unstarted")


def _num(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    return float(value) if isinstance(value, int | float) else None


def protocol_view(result: dict[str, Any]) -> tuple[Any, float | None, str | None, bool | None]:
    """``(protocol outcome, score, one-line prose, success)`` of a scored result, from the known shapes
    (takeover delivery and diagnostic rows, journey, PACE) or the plain convention (``outcome``,
    ``score``, ``reason``); success is None where the shape does not say."""
    if isinstance(result.get("delivery"), dict):  # takeover delivery row
        d = result["delivery"]
        return d.get("decision"), _num(d.get("score")), d.get("reason"), None
    if result.get("kind") == "diagnostic":  # takeover Phase-A row
        phase_a: dict[str, Any] = result.get("phase_a") or {}
        raw_score = result.get("score")
        score: dict[str, Any] = raw_score if isinstance(raw_score, dict) else {}
        rq3 = score.get("rq3")
        value = _num(rq3.get("post_state_score")) if isinstance(rq3, dict) else None
        prose = "; ".join(map(str, phase_a.get("problems") or [])) or score.get("status")
        return phase_a.get("decision") or score.get("status"), value, prose, None if value is None else value >= 1
    if "end_reason" in result:  # journey session
        final = _num(result.get("final_f2p"))
        prose = f"proc F2P {result.get('proc_f2p')}, confidence {result.get('final_confidence')}"
        return result.get("end_reason"), final, prose, None if final is None else final >= 1
    if "verdicts" in result and "score" in result:  # pace case
        verdicts = result.get("verdicts") or {}
        covered = sum(1 for v in verdicts.values() if v == "Covered")
        complete = bool(result.get("complete"))
        return ("complete" if complete else "incomplete", _num(result.get("score")),
                f"{covered}/{len(verdicts)} code points covered", complete)
    label = result.get("outcome") or result.get("decision")
    score_value = _num(result.get("score"))
    if score_value is None and label in ("success", "failure"):
        score_value = 1.0 if label == "success" else 0.0
    flag = result.get("success")
    success = flag if isinstance(flag, bool) else None if score_value is None else score_value >= 1
    prose = result.get("reason")
    return label, score_value, None if prose is None else str(prose), success


def row_facts(status: str, reason: str, result: dict[str, Any], detail: str = "",
              calls: dict[str, Any] | None = None) -> dict[str, Any]:
    """The `FLAT_COLUMNS` of one row (see the module docstring); `calls` is the row's entry of
    `StoreRecorder.totals()` (None when it made no model call)."""
    facts: dict[str, Any] = dict.fromkeys(FLAT_COLUMNS)
    facts["reason"] = reason or ""
    prose: str | None = None
    if status == "scored":
        label, score, prose, success = protocol_view(result)
        facts.update(protocol_outcome=None if label is None else str(label), score=score)
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
    raw_agent = result.get("agent")
    agent: dict[str, Any] = raw_agent if isinstance(raw_agent, dict) else {}
    facts["seconds"] = _num(agent.get("wall_seconds")) or _num(result.get("agent_seconds"))
    return facts

