"""File-edge models of a takeover project (ReqMemBench FORMAT.md §0.1, (a), (d)).

Three input files make a project: the normalized message catalog, the Stage-1 annotation
(``annotation_version`` v0.6) and the selected targets. These pydantic models describe their
*shape* (``reqbench schema`` prints them); the semantic rules (payload per event type, resolution
links, order, ...) live in `validation.py`, one function per rule, so every problem can be reported
with its project, requirement, event and rule. Enum-like fields are plain strings here on purpose:
an unknown event type is a rule violation with its own message, not a schema error.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

MessageId = StrictInt | StrictStr


class EventType(StrEnum):
    """The nine Stage-1 event types (paper Table 6)."""

    INTRODUCE = "INTRODUCE"  # write initial attributes + scope, lifecycle ACTIVE
    MODIFY = "MODIFY"  # remove keys, then apply updates; clears implementation evidence
    DEFER = "DEFER"  # lifecycle DEFERRED
    RESUME = "RESUME"  # lifecycle ACTIVE
    REMOVE = "REMOVE"  # lifecycle REMOVED (terminal except for implementation evidence)
    AMBIGUOUS = "AMBIGUOUS"  # opens an issue keyed by this event id
    IMPLEMENTATION_CLAIM = "IMPLEMENTATION_CLAIM"  # execution CLAIMED_WORKING
    RUNTIME_FAILURE = "RUNTIME_FAILURE"  # execution FAILED
    RUNTIME_VERIFICATION = "RUNTIME_VERIFICATION"  # execution VERIFIED_WORKING


EXECUTION_STATUS_BY_TYPE: dict[EventType, str] = {
    EventType.IMPLEMENTATION_CLAIM: "CLAIMED_WORKING",
    EventType.RUNTIME_FAILURE: "FAILED",
    EventType.RUNTIME_VERIFICATION: "VERIFIED_WORKING",
}
EXECUTION_TYPES = frozenset(EXECUTION_STATUS_BY_TYPE)
LIFECYCLE_TYPES = frozenset({EventType.DEFER, EventType.RESUME, EventType.REMOVE})
RESOLVING_TYPES = frozenset({EventType.INTRODUCE, EventType.MODIFY, *LIFECYCLE_TYPES})
AMBIGUITY_DIMENSIONS = ("VALUE", "SCOPE", "LIFECYCLE")
SCOPE_DIMENSIONS = ("persistence", "components", "contexts")
STATE_DIMENSIONS = ("attributes", "scope", "lifecycle_status", "ambiguity", "execution")
PAYLOAD_FIELDS = ("value_updates", "value_removals", "scope_updates", "ambiguity", "execution")
ANNOTATION_VERSION = "v0.6"


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MessageModel(_Open):
    message_id: MessageId = Field(description="Message id (int or string); identity is str(id).")
    created_ts: str | None = Field(None, description="Creation timestamp, or null.")
    speaker: StrictStr = Field(description="'client' or 'freelancer'.")
    text: StrictStr = Field(description="Message text (may be empty).")
    milestone: Any = Field(None, description="Milestone marker, free-form, or null.")
    original_index: int | None = Field(None, description="Index in the raw export (informational).")
    sender_id: Any = Field(None, description="Sender id from the raw export (informational).")


class NormalizedProjectModel(_Open):
    """``normalized_project.json``: the message catalog. Array order is conversation order."""

    project_id: MessageId = Field(description="Project id; used as str(project_id).")
    project_title: str | None = Field(None, description="Project title.")
    project_metadata: dict[str, Any] | None = Field(None, description="Free-form contract metadata.")
    source_chat_path: str | None = Field(None, description="Where the raw chat came from.")
    messages: list[MessageModel] = Field(description="Messages in conversation order (never id order).")


class SourceMessageModel(_Closed):
    message_id: MessageId = Field(description="Id of the message the event is read from.")
    speaker: StrictStr = Field(description="Speaker; must equal the catalog speaker.")
    text: StrictStr = Field(description="Full message text; must equal the catalog text.")


class AmbiguityModel(_Closed):
    dimension: StrictStr = Field(description="VALUE, SCOPE or LIFECYCLE.")
    description: StrictStr = Field(description="What is unresolved (non-empty).")


class ExecutionModel(_Closed):
    status: StrictStr = Field(description="CLAIMED_WORKING, FAILED or VERIFIED_WORKING (fixed by type).")
    observed_behavior: StrictStr = Field(description="What was claimed or observed (non-empty).")


class ScopeUpdateModel(_Closed):
    persistence: StrictStr | None = Field(None, description="Free string, e.g. TASK_LOCAL; null = unchanged.")
    components: list[StrictStr] | None = Field(
        None, description="Components (replaces whole list); null = unchanged."
    )
    contexts: list[StrictStr] | None = Field(
        None, description="Contexts (replaces whole list); null = unchanged."
    )


class EventModel(_Closed):
    """One change event. All payload fields default to null; rules per type are in validation.py."""

    event_id: StrictStr = Field(description="Unique across the project, conventionally <rid>_E%03d.")
    source_message: SourceMessageModel = Field(description="The message this event is read from.")
    supporting_message_ids: list[Any] | None = Field(
        None, description="Other messages that support the event (no repeats, not the source)."
    )
    event_type: StrictStr = Field(description="One of the nine EventType values.")
    value_updates: dict[str, Any] | None = Field(None, description="Attribute key -> new JSON value.")
    value_removals: list[Any] | None = Field(
        None, description="Attribute keys to delete (non-empty, unique)."
    )
    scope_updates: ScopeUpdateModel | None = Field(None, description="Scope dimensions to overwrite.")
    ambiguity: AmbiguityModel | None = Field(None, description="Only on AMBIGUOUS events.")
    execution: ExecutionModel | None = Field(None, description="Only on the three execution events.")
    resolves_ambiguity_event_ids: list[Any] | None = Field(
        None, description="Earlier AMBIGUOUS events of the same requirement closed by this event."
    )


class RequirementModel(_Open):
    requirement_id: StrictStr = Field(description="Requirement atom id, conventionally REQ_UPPER_SNAKE.")
    title: StrictStr = Field(description="Short canonical summary of the atom.")
    family_id: StrictStr | None = Field(None, description="Optional family (grouping only), or null.")
    events: list[EventModel] = Field(description="Events in replay order (may be empty).")


class FamilyModel(_Open):
    family_id: StrictStr = Field(description="Family id.")
    title: str | None = Field(None, description="Family title.")


class SessionModel(_Open):
    session_id: StrictStr = Field(description="Session id, e.g. S1.")


class AnnotationProjectModel(_Open):
    project_id: MessageId = Field(description="Project id; must match the catalog.")
    project_title: str | None = Field(None, description="Project title.")
    sessions: list[SessionModel] = Field(default_factory=list, description="Work sessions (informational).")


class AnnotationModel(_Open):
    """The Stage-1 annotation file (``annotation_version`` v0.6)."""

    benchmark: str | None = Field(None, description="'ReqMemBench'.")
    annotation_version: StrictStr = Field(description="Must be 'v0.6'.")
    project: AnnotationProjectModel = Field(description="Project header.")
    requirement_families: list[FamilyModel] = Field(default_factory=list, description="Declared families.")
    requirements: list[RequirementModel] = Field(description="Requirement atoms in graph order.")


class SelectedTargetModel(_Open):
    target_id: StrictStr = Field(description="<project>_T%03d.")
    candidate_id: StrictStr | None = Field(None, description="<project>_CANDIDATE_MSG_<mid>.")
    message_id: MessageId = Field(description="The target (current request) client message.")
    conversation_turn_index: int | None = Field(None, description="P(m)+1.")
    history_turn_count: int | None = Field(None, description="P(m): messages strictly before the target.")
    event_ids: list[StrictStr] | None = Field(None, description="Events sourced at the target message.")
    affected_requirement_ids: list[StrictStr] | None = Field(None, description="Their requirements.")
    selection_source: str | None = Field(
        None, description="LLM_AUTO_ACCEPT, LLM_PLUS_HUMAN or HUMAN_ADD_BACK."
    )
    primary_rq_targets: list[str] | None = Field(None, description="Copied into gold; not used.")
    ai_selection_score: int | None = Field(None, description="Selection score 0..10.")
    ai_score_threshold: int | None = Field(None, description="Threshold used.")
    human_review: str | None = Field(None, description="Human review state.")
    human_review_reason: str | None = Field(None, description="Why.")


class SelectedTargetsModel(_Open):
    """``selected_target_times.json`` (``selected-target-times-v1``)."""

    schema_version: str | None = Field(None, description="'selected-target-times-v1'.")
    project_id: MessageId = Field(description="Project id; must match the catalog.")
    selected_targets: list[SelectedTargetModel] = Field(description="Targets in selected order.")
