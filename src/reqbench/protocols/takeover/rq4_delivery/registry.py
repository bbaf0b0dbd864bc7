"""RQ4: delivery in the takeover repository, judged by an agent over acceptance criteria (paper 6.1-6.2,
3.1, appendix C.2; FORMAT.md (g.2) "as implemented").

The paper describes RQ4 as fixed hidden validators; the released pipeline replaced them with a
tool-using *agent judge* that checks each acceptance criterion in the delivered repository, next to
build and regression scripts. reqbench follows the released format (the protocol README lists this
departure):

* **Applicability** (f.1): RQ4 applies to a target with target events and a matching code environment
  (`rq4_delivery.environments`). Only targets whose criteria proposal proceeds to validator authoring are
  included.
* **Eligibility per condition**: the target is eligible under C1/C2 when that condition's RQ3 gold is
  ACT (``RQ3_NOT_ACT`` otherwise) -- an agent can only deliver a determined post-request state.
* **Registry** (``rq4-agent-judge-registry-v1``): one record per included target, sorted by
  (project, target), with the judge contract (prompt + result schema hashes, finalizer version).
* **Instance** ``RQ4/<target>_RQ4.json``: the shared envelope plus the registry record as
  ``construction_gold``; readiness allows formal execution only when the environment has no blocker.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path
from typing import Any

from reqbench.core.hashing import pretty_json, sha256_text
from reqbench.protocols.takeover.construction.conditions import CONDITIONS
from reqbench.protocols.takeover.construction.rq_common import TargetContext, envelope
from reqbench.protocols.takeover.rq4_delivery.environments import PROCEED, CodeEnvironment, repository_identity

REGISTRY_SCHEMA_VERSION = "rq4-agent-judge-registry-v1"
REGISTRY_FILE = "rq4_agent_judge_registry.json"
FINALIZER_VERSION = "rq4-agent-judge-finalizer-v1"
SELECTION_RULE = "CRITERIA_DISPOSITION_PROCEED_TO_VALIDATOR_AUTHORING"
JUDGE_PROMPT_PATH = "prompt/rq4_agent_judge.md"
JUDGE_SCHEMA_PATH = "schema/rq4_agent_judge_result.schema.json"
_REQUIREMENT_ID = re.compile(r"\b(?:REQ|STATE|EVENT)_[A-Z0-9_]+\b")


def judge_prompt_text() -> str:
    """reqbench's agent-judge instructions (the judge contract's prompt)."""
    return (resources.files("reqbench.protocols.takeover") / "resources" / "rq4_agent_judge.md").read_text(
        encoding="utf-8"
    )


def judge_schema_text() -> str:
    """The judge-result JSON Schema (generated from `rq4_delivery.scoring.JudgeResult`)."""
    from reqbench.protocols.takeover.rq4_delivery.scoring import judge_result_schema

    return pretty_json(judge_result_schema())


def judge_contract() -> dict[str, Any]:
    """The registry's ``judge_contract``: prompt and response-schema paths with their sha256."""
    return {
        "prompt_path": JUDGE_PROMPT_PATH,
        "prompt_sha256": sha256_text(judge_prompt_text()),
        "response_schema_path": JUDGE_SCHEMA_PATH,
        "response_schema_sha256": sha256_text(judge_schema_text()),
        "finalizer_version": FINALIZER_VERSION,
    }


def matching_environment(ctx: TargetContext, envs: list[CodeEnvironment]) -> CodeEnvironment | None:
    """The environment whose folder and manifest name this target and its message (or None)."""
    tid = ctx.target.target_id
    for env in envs:
        if (
            tid.endswith("_" + env.target_suffix)
            and env.before_message_id == str(ctx.target.message_id)
            and str(env.manifest.get("target_id")) == tid
        ):
            return env
    return None


def rq4_applicable(ctx: TargetContext, env: CodeEnvironment | None) -> bool:
    """FORMAT.md (f.1): target events, a matching code environment, and an included criteria proposal."""
    return bool(ctx.target.task_event_ids) and env is not None and env.included


