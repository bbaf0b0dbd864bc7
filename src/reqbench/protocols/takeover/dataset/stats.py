"""The dataset-statistics tables of a takeover suite (ReqMemBench Tables 7-9), computed from its files.

`reqbench stats` prints them (`TakeoverProtocol.dataset_stats`):

* **scope** (Table 7): messages, requirements, events by type, selected targets, the formal diagnostic
  targets that get RQ1-RQ3 files (`construction.rq_common.applicable_rqs`), their gold ACT/CLARIFY split, and the
  delivery targets;
* **history lengths** (Table 8): messages of the complete project, and the C1 (full) and C2 (relevant)
  history length of every diagnostic target and of every delivery target, as count, mean and quartiles;
* **gold items** (Table 9): RQ instance counts and the gold items the diagnostics score, each in the
  paper's counting unit (requirement-target items, evidence groups, state items, decisions, blocking
  issues).

The gold is derived exactly as the release build derives it (replay, targets, `rq1_gold`, `rq2_gold`,
`rq3_gold`), without writing a release.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reqbench.core.stats.distribution import spread
from reqbench.core.summary import Cell, Summary, SummaryTable
from reqbench.protocols.takeover.annotation.loading import load_project
from reqbench.protocols.takeover.annotation.replay import replay
from reqbench.protocols.takeover.construction.conditions import direct_requirements
from reqbench.protocols.takeover.construction.gold import gold_row
from reqbench.protocols.takeover.construction.rq1 import rq1_gold
from reqbench.protocols.takeover.construction.rq3 import rq3_gold
from reqbench.protocols.takeover.construction.rq_common import REASONING_RQS, TargetContext, make_context
from reqbench.protocols.takeover.construction.targets import build_targets
from reqbench.protocols.takeover.dataset.sizes import SuiteSize, suite_size
from reqbench.protocols.takeover.suite_file import load_suite

SCOPE, HISTORY, GOLD = "scope (ReqMemBench Table 7)", "history lengths (Table 8)", "gold items (Table 9)"


def _contexts(suite_dir: Path) -> tuple[list[TargetContext], set[str]]:
    """Every selected target's context, and the ids of the delivery targets."""
    suite = load_suite(suite_dir)
    project = load_project(suite_dir / suite.project)
    graph = replay(project)
    contexts = [make_context(project, graph, t, gold_row(project, t), "stats")
                for t in build_targets(project, graph)]
    return contexts, {d.target_id for d in suite.delivery}


def _scope(size: SuiteSize, diagnostic: list[TargetContext], decisions: dict[str, str]) -> SummaryTable:
    rows: dict[str, dict[str, Cell]] = {
        "messages": {"count": size.messages}, "client messages": {"count": size.client_messages},
        "requirements": {"count": size.atoms}, "events": {"count": size.events}}
    rows |= {f"events {kind}": {"count": n} for kind, n in size.events_by_type.items()}
    rows |= {"selected targets": {"count": size.targets},
             "diagnostic targets (RQ1-RQ3)": {"count": len(diagnostic)},
             "gold ACT": {"count": sum(d == "ACT" for d in decisions.values())},
             "gold CLARIFY": {"count": sum(d == "CLARIFY" for d in decisions.values())},
             "delivery targets": {"count": size.delivery_targets},
             "hidden tests": {"count": size.hidden_tests}}
    return SummaryTable(SCOPE, rows)


def _histories(size: SuiteSize, diagnostic: list[TargetContext], delivery: list[TargetContext]) -> SummaryTable:
    def lengths(contexts: list[TargetContext], condition: str) -> list[int]:
        return [len(c.histories[condition]) for c in contexts]

    return SummaryTable(HISTORY, {
        "complete project interactions": spread([size.messages]),
        "diagnostic targets, C1": spread(lengths(diagnostic, "C1")),
        "diagnostic targets, C2": spread(lengths(diagnostic, "C2")),
        "delivery targets, C1": spread(lengths(delivery, "C1")),
        "delivery targets, C2": spread(lengths(delivery, "C2")),
    })


def _gold(diagnostic: list[TargetContext], rq3: dict[str, dict[str, Any]]) -> SummaryTable:
    rq1 = [rq1_gold(c) for c in diagnostic]
    final = {t: g["final_gold_by_condition"]["C1"] for t, g in rq3.items()}
    items: list[tuple[str, str, int]] = [
        *((f"{rq} instances", "takeover target", len(diagnostic)) for rq in REASONING_RQS),
        ("requirement boundaries", "requirement-target item", sum(len(g["relevant_requirement_ids"]) for g in rq1)),
        ("evidence assignment and coverage", "required evidence group",
         sum(len(atom["required_evidence_groups"]) for g in rq1 for atom in g["gold_requirement_atoms"].values())),
        ("pre-request states", "requirement-target state item",
         sum(len(direct_requirements(c.target)) for c in diagnostic)),
        ("ACT post-request states", "requirement-target state item",
         sum(len(f["post_task_states"] or {}) for f in final.values() if f["decision"] == "ACT")),
        ("ACT/CLARIFY decisions", "takeover target", len(final)),
        ("missing information and clarification", "blocking issue",
         sum(len(f["blocking_clarifications"]) for f in final.values())),
    ]
    return SummaryTable(GOLD, {label: {"counting unit": unit, "gold items": n} for label, unit, n in items})


def dataset_stats(suite_dir: Path) -> Summary:
    """Tables 7-9 of the suite at `suite_dir` (the project is loaded and validated first)."""
    suite_dir = Path(suite_dir)
    contexts, delivery_ids = _contexts(suite_dir)
    size = suite_size(suite_dir)
    diagnostic = [c for c in contexts if c.applicable]
    delivery = [c for c in contexts if c.target.target_id in delivery_ids]
    rq3 = {c.target.target_id: rq3_gold(c) for c in diagnostic}
    decisions = {t: g["final_gold_by_condition"]["C1"]["decision"] for t, g in rq3.items()}
    overview: dict[str, Cell] = {"suite": size.suite, "projects": 1, "selected targets": size.targets,
                                 "diagnostic targets": len(diagnostic), "delivery targets": size.delivery_targets}
    return Summary(overview=overview, tables=[_scope(size, diagnostic, decisions),
                                             _histories(size, diagnostic, delivery), _gold(diagnostic, rq3)])
