"""PACE-Bench file formats: a case (`case.yaml`), its Code Points and criteria, and a suite (`suite.yaml`).

A case is a folder::

    case.yaml          marker (protocol: pace) + base source + Code Points + frozen content hash
    prd.md             the consolidated PRD the agent receives (paper §2, "Task definition")
    reference.patch    the accepted reference change (hidden from agents)
    controls/          optional hand-made controls (unrelated.patch)

Code Points follow paper §2 "Acceptance contracts": behaviour, provenance, retrieval hints, permitted
alternatives, weight, and optionally a symbolic contract checked structurally by L0. Pydantic at the file
edge; every field carries a description so `reqbench schema pace-case` documents the format.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from reqbench.core.environment_field import environment_schema


class Polarity(StrEnum):
    """Whether a criterion requires a behaviour or prohibits one (paper O.5: polarity is preserved)."""

    REQUIRE = "require"
    FORBID = "forbid"


class Severity(StrEnum):
    """How a miss folds (paper §3.1): a hard miss makes the point Missing, a soft miss only Partial."""

    HARD = "hard"
    SOFT = "soft"


class Provenance(StrEnum):
    """Where a point comes from (appendix "Code Point provenance"): stated, derived or implicit."""

    EXPLICIT = "explicit"
    DERIVED = "derived"
    IMPLICIT = "implicit"


class Verdict(StrEnum):
    """Point verdicts. phi maps Covered/Partial/Missing to 1/0.5/0; Unresolved blocks the case score."""

    COVERED = "Covered"
    PARTIAL = "Partial"
    MISSING = "Missing"
    UNRESOLVED = "Unresolved"


class Judgment(StrEnum):
    """Criterion-level judgment returned by L2 (checklist schema, paper O.5)."""

    COVERED = "covered"
    PARTIAL = "partial"
    MISSING = "missing"


class ContractStrategy(StrEnum):
    """Symbolic contract strategies L0 can check mechanically.

    * ``symbol_exists``: target ``path::Name`` (or ``path`` for a package ``__init__.py``) must define it.
    * ``signature``: target ``path::Owner.func`` must accept the listed ``params``.
    * ``exported``: ``path`` must list ``name`` in a literal ``__all__``.
    * ``config_value``: ``path`` (JSON/YAML/TOML/INI) must bind ``key`` (dotted) to ``value``.
    """

    SYMBOL_EXISTS = "symbol_exists"
    SIGNATURE = "signature"
    EXPORTED = "exported"
    CONFIG_VALUE = "config_value"


class Criterion(BaseModel):
    model_config = ConfigDict(extra="forbid")

    criterion_id: str = Field(description="Stable id, unique within the case (e.g. CP03.c1).")
    text: str = Field(description="The atomic acceptance condition, judged as written.")
    polarity: Polarity = Field(Polarity.REQUIRE, description="require: must hold; forbid: must not occur.")
    severity: Severity = Field(Severity.HARD, description="hard miss -> Missing; soft miss -> Partial.")


class SymbolicContract(BaseModel):
    model_config = ConfigDict(extra="forbid")

    strategy: ContractStrategy = Field(description="Which structural check L0 applies.")
    target: str = Field(description="File path, optionally `::Owner.name`, relative to the repository root.")
    name: str | None = Field(None, description="Exported name (exported) or package name (symbol_exists).")
    params: list[str] = Field(default_factory=list, description="Required parameter names (signature).")
    key: str | None = Field(None, description="Dotted configuration key (config_value).")
    value: str | int | float | bool | None = Field(None, description="Expected configuration value.")


class CodePoint(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Point id, unique within the case (e.g. CP03).")
    description: str = Field(description="The behaviour or structure this point requires.")
    criteria: list[Criterion] = Field(description="Atomic criteria; the judge sees exactly these ids.")
    provenance: Provenance = Field(description="explicit | derived | implicit.")
    retrieval_hints: list[str] = Field(
        default_factory=list,
        description="Seeds for L1: `path`, `path::Symbol` or a bare symbol. Guide retrieval, never mandate.",
    )
    allowed_alternatives: list[str] = Field(
        default_factory=list, description="Equivalent implementations the judge must accept."
    )
    contract: SymbolicContract | None = Field(None, description="Structural contract for L0, or null.")
    weight: float = Field(gt=0, allow_inf_nan=False, description="Frozen weight (verifiability x business importance).")
    kind: str = Field(
        "behavior",
        description="Free label: behavior | integration | registration | test | structure | configuration.",
    )


class CaseProvenance(BaseModel):
    """Where a case comes from (never shown to agents, not part of the frozen contract)."""

    model_config = ConfigDict(extra="forbid")

    project: str = Field(min_length=1, description="Upstream project (name and URL), or this project.")
    licence: str = Field(min_length=1, description="Licence of the upstream code (SPDX id).")
    base: str = Field(min_length=1, description="The release or commit the base repository is.")
    change: str = Field(min_length=1, description="The upstream change the reference patch is (versions, "
                                                  "path filter).")
    adapted: str = Field(min_length=1, description="What was written for the case (PRD, Code Points) and "
                                                   "what of the upstream change is left out of the contract.")


class CaseFile(BaseModel):
    """`case.yaml`: the frozen acceptance contract of one case."""

    model_config = ConfigDict(extra="forbid")

    protocol: str = Field(description="Always `pace`; marks the folder as a PACE case.")
    id: str = Field(description="Case id, unique within the suite.")
    title: str = Field("", description="Short human title.")
    base: str = Field(
        description="Base repository source: `dir:PATH` (relative to the case), "
        "`pypi:NAME==VERSION`, `git:URL@REV`, `archive:PATH`."
    )
    provenance: CaseProvenance | None = Field(None, description="Origin and licence of a case built on "
                                              "real code (metadata, outside the frozen contract).")
    base_sha256: str | None = Field(None, description="Expected sha256 of the pypi sdist / archive.")
    prd: str = Field("prd.md", description="PRD file name inside the case folder.")
    reference_patch: str = Field(
        "reference.patch",
        description="Reference patch file name, or the upstream change between two releases as "
        "`pypi-diff:NAME==A..B#paths=GLOB,...&sha256=HEX_A,HEX_B` (both sdists pinned).",
    )
    language: str = Field("python", description="Primary language of the base repository.")
    code_points: list[CodePoint] = Field(description="The frozen Code Points.")
    environment: dict[str, Any] | None = Field(
        None, json_schema_extra=environment_schema,
        description="Where the task's code runs: a task environment block (`reqbench schema environment`; "
                    "paths relative to this file), built once per run and used by every agent step and "
                    "every check; none: the host's system and reqbench's Python.")
    frozen_hash: str | None = Field(
        None,
        description="sha256 of the frozen contract (`reqbench pace freeze`);"
        " scoring refuses a case whose hash does not match.",
    )


class SuiteFile(BaseModel):
    """`suite.yaml`: a folder of PACE cases."""

    model_config = ConfigDict(extra="forbid")

    protocol: str = Field(description="Always `pace`.")
    name: str = Field(description="Suite name.")
    cases: list[str] = Field(description="Case folder names, relative to the suite folder.")
    judge: str = Field("token-overlap", description="Default judge: token-overlap | replay:FILE | llm[:MODEL].")


class Citation(BaseModel):
    """A pointer into the evidence package: file, new-side line range and the quoted text there.

    Verified by code (`reqbench.protocols.pace.grounding`) against the candidate's own evidence."""

    model_config = ConfigDict(extra="ignore")

    file: str = Field(description="Repository-relative path of the cited candidate code.")
    start_line: int = Field(description="First cited line (new side of the candidate change).")
    end_line: int = Field(description="Last cited line.")
    quote: str = Field(description="Code quoted verbatim from those lines (whitespace may differ).")


