"""Flat facts of one row's result, whatever the protocol: outcome, score, reason, cost, tokens, seconds.

Every protocol stores a differently shaped result JSON; the viewer's row table and `reqbench export`
need the same few columns for all of them. `flat_facts` reads the known shapes (takeover delivery and
diagnostic rows, specpath, journey, pace) and falls back to common key names for any other protocol.
"""

from __future__ import annotations

from typing import Any

FLAT_COLUMNS = ("outcome", "score", "reason", "cost_usd", "tokens", "seconds")


def _num(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    return float(value) if isinstance(value, int | float) else None


def _usage(usage: Any) -> tuple[float | None, float | None]:
    if not isinstance(usage, dict):
        return None, None
    tokens = [_num(usage.get(k)) for k in ("prompt_tokens", "completion_tokens")]
    total = sum(t for t in tokens if t is not None) if any(t is not None for t in tokens) else None
    return _num(usage.get("cost_usd")), total


def flat_facts(status: str, result: dict[str, Any], detail: str = "") -> dict[str, Any]:
    """``{outcome, score, reason, cost_usd, tokens, seconds}`` for a row (None where unknown)."""
    facts: dict[str, Any] = dict.fromkeys(FLAT_COLUMNS)
    if status in ("invalid", "unstarted"):
        facts["outcome"] = status
        facts["reason"] = (detail or "").strip().splitlines()[-1][:200] if detail.strip() else None
        return facts
    raw_agent = result.get("agent")
    agent: dict[str, Any] = raw_agent if isinstance(raw_agent, dict) else {}
    if isinstance(result.get("delivery"), dict):  # takeover delivery row
        d = result["delivery"]
        facts.update(outcome=d.get("decision"), score=_num(d.get("score")), reason=d.get("reason"))
    elif result.get("kind") == "diagnostic":  # takeover Phase-A row
        phase_a: dict[str, Any] = result.get("phase_a") or {}
        raw_score = result.get("score")
        score: dict[str, Any] = raw_score if isinstance(raw_score, dict) else {}
        rq3 = score.get("rq3") if isinstance(score, dict) else None
        facts.update(outcome=(phase_a or {}).get("decision") or score.get("status"),
                     score=_num((rq3 or {}).get("post_state_score")) if isinstance(rq3, dict) else None,
                     reason="; ".join(map(str, (phase_a or {}).get("problems") or [])) or score.get("status"))
    elif "end_reason" in result:  # journey session
        facts.update(outcome=result.get("end_reason"), score=_num(result.get("final_f2p")),
                     reason=f"proc F2P {result.get('proc_f2p')}, confidence {result.get('final_confidence')}",
                     tokens=_num(result.get("assistant_tokens")))
    elif "verdicts" in result and "score" in result:  # pace case
        verdicts = result.get("verdicts") or {}
        covered = sum(1 for v in verdicts.values() if v == "Covered")
        facts.update(outcome="complete" if result.get("complete") else "incomplete",
                     score=_num(result.get("score")), reason=f"{covered}/{len(verdicts)} code points covered")
    else:  # specpath and any protocol following the plain convention
        facts.update(outcome=result.get("outcome") or result.get("decision") or status,
                     score=_num(result.get("score")), reason=result.get("reason"))
        if facts["score"] is None and result.get("outcome") in ("success", "failure"):
            facts["score"] = 1.0 if result["outcome"] == "success" else 0.0
    cost, tokens = _usage(agent.get("usage"))
    facts["cost_usd"] = cost if cost is not None else _num(result.get("cost_usd"))
    if facts["tokens"] is None:
        facts["tokens"] = tokens
    facts["seconds"] = _num(agent.get("wall_seconds")) or _num(result.get("agent_seconds"))
    if facts["reason"] is not None and not isinstance(facts["reason"], str):
        facts["reason"] = str(facts["reason"])
    return facts
