"""Builders for scoring tests: the reference fixture location, typed scoring specs for synthetic
gold (the FORMAT.md f.3 rules), and a scripted judge that answers with given raw pairs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from reqbench.core.judges.base import JudgeRequest, JudgeResponse, validate_labels
from reqbench.protocols.takeover.scoring.instances import Rq1Gold, Rq2Gold, Rq3Gold, load_target

REPO = Path(__file__).resolve().parents[3]
# CI puts shared/ beside the clone (repo_root/../shared); a git worktree one level deeper finds it
# one directory further up.
REFERENCE = next((p for p in (REPO / ".." / "shared" / "reference" / "reqmembench",
                              REPO / ".." / ".." / "shared" / "reference" / "reqmembench") if p.is_dir()),
                 REPO / ".." / "shared" / "reference" / "reqmembench")
STAGE2 = REFERENCE / "44132019" / "outputs_new" / "stage2" / "44132019"
SCHEMA = REFERENCE / "schemas" / "schema" / "rq_agent_response.schema.json"


def fixture_paths(target: str) -> tuple[Path, Path, Path]:
    if not STAGE2.is_dir():
        pytest.skip(f"ReqMemBench reference fixture not present at {STAGE2}")
    return (STAGE2 / "RQ3" / f"44132019_{target}_RQ3.json", STAGE2 / "RQ1" / f"44132019_{target}_RQ1.json",
            STAGE2 / "RQ2" / f"44132019_{target}_RQ2.json")


def fixture_target(target: str):  # type: ignore[no-untyped-def]
    rq3, rq1, rq2 = fixture_paths(target)
    return load_target(rq3, rq1, rq2)


_NORMALIZED = {"scope.persistence", "lifecycle_status", "execution.status"}


def spec_for(value: Any, path: str) -> dict[str, Any]:
    """Typed scoring spec of `value` at `path` (FORMAT.md f.3 plus the empty-container overlay)."""
    if value is None:
        if path in ("lifecycle_status", "scope.persistence", "scope.components", "scope.contexts"):
            return {"comparator": "SKIP", "score": False}
        return {"comparator": "NULL_EXACT", "score": True}
    if isinstance(value, bool):
        return {"comparator": "BOOLEAN_EXACT", "score": True}
    if isinstance(value, int | float):
        return {"comparator": "NUMBER_EXACT", "score": True}
    if isinstance(value, str):
        leaf = path.split(".")[-1]
        normalized = path in _NORMALIZED or (path.startswith("ambiguity") and leaf in ("status", "dimension"))
        return {"comparator": "NORMALIZED_EXACT" if normalized else "SEMANTIC_FACT", "score": True}
    if isinstance(value, list):
        if any(isinstance(v, dict) for v in value):
            fields: dict[str, Any] = {}
            for rec in value:
                for k, v in rec.items():
                    fields.setdefault(k, spec_for(v, f"{path}.{k}"))
            spec = {"comparator": "UNORDERED_RECORD_F1", "score": True, "item_fields": fields}
            if path == "ambiguity":
                spec["matching_key_fields"] = ["dimension", "description"]
            return spec
        return {"comparator": "SET_F1", "score": True}
    fields = {k: spec_for(v, f"{path}.{k}" if path else k) for k, v in value.items()}
    if not fields:
        return {"comparator": "SKIP", "score": False, "closed_world": True, "fields": {}}
    return {"comparator": "RECURSIVE_FIELDS", "score": True, "closed_world": True, "fields": fields}


def state_specs(state: dict[str, Any]) -> dict[str, Any]:
    return {dim: spec_for(state[dim], dim) for dim in state}


def make_state(attributes: dict[str, Any] | None = None, **over: Any) -> dict[str, Any]:
    state = {"attributes": attributes or {}, "scope": {"persistence": "TASK_LOCAL",
                                                       "components": ["APP"], "contexts": ["MAIN"]},
             "lifecycle_status": "ACTIVE", "ambiguity": None, "execution": None}
    state.update(over)
    return state


def rq1_gold(atoms: dict[str, tuple[str, list[list[int]], list[int]]]) -> Rq1Gold:
    """atoms: id -> (summary, evidence groups, neutral ids)."""
    return Rq1Gold.model_validate({
        "relevant_requirement_ids": list(atoms),
        "gold_requirement_atoms": {rid: {"canonical_summary": s, "neutral_context_message_ids": n,
                                         "required_evidence_groups": [
                                             {"group_id": f"{rid}_EG{k:03d}", "acceptable_message_ids": g}
                                             for k, g in enumerate(groups, 1)]}
                                   for rid, (s, groups, n) in atoms.items()}})


def rq2_gold(states: dict[str, tuple[str, dict[str, Any]]]) -> Rq2Gold:
    return Rq2Gold.model_validate({
        "gold_requirement_ids": list(states),
        "requirement_summaries": {rid: s for rid, (s, _) in states.items()},
        "states": {rid: st for rid, (_, st) in states.items()},
        "field_scoring_specs": {rid: state_specs(st) for rid, (_, st) in states.items()}})


def rq3_gold(decision: str, states: dict[str, tuple[str, dict[str, Any]]],
             blockers: Sequence[dict[str, Any]] = (), removed: dict[str, list[str]] | None = None) -> Rq3Gold:
    final = {"decision": decision,
             "post_task_states": {rid: st for rid, (_, st) in states.items()} if decision == "ACT" else None,
             "blocking_clarifications": list(blockers)}
    return Rq3Gold.model_validate({
        "final_gold_by_condition": {"C1": final, "C2": final},
        "affected_requirement_alignment_gold": {rid: {"canonical_summary": s, "introduced": False}
                                                for rid, (s, _) in states.items()},
        "affected_requirement_transitions": {
            rid: {"delta": {"change_type": "MODIFIED", "removed_paths": (removed or {}).get(rid, [])}}
            for rid in states},
        "post_state_scoring_specs": {rid: state_specs(st) for rid, (_, st) in states.items()}})


class ScriptedJudge:
    """A judge whose successive answers are given as functions of the request returning raw
    (candidate, label) pairs; answers are checked like any backend's (`validate_labels`)."""

    judge_id = "scripted"

    def __init__(self, *answers: Callable[[JudgeRequest], list[tuple[str, str]]]) -> None:
        self.answers = list(answers)
        self.calls = 0

    def judge(self, request: JudgeRequest) -> JudgeResponse:
        answer = self.answers[min(self.calls, len(self.answers) - 1)]
        self.calls += 1
        labels = validate_labels(request, answer(request))
        return JudgeResponse(labels=labels, judge_id=self.judge_id, request_key=request.key())


def label_all(label: str) -> Callable[[JudgeRequest], list[tuple[str, str]]]:
    return lambda req: [(c, label) for c in req.candidates]
