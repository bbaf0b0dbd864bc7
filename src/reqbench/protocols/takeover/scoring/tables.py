"""The paper's RQ1-RQ3 tables (ReqMemBench Tables 3, 21-26 and 28) built from `aggregate_run` output.

Each table has one row per configuration plus an equal-weight ``Mean`` row; paired cells read
``C1 / C2``. Values print with four decimals; ``—`` marks N/A, ``pending`` a withheld aggregate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PaperTable:
    name: str
    title: str
    columns: list[str]
    rows: list[list[str]]

    def markdown(self) -> str:
        lines = [f"**{self.name}. {self.title}**", "",
                 "| " + " | ".join(self.columns) + " |", "|" + "---|" * len(self.columns)]
        lines += ["| " + " | ".join(r) + " |" for r in self.rows]
        return "\n".join(lines) + "\n"


def _get(tree: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(tree, dict):
            return None
        tree = tree.get(part)
    return tree


def _fmt(value: Any, pending: bool = False) -> str:
    if value is None:
        return "pending" if pending else "—"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value.is_integer() and value > 1:
        return str(int(value))
    return f"{value:.4f}"


def _cell(entry: Any, cond: str, path: str) -> str:
    section = path.split(".")[0]
    pending = bool(_get(entry, f"{cond}.{section}.pending"))
    return _fmt(_get(entry, f"{cond}.{path}"), pending)


def _pair(entry: Any, path: str) -> str:
    return f"{_cell(entry, 'C1', path)} / {_cell(entry, 'C2', path)}"


def _rows(run: dict[str, Any], make: Callable[[Any], list[str]]) -> list[list[str]]:
    rows = [[name, *make(entry)] for name, entry in run["configurations"].items()]
    rows.append(["Mean", *make(run["mean"])])
    return rows


def build_tables(run: dict[str, Any]) -> list[PaperTable]:
    """All tables of one scored run (see the module docstring)."""
    t = []
    t.append(PaperTable("Table 3", "Selected RQ1-RQ2 metrics under Full History (C1)",
                        ["Configuration", "Evidence Precision", "Evidence Recall", "Requirement Coverage",
                         "Attribute Reconstruction Score"],
                        _rows(run, lambda e: [_cell(e, "C1", "rq1.evidence_precision"),
                                              _cell(e, "C1", "rq1.evidence_recall"),
                                              _cell(e, "C1", "rq2.coverage"),
                                              _cell(e, "C1", "rq2.attribute_score")])))
    t.append(PaperTable("Table 21a", "Requirement and evidence identification (C1)",
                        ["Configuration", "Req P", "Req R", "Req F1", "Evid P", "Evid R", "Evid F1"],
                        _rows(run, lambda e: [_cell(e, "C1", f"rq1.{u}_{m}") for u in ("requirement", "evidence")
                                              for m in ("precision", "recall", "f1")])))
    t.append(PaperTable("Table 21b", "Pre-request state reconstruction (C1 / C2)",
                        ["Configuration", "Attribute score", "Requirement coverage"],
                        _rows(run, lambda e: [_pair(e, "rq2.attribute_score"), _pair(e, "rq2.coverage")])))
    t.append(PaperTable("Table 22", "Targets in the Attribute Reconstruction Score means",
                        ["Configuration", "N C1", "N C2"],
                        _rows(run, lambda e: [_cell(e, c, "rq2.n_attribute") for c in ("C1", "C2")])))
    t.append(PaperTable("Table 23", "Action selection (C1 / C2)",
                        ["Configuration", "Decision Accuracy", "Balanced Accuracy", "ACT Recall", "CLARIFY Recall",
                         "Always-ACT accuracy"],
                        _rows(run, lambda e: [_pair(e, f"rq3_decision.{m}") for m in (
                       "decision_accuracy", "balanced_accuracy", "act_recall", "clarify_recall",
                       "always_act_accuracy")])))
    t.append(PaperTable("Table 24", "Post-request state and clarification (C1 / C2)",
                        ["Configuration", "Post-State", "Exact Post-State", "Blocking-Issue F1",
                         "Question Validity", "Strict Clarification"],
                        _rows(run, lambda e: [_pair(e, f"rq3_content.{m}") for m in (
                       "post_state_score", "exact_accuracy", "blocking_issue_f1", "question_validity",
                       "strict_clarification")])))
    t.append(PaperTable("Table 25", "Post-State Score conditional on a correct ACT decision",
                        ["Configuration", "Correct ACT C1", "Conditional Post-State C1", "Correct ACT C2",
                         "Conditional Post-State C2"],
                        _rows(run, lambda e: [_cell(e, c, f"rq3_content.{m}") for c in ("C1", "C2")
                                              for m in ("correct_act_count", "conditional_post_state")])))
    t.append(PaperTable("Table 26", "Requirement-set matching and shared-target Post-State (C1 / C2)",
                        ["Configuration", "Matched-set count", "Matched-set Post", "Shared ACT count",
                         "Shared-target Post"],
                        _rows(run, lambda e: [_pair(e, "rq3_content.matched_set_count"),
                                              _pair(e, "rq3_content.matched_set_post_state"),
                                              _fmt(_get(e, "shared.shared_act_count")),
                                              f"{_fmt(_get(e, 'shared.shared_post_state_c1'))} / "
                                              f"{_fmt(_get(e, 'shared.shared_post_state_c2'))}"])))
    t.append(PaperTable("Table 28", "First unmet exact post-state condition (C1 / C2)",
                        ["Configuration", "No correct ACT", "Set mismatch", "State not fully exact",
                         "Removal list only", "Exact success"],
                        _rows(run, lambda e: [_pair(e, f"rq3_content.exact_decomposition.{k}") for k in (
                       "action", "set", "state", "removal", "exact")])))
    return t
