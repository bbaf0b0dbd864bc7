"""Oracle inputs and the restricted projection (ReqMemBench §4.3, appendix D.2, Table 15).

* Oracle Pre-State gives the agent the gold pre-request state G⁻ of every affected pre-existing
  requirement, under *neutral* references (``req_01``, ...), and an empty history.
* Oracle Post-State gives the coding stage the gold post-request state G⁺ directly.
* Both coding stages see only the *restricted projection*: per requirement its reference, summary and
  final state. The projection drops the request, the history, pre-states, the decision, change types
  and removed attribute keys.

Gold for oracle conditions is the C1 final gold (no history is shown, so the full-history gold applies).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reqbench.core.hashing import read_json
from reqbench.protocols.takeover.scoring.instances import TargetInstances
from reqbench.protocols.takeover.scoring.rq3 import removed_attribute_keys

ORACLE_GOLD_CONDITION = "C1"


def neutral_refs(instances: TargetInstances) -> dict[str, str]:
    """Affected requirement id -> neutral reference, in the gold's affected-requirement order."""
    rids = list(instances.rq3.gold.affected_requirement_transitions)
    return {rid: f"req_{i + 1:02d}" for i, rid in enumerate(rids)}


def _summary(instances: TargetInstances, rid: str) -> str:
    gold = instances.rq3.gold.affected_requirement_alignment_gold
    return gold[rid].canonical_summary if rid in gold else "requirement"


def oracle_pre_state(instances: TargetInstances) -> list[dict[str, Any]]:
    """G⁻ for Oracle Pre-State: affected requirements that existed before the request."""
    refs = neutral_refs(instances)
    raw = read_json(Path(instances.rq3.path))["construction_gold"]["affected_requirement_transitions"]
    out = []
    for rid in refs:
        before = raw.get(rid, {}).get("before")
        if before is None:  # introduced by the request: appears only in the post-state
            continue
        out.append({"requirement_ref": refs[rid], "requirement_summary": _summary(instances, rid),
                    "pre_task_state": before})
    return out


def gold_decision(instances: TargetInstances) -> str:
    return instances.final_gold(ORACLE_GOLD_CONDITION).decision


def gold_projection(instances: TargetInstances) -> list[dict[str, Any]] | None:
    """Restricted projection of G⁺ (Oracle Post-State coding input); None when the gold is CLARIFY."""
    final = instances.final_gold(ORACLE_GOLD_CONDITION)
    if final.decision != "ACT" or not final.post_task_states:
        return None
    refs = neutral_refs(instances)
    return [{"requirement_ref": refs.get(rid, rid.lower()), "requirement_summary": _summary(instances, rid),
             "state": state} for rid, state in final.post_task_states.items()]


def response_projection(response: dict[str, Any]) -> list[dict[str, Any]]:
    """Restricted projection of a frozen ACT response (Oracle Pre-State coding input)."""
    return [{"requirement_ref": item["requirement_ref"], "requirement_summary": item["requirement_summary"],
             "state": item["state"]} for item in response.get("post_task_states") or []]


def oracle_pre_gold_response(instances: TargetInstances) -> dict[str, Any]:
    """The response a perfect Oracle Pre-State agent gives (the demo's gold responder)."""
    refs = neutral_refs(instances)
    requirements = [{**item, "evidence_message_ids": []} for item in oracle_pre_state(instances)]
    final = instances.final_gold(ORACLE_GOLD_CONDITION)
    rq3 = instances.rq3.gold
    if final.decision == "ACT":
        posts = []
        for rid, state in (final.post_task_states or {}).items():
            tr = rq3.affected_requirement_transitions.get(rid)
            posts.append({"requirement_ref": refs[rid], "requirement_summary": _summary(instances, rid),
                          "change_type": tr.delta.change_type if tr else "MODIFIED",
                          "removed_attribute_keys": removed_attribute_keys(rq3, rid), "state": state})
        return {"requirements": requirements, "decision": "ACT", "post_task_states": posts,
                "clarifications": []}
    clarifications = [{"requirement_ref": refs.get(b.requirement_id, "req_00"),
                       "requirement_summary": _summary(instances, b.requirement_id),
                       "dimension": b.dimension, "field": b.field,
                       "missing_information": b.missing_information, "question": b.missing_information}
                      for b in final.blocking_clarifications]
    return {"requirements": requirements, "decision": "CLARIFY", "post_task_states": None,
            "clarifications": clarifications}
