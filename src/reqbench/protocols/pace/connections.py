"""Connection-related judgments checked against the L1 connection inventory (paper appendix §13).

A judge entry may name the connections its judgment relies on (``connections: [{kind, source,
target}]`` in the checklist schema). Before folding, the evaluator checks every connection-related
covered/partial judgment against the complete connection inventory of the evidence package, and corrects
an uncorroborated one to missing. Every check and every correction is recorded in the point result.
"""

from __future__ import annotations

from typing import Any

from reqbench.protocols.pace.l1.callgraph import last_segment
from reqbench.protocols.pace.l1.evidence import EvidencePackage
from reqbench.protocols.pace.models import Checklist, CodePoint, Judgment

CONNECTION_KINDS = ("integration", "registration")
"""Point kinds whose every criterion is connection-related (the paper does not enumerate them)."""


def _matches(claim: Any, edge: Any) -> bool:
    if claim.kind and claim.kind != edge.kind:
        return False
    if last_segment(claim.target) != last_segment(edge.target):
        return False
    return not claim.source or last_segment(claim.source) == last_segment(edge.source)


def check_connections(
    point: CodePoint, checklist: Checklist, pkg: EvidencePackage | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Corroborate connection-related judgments with the inventory; returns (checks, corrections).

    Paper appendix §13: "An integration claim needs source, target, and an observed call, assignment,
    import/export, registry entry, or configuration binding. An explicit empty connection inventory
    records the search result without granting credit." and "A connection-related correction requires
    corroborating evidence from the complete L1 inventory"; appendix O.5: "Integration corrections must
    agree with the complete connection inventory."

    Rules (the paper gives the principle, these are our concrete choices):

    * an entry that names connections is connection-related; each named connection is corroborated by a
      candidate-added inventory edge of the same kind (if given), target and source (if given), compared
      on their last name segment;
    * every entry of a point whose kind is in `CONNECTION_KINDS` is connection-related; without named
      connections it is corroborated by any candidate-added edge in the inventory;
    * a connection-related covered/partial entry with nothing corroborated is corrected to missing
      (base edges are context and corroborate nothing). The checklist is changed in place.
    """
    edges = [c for c in (pkg.connections if pkg else []) if c.origin == "candidate"]
    checks: list[dict[str, Any]] = []
    corrections: list[dict[str, Any]] = []
    for e in checklist.evidence_checklist:
        if not e.connections and point.kind not in CONNECTION_KINDS:
            continue
        if e.connections:
            found = []
            for claim in e.connections:
                edge = next((x for x in edges if _matches(claim, x)), None)
                found.append(edge is not None)
                checks.append({"criterion_id": e.criterion_id, "claim": claim.model_dump(),
                               "corroborated": edge is not None,
                               "edge": None if edge is None else f"{edge.file}:{edge.line}"})
            ok = any(found)
        else:
            ok = bool(edges)
            checks.append({"criterion_id": e.criterion_id, "claim": None, "corroborated": ok,
                           "edge": f"{edges[0].file}:{edges[0].line}" if edges else None})
        if not ok and e.judgment in (Judgment.COVERED, Judgment.PARTIAL):
            corrections.append({"criterion_id": e.criterion_id, "from": e.judgment.value, "to": "missing",
                                "reason": "connection not corroborated by the L1 connection inventory"})
            e.judgment = Judgment.MISSING
            e.gaps.integration_gap = True
    return checks, corrections
