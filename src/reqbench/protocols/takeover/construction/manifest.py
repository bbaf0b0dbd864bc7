"""``rq_instance_manifest.json``: the per-project map from targets to instance files and conditions
(FORMAT.md (f.5), ``rq-instance-manifest-v2``).

Per target it records each instance file with its canonical content hash, and per condition the history
mode, the canonical hash of the history id list and the reasoning RQs the condition serves. Policy texts
are reqbench's own wording of the rules implemented in `conditions.py` and `rq_common.py`.
"""

from __future__ import annotations

from typing import Any

from reqbench.core.hashing import sha256_json
from reqbench.protocols.takeover.construction.conditions import (
    CONDITIONS,
    HISTORY_MODES,
    active_rqs,
    history_fingerprint,
)
from reqbench.protocols.takeover.construction.rq_common import (
    REASONING_RQS,
    TargetContext,
    diagnostic_exclusion,
    difficulty,
    readiness,
)

MANIFEST_SCHEMA_VERSION = "rq-instance-manifest-v2"


def instance_manifest(
    project_id: str, release: str, contexts: list[TargetContext], instances: dict[str, list[dict[str, Any]]]
) -> dict[str, Any]:
    """The manifest object for one build (targets in catalog order)."""
    by_target: dict[str, dict[str, dict[str, Any]]] = {}
    for rq in instances:
        for inst in instances[rq]:
            by_target.setdefault(inst["target_id"], {})[rq] = {
                "file": f"{rq}/{inst['instance_id']}.json",
                "content_sha256": sha256_json(inst),
                "readiness": inst.get("readiness", readiness()),
            }
    targets = []
    for ctx in sorted(contexts, key=lambda c: c.target.position):
        turns = ctx.target.position
        targets.append(
            {
                "target_id": ctx.target.target_id,
                "target_message_id": ctx.target.message_id,
                "target_fingerprint": ctx.fingerprint,
                "turns": turns,
                "difficulty": difficulty(turns),
                "instances": by_target.get(ctx.target.target_id, {}),
                "conditions": {
                    c: {
                        "history_mode": HISTORY_MODES[c],
                        "history_sha256": history_fingerprint(ctx.histories[c]),
                        "active_rqs": active_rqs(c, ctx.applicable),
                    }
                    for c in CONDITIONS
                },
            }
        )
    rq_dirs = [rq for rq in instances if rq in REASONING_RQS or instances[rq]]
    counts = {rq: len(instances[rq]) for rq in rq_dirs}
    policy = {  # the formal diagnostic set (B.1): each of RQ1-RQ3 needs both
        "RQ1": "HAS_RELEVANT_HISTORICAL_REQUIREMENT_AND_AFFECTED_TARGET_TRANSITION",
        "RQ2": "HAS_RELEVANT_HISTORICAL_REQUIREMENT_AND_AFFECTED_TARGET_TRANSITION",
        "RQ3": "HAS_RELEVANT_HISTORICAL_REQUIREMENT_AND_AFFECTED_TARGET_TRANSITION",
    }
    if "RQ4" in rq_dirs:
        policy["RQ4"] = "AFFECTED_TRANSITION_AND_MATCHING_CODE_ENVIRONMENT"
    excluded = [{"target_id": ctx.target.target_id, "reason": why}
                for ctx in sorted(contexts, key=lambda c: c.target.position)
                if (why := diagnostic_exclusion(ctx.target)) is not None]
    return {
        "schema_version": MANIFEST_SCHEMA_VERSION,
        "input_release": release,
        "project_id": project_id,
        "construction_scope": "RQ_INSTANCES_AND_PHASE_A_PACKAGES",
        "layout": {"rq_directories": rq_dirs, "one_json_file_per_target_rq_pair": True},
        "condition_protocol": {
            "C1": HISTORY_MODES["C1"],
            "C2": HISTORY_MODES["C2"],
            "no_history_is_formal_condition": False,
        },
        "turns_policy": {
            "definition": "catalog messages strictly before the target message",
            "difficulty_bins": {"SHORT": "0-25", "MEDIUM": "26-50", "LONG": ">50"},
        },
        "applicability_policy": policy,
        "rq_counts": counts,
        "total_instance_count": sum(counts.values()),
        "targets": targets,
        **({"diagnostic_exclusions": excluded} if excluded else {}),
    }