class Gaps(BaseModel):
    """The outcome symptoms a non-covered judgment shows: one flag per symptom (read by attribution)."""

    model_config = ConfigDict(extra="ignore")

    contract_mismatch: bool = Field(default=False, description="Wrong name, target, signature or interface value.")
    integration_gap: bool = Field(default=False, description="Behaviour present but not connected/registered.")
    test_delivery_gap: bool = Field(default=False, description="Required tests not delivered or not exercising it.")
    incomplete_implementation: bool = Field(default=False, description="Required behaviour absent or partial.")


class ConnectionClaim(BaseModel):
    """A connection a judgment relies on; checked against the L1 connection inventory."""

    model_config = ConfigDict(extra="ignore")

    kind: str = Field("", description="call | assignment | import | export | registry | configuration.")
    source: str = Field("", description="Where the connection starts (owner::method, module).")
    target: str = Field(description="What it reaches (the handler, route, subscriber, setting).")


class CriterionJudgment(BaseModel):
    """One checklist entry as a judge returns it (paper O.5 output schema)."""

    model_config = ConfigDict(extra="ignore")

    criterion_id: str = Field(description="Exactly one of the frozen ids.")
    evidence: str = Field(description="Cited declaration, behaviour or integration edge.")
    severity: Severity | None = Field(
        None,
        description="The judge's severity for this criterion: the frozen severity confirmed, or overridden "
        "(the override is recorded). Omitted means the frozen severity is confirmed.",
    )
    judgment: Judgment = Field(description="covered | partial | missing.")
    reasoning: str = Field("", description="Why; read by attribution.")
    citations: list[Citation] = Field(
        default_factory=list, description="Where the evidence is; required for covered/partial by model judges."
    )
    gaps: Gaps = Field(default_factory=Gaps, description="For partial/missing: which symptoms the gap shows.")
    connections: list[ConnectionClaim] = Field(
        default_factory=list, description="Connections this judgment relies on (integration claims)."
    )


class Checklist(BaseModel):
    """The judge's answer for one Code Point."""

    model_config = ConfigDict(extra="ignore")

    evidence_checklist: list[CriterionJudgment] = Field(description="One entry per frozen criterion.")
    missing_evidence: list[str] = Field(
        default_factory=list, description="owner::method or dependency the judge could not see."
    )
