"""``gold_states.json`` (``task-gold-v2``): one row per target with pre/post snapshots (FORMAT.md (d)).

The file holds state *ids* only; consumers expand them through the state graph (`states.py`).
"""

from __future__ import annotations

from typing import Any

from reqbench.protocols.takeover.annotation.project import Project
from reqbench.protocols.takeover.construction.targets import Snapshot, Target

GOLD_SCHEMA_VERSION = "task-gold-v2"


def _states(snap: Snapshot) -> list[dict[str, str]]:
    return [{"requirement_id": rid, "state_id": sid} for rid, sid in snap]


def gold_row(project: Project, target: Target) -> dict[str, Any]:
    """The gold row of one target; selection metadata is copied from the selected-target row."""
    row, mid = target.row, target.message_id
    return {
        "task_gold_id": f"{target.target_id}_GOLD",
        "target_id": target.target_id,
        "candidate_id": row.get("candidate_id", f"{project.project_id}_CANDIDATE_MSG_{mid}"),
        "conversation_turn_index": target.position + 1,
        "history_turn_count": target.position,
        "selection_source": row.get("selection_source"),
        "primary_rq_targets": row.get("primary_rq_targets"),
        "ai_selection_score": row.get("ai_selection_score"),
        "ai_score_threshold": row.get("ai_score_threshold"),
        "target_task": {
            "source_message_id": mid,
            "speaker": target.message["speaker"],
            "text": target.message["text"],
        },
        "task_event_ids": list(target.task_event_ids),
        "affected_requirement_ids": list(target.affected_requirement_ids),
        "preserved_requirement_ids": list(target.preserved_requirement_ids),
        "pre_task_gold_state": {
            "boundary": {"before_message_id": mid},
            "requirement_states": _states(target.pre),
        },
        "post_task_gold_state": {
            "boundary": {"through_message_id": mid},
            "requirement_states": _states(target.post),
        },
    }


def gold_states(project: Project, targets: list[Target]) -> dict[str, Any]:
    """The whole ``gold_states.json`` object, rows in selected order."""
    return {
        "schema_version": GOLD_SCHEMA_VERSION,
        "project_id": project.project_id,
        "task_gold_states": [gold_row(project, t) for t in targets],
    }
