"""All RQ1-RQ3 instances of a project, per RQ and in target order (FORMAT.md (f.1)-(f.5)).

Only targets of the formal diagnostic set (B.1, `construction.rq_common.applicable_rqs`: the request has events and
some affected requirement existed before it) get instances, one of each of RQ1, RQ2 and RQ3. Instances
are sorted by the catalog position of their target message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reqbench.protocols.takeover.annotation.project import Project
from reqbench.protocols.takeover.annotation.replay import StateGraph
from reqbench.protocols.takeover.construction.gold import gold_row
from reqbench.protocols.takeover.construction.rq1 import build_rq1
from reqbench.protocols.takeover.construction.rq2 import build_rq2
from reqbench.protocols.takeover.construction.rq3 import build_rq3
from reqbench.protocols.takeover.construction.rq_common import REASONING_RQS, TargetContext, make_context
from reqbench.protocols.takeover.construction.targets import Target

BUILDERS: dict[str, Callable[[TargetContext], dict[str, Any]]] = {
    "RQ1": build_rq1,
    "RQ2": build_rq2,
    "RQ3": build_rq3,
}


def target_contexts(
    project: Project,
    graph: StateGraph,
    targets: list[Target],
    release: str,
    sources: dict[str, Any] | None = None,
) -> list[TargetContext]:
    """One context per target (gold row, fingerprint, applicable RQs, C1/C2 histories)."""
    return [make_context(project, graph, t, gold_row(project, t), release, sources) for t in targets]


def build_rq_instances(contexts: list[TargetContext]) -> dict[str, list[dict[str, Any]]]:
    """{RQn: [instance, ...]} for the applicable RQs of every target, sorted by target position."""
    out: dict[str, list[dict[str, Any]]] = {rq: [] for rq in REASONING_RQS}
    for ctx in sorted(contexts, key=lambda c: c.target.position):
        for rq in REASONING_RQS:
            if rq in ctx.applicable:
                out[rq].append(BUILDERS[rq](ctx))
    return out
