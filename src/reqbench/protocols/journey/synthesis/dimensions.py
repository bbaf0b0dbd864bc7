"""The four task dimensions and the plan gates built on them (SWE-Journey §3.2, appendix A.2).

A task is characterised by **context scope** and **change scope** (each one of five ordered levels, 1-5),
**requirement depth** (a set of requirement labels; a task can carry several) and **knowledge breadth**
(the number of distinct knowledge domains it touches). Each rule lives in one function here:

* `exceeded_dimensions` / `plan_exceeds_seed` — the paper's rule: a plan must exceed its seed task on at
  least two of the four dimensions (§3.2). "Exceeds" is strictly greater for the ordinal levels and for the
  label / domain counts.
* `easier_dimensions` — "three progressively harder plan stages" (§3.2): our reading, since the paper gives
  no numeric rule, is that no stage is easier than the stage before on any dimension.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

DIMENSIONS = ("context_scope", "change_scope", "requirement_depth", "knowledge_breadth")
EXCEED_AT_LEAST = 2
"""§3.2: the plan must exceed its seed on at least two of four dimensions."""


class DimensionProfile(BaseModel):
    """One task's (or one plan stage's) position on the four dimensions (A.2)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    context_scope: int = Field(ge=1, le=5, description="How much of the repository must be understood: "
                               "1 one function ... 5 cross-cutting, many modules.")
    change_scope: int = Field(ge=1, le=5, description="How much must change: 1 one line or function ... "
                              "5 many files and new modules.")
    requirement_labels: list[str] = Field(default_factory=list, description="Requirement-depth labels (a "
                                          "task can carry several, e.g. feature, constraint, edge-case).")
    knowledge_domains: list[str] = Field(default_factory=list, description="Distinct knowledge domains "
                                         "(e.g. date handling, serialization); their number is the breadth.")

    def values(self) -> dict[str, int]:
        """The comparable value of each dimension."""
        return {"context_scope": self.context_scope, "change_scope": self.change_scope,
                "requirement_depth": len(set(self.requirement_labels)),
                "knowledge_breadth": len(set(self.knowledge_domains))}

    def merged(self, other: DimensionProfile) -> DimensionProfile:
        """The profile of a plan made of both: the higher levels, the union of labels and domains."""
        return DimensionProfile(
            context_scope=max(self.context_scope, other.context_scope),
            change_scope=max(self.change_scope, other.change_scope),
            requirement_labels=sorted(set(self.requirement_labels) | set(other.requirement_labels)),
            knowledge_domains=sorted(set(self.knowledge_domains) | set(other.knowledge_domains)))


def exceeded_dimensions(plan: DimensionProfile, seed: DimensionProfile) -> list[str]:
    """Dimensions on which `plan` is strictly above `seed`."""
    a, b = plan.values(), seed.values()
    return [d for d in DIMENSIONS if a[d] > b[d]]


def plan_exceeds_seed(plan: DimensionProfile, seed: DimensionProfile) -> bool:
    """§3.2: the plan exceeds its seed on at least `EXCEED_AT_LEAST` (two) of the four dimensions."""
    return len(exceeded_dimensions(plan, seed)) >= EXCEED_AT_LEAST


def easier_dimensions(stage: DimensionProfile, previous: DimensionProfile) -> list[str]:
    """Dimensions on which `stage` is easier than the stage before it (must be empty: progressive stages)."""
    a, b = stage.values(), previous.values()
    return [d for d in DIMENSIONS if a[d] < b[d]]
