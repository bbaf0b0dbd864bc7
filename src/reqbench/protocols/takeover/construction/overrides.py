"""The eight RQ3 decision overrides of the released benchmark, as data (paper B.3; FORMAT.md (f.4)).

The mechanical RQ3 decision is CLARIFY when an affected post-request state keeps an OPEN ambiguity,
else ACT. Review changed eight targets (306 ACT / 43 CLARIFY -> 312 / 37). One of them became CLARIFY
and carries its own blocking clarification, recorded here; the other seven became ACT.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class DecisionOverride:
    """A reviewed final decision for one target (and its blockers when the decision is CLARIFY)."""

    target_id: str
    decision: str  # ACT | CLARIFY
    blocking_clarifications: list[dict[str, Any]] = field(default_factory=list)


DECISION_OVERRIDES: dict[str, DecisionOverride] = {
    o.target_id: o
    for o in [
        DecisionOverride(
            "37923084_T004",
            "CLARIFY",
            [
                {
                    "requirement_id": "REQ_CAMPAIGN_DOMAIN_PROVISIONING",
                    "dimension": "VALUE",
                    "field": "domain_candidate",
                    "missing_information": "The target names one possible domain but also permits an "
                    "unspecified similar "
                    "alternative, so the exact domain is not fixed.",
                    "acceptable_question_facts": [
                        "ask the client to confirm the exact domain to provision and warm up"
                    ],
                }
            ],
        ),
        DecisionOverride("43214420_T016", "ACT"),
        DecisionOverride("43531571_T002", "ACT"),
        DecisionOverride("44102153_T002", "ACT"),
        DecisionOverride("44102153_T004", "ACT"),
        DecisionOverride("44159206_T006", "ACT"),
        DecisionOverride("44159206_T011", "ACT"),
        DecisionOverride("44186585_T002", "ACT"),
    ]
}


def override_for(target_id: str) -> DecisionOverride | None:
    """The override of a target, or None (then the mechanical candidate is final)."""
    found = DECISION_OVERRIDES.get(target_id)
    return (
        None
        if found is None
        else DecisionOverride(found.target_id, found.decision, copy.deepcopy(found.blocking_clarifications))
    )
