"""Semantic-judge contracts of the takeover protocol (ReqMemBench Table 16): request builders,
per-field label validation, retries and call records. Judges return labels; `scoring/` computes."""

from reqbench.protocols.takeover.judging.contracts import (
    CLARIFICATION,
    CONTRACTS,
    FIELD_IDENTITY,
    REQUIREMENT_ALIGNMENT,
    RQ1_ALIGNMENT,
    TEXT_EQUIVALENCE,
    Contract,
)
from reqbench.protocols.takeover.judging.requests import (
    AlignSide,
    BlockerCandidate,
    FieldCandidate,
    JudgeSession,
    alignment_request,
    build_request,
    clarification_request,
    field_identity_request,
    label_of,
    text_request,
)

__all__ = [
    "CLARIFICATION", "CONTRACTS", "FIELD_IDENTITY", "REQUIREMENT_ALIGNMENT", "RQ1_ALIGNMENT",
    "TEXT_EQUIVALENCE", "AlignSide", "BlockerCandidate", "Contract", "FieldCandidate", "JudgeSession",
    "alignment_request", "build_request", "clarification_request", "field_identity_request", "label_of",
    "text_request",
]