def condition_eligibility(rq3_instance: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per condition: the RQ3 gold decision and whether RQ4 is eligible (gold ACT) or excluded."""
    finals = rq3_instance["construction_gold"]["final_gold_by_condition"]
    out = {}
    for c in CONDITIONS:
        decision = finals[c]["decision"]
        act = decision == "ACT"
        out[c] = {
            "rq3_gold_decision": decision,
            "rq4_eligible": act,
            "status": "ELIGIBLE" if act else "EXCLUDED",
            "exclusion_reason": None if act else "RQ3_NOT_ACT",
        }
    return out


def environment_blockers(ctx: TargetContext, env: CodeEnvironment, internal: list[str]) -> list[str]:
    """Everything that keeps a matching environment from formal execution."""
    blockers = list(env.blockers)
    declared = env.manifest.get("target_event_ids")
    if declared is not None and sorted(map(str, declared)) != sorted(map(str, ctx.target.task_event_ids)):
        blockers.append("manifest target_event_ids differ from the target's events")
    assert env.proposal is not None
    known = set(internal)
    for c in env.proposal.acceptance_criteria:
        text = " ".join(c.texts())
        leaked = sorted({m for m in _REQUIREMENT_ID.findall(text)} | {w for w in known if w in text})
        if leaked:
            blockers.append(f"criterion {c.criterion_id} names internal ids {leaked}")
    return blockers


def registry_target(
    ctx: TargetContext, env: CodeEnvironment, rq3_instance: dict[str, Any], rq3_file: tuple[str, str], base: Path
) -> dict[str, Any]:
    """One ``targets[]`` record of the registry (released key order); `rq3_file` is (path, file sha)."""
    assert env.proposal is not None
    identity = repository_identity(env, base)
    return {
        "project_id": ctx.project.project_id,
        "target_id": ctx.target.target_id,
        "target_message_id": ctx.target.message_id,
        "target_fingerprint": ctx.fingerprint,
        "status": "READY_FOR_PHASE_A_LINK",
        "condition_eligibility": condition_eligibility(rq3_instance),
        "acceptance_criteria": [c.model_dump(mode="json") for c in env.proposal.acceptance_criteria],
        "evaluation_commands": {k: list(env.proposal.evaluation_commands[k]) for k in ("build", "regression")
                                if k in env.proposal.evaluation_commands},
        "code_environment": identity,
        "source_identity": {
            "work_item_path": identity["manifest_path"],
            "work_item_sha256": identity["manifest_sha256"],
            "criteria_proposal_path": _rel(env.criteria_path, base),
            "criteria_proposal_sha256": _sha(env.criteria_path),
            "rq3_instance_path": rq3_file[0],
            "rq3_instance_sha256": rq3_file[1],
        },
    }


def _rel(p: Path, base: Path) -> str:
    try:
        return p.relative_to(base).as_posix()
    except ValueError:
        return p.as_posix()


def _sha(p: Path) -> str:
    from reqbench.core.hashing import sha256_file

    return sha256_file(p)


def build_rq4(ctx: TargetContext, record: dict[str, Any], env: CodeEnvironment, blockers: list[str]
              ) -> dict[str, Any]:
    """The RQ4 instance: envelope + registry record, judge contract and the exact judge's checks."""
    assert env.proposal is not None
    gold = {
        "status": "AGENT_JUDGE_REGISTRY_TARGET",
        "registry_target": record,
        "judge_contract": judge_contract(),
        "criterion_checks": {k: list(v) for k, v in env.proposal.criterion_checks.items()},
        "verdict_rule": "SCORED PASS iff build PASS, regression PASS and every criterion PASS",
    }
    return {
        **envelope(ctx, "RQ4"),
        "construction_gold": gold,
        "readiness": {
            "construction": "COMPLETE",
            "smoke_allowed": True,
            "formal_reasoning_allowed": False,
            "formal_execution_allowed": not blockers,
            "blockers": list(blockers),
        },
    }


def package_rq4_block(instance: dict[str, Any] | None, condition: str) -> dict[str, Any]:
    """The ``rq4`` block of a Phase-A package manifest (all empty when the target has no RQ4)."""
    if instance is None:
        return {
            "eligible": False,
            "eligibility_status": None,
            "execution_ready": False,
            "exclusion_reason": None,
            "acceptance_criteria": [],
            "validator_ids": [],
            "execution_readiness_blockers": [],
        }
    record = instance["construction_gold"]["registry_target"]
    elig = record["condition_eligibility"][condition]
    blockers = instance["readiness"]["blockers"]
    return {
        "eligible": elig["rq4_eligible"],
        "eligibility_status": elig["status"],
        "execution_ready": elig["rq4_eligible"] and not blockers,
        "exclusion_reason": elig["exclusion_reason"],
        "acceptance_criteria": [c["criterion_id"] for c in record["acceptance_criteria"]],
        "validator_ids": [f"{record['target_id']}_AGENT_JUDGE"],
        "execution_readiness_blockers": list(blockers),
    }


def registry(raw_target_count: int, records: list[dict[str, Any]]) -> dict[str, Any]:
    """``rq4_agent_judge_registry.json``: the included targets sorted by (project, target)."""
    return {
        "schema_version": REGISTRY_SCHEMA_VERSION,
        "selection": {
            "raw_target_count": raw_target_count,
            "included_target_count": len(records),
            "rule": SELECTION_RULE,
        },
        "judge_contract": judge_contract(),
        "targets": sorted(records, key=lambda r: (r["project_id"], r["target_id"])),
    }


__all__ = [
    "FINALIZER_VERSION",
    "PROCEED",
    "REGISTRY_FILE",
    "build_rq4",
    "condition_eligibility",
    "environment_blockers",
    "judge_contract",
    "matching_environment",
    "package_rq4_block",
    "registry",
    "registry_target",
    "rq4_applicable",
]
