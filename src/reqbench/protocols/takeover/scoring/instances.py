"""Thin typed readers of the researcher-side RQ instance files (``rq-instance-v2``, FORMAT.md f.1-f.4).

Only what scoring needs is read: the condition histories, the RQ1 evidence groups, the RQ2 typed
pre-state gold with its scoring specs, and the RQ3 final gold by condition with post-state specs and
removal deltas. Unknown fields are ignored; missing or mistyped ones are `InputError`s naming the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reqbench.core.errors import InputError
from reqbench.core.hashing import read_json

CONDITIONS = ("C1", "C2")
_IGNORE = ConfigDict(extra="ignore")


class ConditionInput(BaseModel):
    model_config = _IGNORE
    available: bool = Field(description="Whether this RQ is run under the condition.")
    history_message_ids: list[int | str] = Field(description="Visible history, in message order.")


class EvidenceGroup(BaseModel):
    model_config = _IGNORE
    group_id: str = Field(description="Id of the required evidence group.")
    acceptable_message_ids: list[int | str] = Field(description="Any one of these covers the group.")


class Rq1Atom(BaseModel):
    model_config = _IGNORE
    canonical_summary: str = Field(description="Gold summary of the requirement.")
    required_evidence_groups: list[EvidenceGroup] = Field(description="Groups that must be covered.")
    neutral_context_message_ids: list[int | str] = Field(default_factory=list,
                                                         description="Neither credited nor penalised.")


class Rq1Gold(BaseModel):
    model_config = _IGNORE
    relevant_requirement_ids: list[str] = Field(description="Gold requirements, in order.")
    gold_requirement_atoms: dict[str, Rq1Atom] = Field(description="Per requirement: summary, evidence.")


class Rq2Gold(BaseModel):
    model_config = _IGNORE
    gold_requirement_ids: list[str] = Field(description="Gold pre-request requirements, in order.")
    requirement_summaries: dict[str, str] = Field(description="Gold summary per requirement.")
    alignment_evidence_message_ids: dict[str, list[int | str]] = Field(
        default_factory=dict, description="Trajectory messages quoted to the alignment judge.")
    states: dict[str, dict[str, Any]] = Field(description="Semantic pre-request state per requirement.")
    field_scoring_specs: dict[str, dict[str, Any]] = Field(description="Typed scoring spec per state.")


class Blocker(BaseModel):
    model_config = _IGNORE
    requirement_id: str = Field(description="Blocked gold requirement.")
    dimension: str = Field(description="Blocked dimension (VALUE, SCOPE, ...).")
    field: str | None = Field(default=None, description="Blocked field, or null for any field.")
    missing_information: str = Field(description="The missing material fact.")
    acceptable_question_facts: list[str] = Field(description="Facts a valid question must elicit.")


class FinalGold(BaseModel):
    model_config = _IGNORE
    decision: str = Field(description="Gold decision, ACT or CLARIFY.")
    post_task_states: dict[str, dict[str, Any]] | None = Field(description="ACT: gold target states.")
    blocking_clarifications: list[Blocker] = Field(default_factory=list, description="CLARIFY: blockers.")


class AlignmentGold(BaseModel):
    model_config = _IGNORE
    canonical_summary: str = Field(description="Gold summary used for alignment.")
    introduced: bool = Field(default=False, description="New at the request.")


class Delta(BaseModel):
    model_config = _IGNORE
    change_type: str = Field(description="INTRODUCED, MODIFIED, UNCHANGED, REMOVED_FROM_SNAPSHOT.")
    removed_paths: list[str] = Field(default_factory=list, description="Dot paths removed by the request.")


class Transition(BaseModel):
    model_config = _IGNORE
    delta: Delta = Field(description="Recursive diff of the semantic states.")


class Rq3Gold(BaseModel):
    model_config = _IGNORE
    final_gold_by_condition: dict[str, FinalGold] = Field(description="Gold per history condition.")
    affected_requirement_alignment_gold: dict[str, AlignmentGold] = Field(
        description="Affected requirements (alignment gold), in order.")
    affected_requirement_transitions: dict[str, Transition] = Field(default_factory=dict,
                                                                    description="Per requirement.")
    post_state_scoring_specs: dict[str, dict[str, Any]] = Field(default_factory=dict,
                                                                description="Typed specs per state.")


class RqInstance(BaseModel):
    model_config = _IGNORE
    schema_version: str = Field(description="rq-instance-v2.")
    instance_id: str = Field(description="<target>_<RQ>.")
    rq_id: str = Field(description="RQ1, RQ2 or RQ3.")
    project_id: str = Field(description="Project id.")
    target_id: str = Field(description="Target id.")
    target_fingerprint: str = Field(description="Canonical sha of the target's inputs and gold.")
    target_task: dict[str, Any] = Field(description="The current request.")
    condition_inputs: dict[str, ConditionInput] = Field(description="C1/C2 visible histories.")
    history_pool: dict[str, Any] = Field(default_factory=dict,
                                         description="Every message before the target (quoted to the judge).")
    construction_gold: dict[str, Any] = Field(description="Researcher-side gold.")


_GOLD: dict[str, type[BaseModel]] = {"RQ1": Rq1Gold, "RQ2": Rq2Gold, "RQ3": Rq3Gold}


@dataclass(frozen=True)
class LoadedInstance:
    path: str
    meta: RqInstance
    gold: Any


def load_instance(path: Path, expect_rq: str | None = None) -> LoadedInstance:
    """Read and type one RQ instance file; `InputError` naming the file on any problem."""
    path = Path(path)
    if not path.is_file():
        raise InputError("instance file does not exist", file=str(path))
    try:
        raw = read_json(path)
    except ValueError as exc:
        raise InputError(f"not a JSON file ({exc})", file=str(path)) from exc
    try:
        meta = RqInstance.model_validate(raw)
        if meta.rq_id not in _GOLD:
            raise InputError(f"rq_id {meta.rq_id!r} is not RQ1, RQ2 or RQ3", file=str(path))
        if expect_rq and meta.rq_id != expect_rq:
            raise InputError(f"expected an {expect_rq} instance, found rq_id {meta.rq_id!r}", file=str(path))
        gold = _GOLD[meta.rq_id].model_validate(meta.construction_gold)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise InputError(f"{where}: {err['msg']}", file=str(path)) from exc
    return LoadedInstance(str(path), meta, gold)


@dataclass(frozen=True)
class TargetInstances:
    """The RQ instances of one target (RQ3 required; RQ1/RQ2 optional, N/A when absent)."""

    rq3: LoadedInstance
    rq1: LoadedInstance | None = None
    rq2: LoadedInstance | None = None

    def __post_init__(self) -> None:
        for other in (self.rq1, self.rq2):
            if other is None:
                continue
            if (other.meta.target_id, other.meta.target_fingerprint) != (
                    self.rq3.meta.target_id, self.rq3.meta.target_fingerprint):
                raise InputError(f"belongs to target {other.meta.target_id!r}, not to the RQ3 instance's "
                                 f"target {self.rq3.meta.target_id!r} (target fingerprints differ)",
                                 file=other.path)

    @property
    def target_id(self) -> str:
        return self.rq3.meta.target_id

    def visible_message_ids(self, condition: str) -> list[int | str]:
        """The condition's visible history (same in every RQ file of a target)."""
        check_condition(condition)
        cond = self.rq3.meta.condition_inputs.get(condition)
        if cond is None:
            raise InputError(f"has no condition {condition}", file=self.rq3.path)
        return list(cond.history_message_ids)

    def message_texts(self) -> dict[str, dict[str, Any]]:
        """``str(message_id)`` -> {message_id, speaker, text} of every message before the target: what the
        semantic judge is shown for each message id a prediction or the gold cites (D.3)."""
        messages = self.rq3.meta.history_pool.get("messages") or []
        return {str(m["message_id"]): {"message_id": m["message_id"], "speaker": m.get("speaker"),
                                       "text": m.get("text")}
                for m in messages if isinstance(m, dict) and "message_id" in m}

    def final_gold(self, condition: str) -> FinalGold:
        check_condition(condition)
        gold: Rq3Gold = self.rq3.gold
        if condition not in gold.final_gold_by_condition:
            raise InputError(f"construction_gold.final_gold_by_condition has no {condition}",
                             file=self.rq3.path)
        return gold.final_gold_by_condition[condition]


def check_condition(condition: str) -> None:
    if condition not in CONDITIONS:
        raise InputError(f"condition must be C1 or C2, not {condition!r}")


def load_target(rq3: Path, rq1: Path | None = None, rq2: Path | None = None) -> TargetInstances:
    return TargetInstances(rq3=load_instance(rq3, "RQ3"),
                           rq1=load_instance(rq1, "RQ1") if rq1 else None,
                           rq2=load_instance(rq2, "RQ2") if rq2 else None)
