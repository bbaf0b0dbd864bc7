"""Score one target under one condition: `score_target` (what `reqbench takeover score` and the
end-to-end runner call) and `gold_response` (a response built from gold — the maximum on every metric).

Status of a target: ``agent_failure`` when the response is missing or breaks the response contract
(every applicable higher-is-better metric 0, C.2); ``pending`` when a judge answer is missing (the
affected numbers are withheld, never zero); ``scored`` otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reqbench.core.judges.base import Judge
from reqbench.protocols.takeover.judging import JudgeSession
from reqbench.protocols.takeover.phase_a.response import ResponseCheck, check_response
from reqbench.protocols.takeover.scoring.consistency import ConsistencyReport, check_consistency
from reqbench.protocols.takeover.scoring.instances import Rq1Gold, Rq2Gold, Rq3Gold, TargetInstances
from reqbench.protocols.takeover.scoring.rq1 import Rq1Result, score_rq1
from reqbench.protocols.takeover.scoring.rq2 import Rq2Result, score_rq2
from reqbench.protocols.takeover.scoring.rq3 import Rq3Result, removed_attribute_keys, score_rq3


@dataclass
class TargetScore:
    target_id: str
    condition: str
    status: str
    rq3: Rq3Result
    rq1: Rq1Result | None = None
    rq2: Rq2Result | None = None
    consistency: ConsistencyReport | None = None
    response_sha256: str | None = None
    problems: list[str] = field(default_factory=list)
    judge_records: list[dict[str, Any]] = field(default_factory=list)

    @property
    def pending(self) -> list[str]:
        return [p for r in (self.rq1, self.rq2, self.rq3) if r is not None for p in r.pending]

    def as_json(self) -> dict[str, Any]:
        """The `score --json` shape: numbers are fractions in [0, 1]; null where N/A."""
        rq3 = self.rq3.as_json()
        for key in ("exact", "strict_clarification"):
            if rq3[key] is not None:
                rq3[key] = 1.0 if rq3[key] else 0.0
        return {
            "status": self.status, "target_id": self.target_id, "condition": self.condition,
            "response_sha256": self.response_sha256, "problems": list(self.problems),
            "pending": self.pending,
            "rq1": self.rq1.as_json() if self.rq1 else None,
            "rq2": self.rq2.as_json() if self.rq2 else None,
            "rq3": rq3,
            "consistency": self.consistency.as_json() if self.consistency else None,
            "judge_calls": len(self.judge_records),
        }


def score_target(instances: TargetInstances, response: Any, condition: str, judge: Judge | JudgeSession,
                 *, attempts: int = 3) -> TargetScore:
    """Score `response` (parsed JSON, a `ResponseCheck`, or None when nothing was submitted) for one
    target under `condition` (C1 or C2) with `judge`. RQ1 is scored under C1 only."""
    session = judge if isinstance(judge, JudgeSession) else JudgeSession(judge, attempts)
    if not session.messages:
        session.messages = instances.message_texts()  # cited evidence is quoted to the judge (D.3)
    first_record = len(session.records)
    visible = instances.visible_message_ids(condition)
    if isinstance(response, ResponseCheck):
        check = response
    elif response is None:
        check = ResponseCheck(None, ["no response was submitted"])
    else:
        check = check_response(response, visible)
    frozen = check.frozen.response if check.frozen else None
    rq3_gold: Rq3Gold = instances.rq3.gold
    task_text = str(instances.rq3.meta.target_task.get("text", ""))
    rq3 = score_rq3(rq3_gold, condition, frozen, session, task_text, instances.rq3.path)
    rq1 = None
    if instances.rq1 is not None and condition == "C1":
        rq1 = score_rq1(instances.rq1.gold, frozen, session)
    rq2 = score_rq2(instances.rq2.gold, frozen, session, instances.rq2.path) if instances.rq2 else None
    consistency = None
    if rq1 and rq2 and rq1.alignment is not None and rq2.alignment is not None:
        consistency = check_consistency(rq1.alignment, rq2.alignment)
    if frozen is None:
        status = "agent_failure"
    elif any(r is not None and r.status == "pending" for r in (rq1, rq2, rq3)):
        status = "pending"
    else:
        status = "scored"
    return TargetScore(instances.target_id, condition, status, rq3, rq1, rq2, consistency,
                       check.frozen.sha256 if check.frozen else None, list(check.problems),
                       session.records[first_record:])


_BLANK_STATE: dict[str, Any] = {"attributes": {}, "scope": {}, "lifecycle_status": None, "ambiguity": None,
                "execution": None}


def gold_ref(requirement_id: str) -> str:
    """The response reference used for a gold requirement: its id in lower case (never reserved)."""
    return requirement_id.lower()


def gold_response(instances: TargetInstances, condition: str) -> dict[str, Any]:
    """A valid ``rq-agent-response-v1`` built from the gold of `condition`: gold requirements with all
    visible acceptable evidence and gold pre-states, the gold decision, and gold post-states (with the
    gold removal lists) or gold blockers whose question quotes the first acceptable fact."""
    visible = {str(m) for m in instances.visible_message_ids(condition)}
    rq1: Rq1Gold | None = instances.rq1.gold if instances.rq1 else None
    rq2: Rq2Gold | None = instances.rq2.gold if instances.rq2 else None
    rq3: Rq3Gold = instances.rq3.gold
    rids = rq2.gold_requirement_ids if rq2 else (rq1.relevant_requirement_ids if rq1 else [])
    requirements = []
    for rid in rids:
        if rq1 and rid in rq1.gold_requirement_atoms:
            atom = rq1.gold_requirement_atoms[rid]
            summary = atom.canonical_summary
            ids = [m for g in atom.required_evidence_groups for m in g.acceptable_message_ids]
        else:
            assert rq2 is not None
            summary = rq2.requirement_summaries.get(rid, rid)
            ids = list(rq2.alignment_evidence_message_ids.get(rid, []))
        evidence = [m for m in dict.fromkeys(ids) if str(m) in visible]
        state = rq2.states.get(rid, _BLANK_STATE) if rq2 else _BLANK_STATE
        requirements.append({"requirement_ref": gold_ref(rid), "requirement_summary": summary,
                             "evidence_message_ids": evidence, "pre_task_state": state})
    final = instances.final_gold(condition)
    summaries = rq3.affected_requirement_alignment_gold

    def summary_of(rid: str) -> str:
        return summaries[rid].canonical_summary if rid in summaries else rid

    if final.decision == "ACT":
        posts = []
        for rid, state in (final.post_task_states or {}).items():
            tr = rq3.affected_requirement_transitions.get(rid)
            posts.append({"requirement_ref": gold_ref(rid), "requirement_summary": summary_of(rid),
                          "change_type": tr.delta.change_type if tr else "MODIFIED",
                          "removed_attribute_keys": removed_attribute_keys(rq3, rid), "state": state})
        return {"requirements": requirements, "decision": "ACT", "post_task_states": posts,
                "clarifications": []}
    clarifications = [{"requirement_ref": gold_ref(b.requirement_id),
                       "requirement_summary": summary_of(b.requirement_id), "dimension": b.dimension,
                       "field": b.field, "missing_information": b.missing_information,
                       "question": b.acceptable_question_facts[0] if b.acceptable_question_facts
                       else b.missing_information}
                      for b in final.blocking_clarifications]
    return {"requirements": requirements, "decision": "CLARIFY", "post_task_states": None,
            "clarifications": clarifications}
