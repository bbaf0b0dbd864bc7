"""Aggregation: macro means over applicable targets, failure zeros kept, pending withheld, the
always-ACT reference and the equal-weight configuration mean."""

from __future__ import annotations

import pytest

from reqbench.protocols.takeover.scoring.aggregate import (
    aggregate_condition,
    aggregate_run,
    decision_metrics,
    shared_act,
)
from reqbench.protocols.takeover.scoring.rq2 import Rq2Result
from reqbench.protocols.takeover.scoring.rq3 import Rq3Result
from reqbench.protocols.takeover.scoring.tables import build_tables
from reqbench.protocols.takeover.scoring.target import TargetScore


def ts(tid: str, gold: str, decision: str | None, cond: str = "C1", **rq3: object) -> TargetScore:
    status = "agent_failure" if decision is None else "scored"
    return TargetScore(tid, cond, status, Rq3Result(status, gold, decision, **rq3))  # type: ignore[arg-type]


def test_always_act_on_312_act_and_37_clarify_targets() -> None:
    scores = [ts(f"a{i}", "ACT", "ACT") for i in range(312)] + [
        ts(f"c{i}", "CLARIFY", "ACT") for i in range(37)
    ]
    d = decision_metrics(scores)
    assert round(d["decision_accuracy"], 4) == 0.8940
    assert d["balanced_accuracy"] == 0.5 and d["act_recall"] == 1.0 and d["clarify_recall"] == 0.0
    assert round(d["always_act_accuracy"], 4) == 0.8940 and d["always_act_balanced_accuracy"] == 0.5
    assert d["unsupported_autonomy_rate"] == 1.0 and d["unnecessary_clarification_rate"] == 0.0


def test_agent_failures_stay_in_decision_denominators_as_wrong() -> None:
    scores = [
        ts("a", "ACT", "ACT"),
        ts("b", "ACT", None),
        ts("c", "CLARIFY", "CLARIFY"),
        ts("d", "CLARIFY", None),
    ]
    d = decision_metrics(scores)
    assert d["decision_accuracy"] == 0.5 and d["act_recall"] == 0.5 and d["clarify_recall"] == 0.5
    assert d["unnecessary_clarification_rate"] == 0.5 and d["unsupported_autonomy_rate"] == 0.5


def test_content_means_use_branch_denominators_and_conditional_subsets() -> None:
    scores = [
        ts("a", "ACT", "ACT", post_state_score=0.6, exact=False, exact_failure="state", matched_set=True),
        ts("b", "ACT", "ACT", post_state_score=1.0, exact=True, matched_set=True),
        ts("c", "ACT", "CLARIFY", post_state_score=0.0, exact=False, exact_failure="action"),
        ts("d", "ACT", None, post_state_score=0.0, exact=False, exact_failure="action"),
        ts(
            "e",
            "CLARIFY",
            "CLARIFY",
            blocking_issue_f1=0.4,
            question_validity=1.0,
            strict_clarification=False,
        ),
        ts("f", "CLARIFY", "ACT", blocking_issue_f1=0.0, question_validity=0.0, strict_clarification=False),
    ]
    c = aggregate_condition(scores)["rq3_content"]
    assert c["post_state_score"] == pytest.approx(1.6 / 4) and c["exact_accuracy"] == 0.25
    assert c["blocking_issue_f1"] == pytest.approx(0.2) and c["question_validity"] == 0.5
    assert c["strict_clarification"] == 0.0
    assert c["correct_act_count"] == 2 and c["conditional_post_state"] == pytest.approx(0.8)
    assert c["matched_set_count"] == 2 and c["matched_set_post_state"] == pytest.approx(0.8)
    assert c["exact_decomposition"] == {"action": 2, "set": 0, "state": 1, "removal": 0, "exact": 1}


def test_rq2_attribute_mean_excludes_na_but_keeps_failure_zeros() -> None:
    rows = []
    for tid, status, attr, cov in [
        ("a", "scored", 0.8, 1.0),
        ("b", "scored", None, 0.5),
        ("c", "agent_failure", 0.0, 0.0),
    ]:
        s = ts(tid, "ACT", "ACT")
        s.rq2 = Rq2Result(status, attr, cov)
        rows.append(s)
    rq2 = aggregate_condition(rows)["rq2"]
    assert rq2["attribute_score"] == pytest.approx(0.4) and rq2["n_attribute"] == 2
    assert rq2["coverage"] == pytest.approx(0.5)


def test_a_pending_target_withholds_the_aggregate_instead_of_shrinking_the_denominator() -> None:
    rows = [ts("a", "ACT", "ACT", post_state_score=1.0, exact=True), ts("b", "ACT", "ACT")]
    rows[1].rq3.status = "pending"
    rows[1].status = "pending"
    agg = aggregate_condition(rows)
    assert agg["n_pending"] == 1
    assert agg["rq3_content"]["post_state_score"] is None and agg["rq3_content"]["pending"] == 1
    s = ts("c", "ACT", "ACT")
    s.rq2 = Rq2Result("pending", None, None)
    assert aggregate_condition([s])["rq2"]["coverage"] is None


def test_configuration_mean_weighs_configurations_equally_and_tables_render() -> None:
    big = [ts(f"a{i}", "ACT", "ACT", post_state_score=1.0, exact=True) for i in range(3)]
    small = [ts("a0", "ACT", "CLARIFY", post_state_score=0.0, exact=False, exact_failure="action")]
    c2 = [ts("a0", "ACT", "ACT", cond="C2", post_state_score=0.5, exact=False)]
    run = aggregate_run({"cfg-a": {"C1": big, "C2": c2}, "cfg-b": {"C1": small}})
    assert run["mean"]["C1"]["rq3_content"]["post_state_score"] == pytest.approx(0.5)
    assert run["configurations"]["cfg-a"]["shared"] == {
        "shared_act_count": 1,
        "shared_post_state_c1": 1.0,
        "shared_post_state_c2": 0.5,
    }
    tables = {t.name: t for t in build_tables(run)}
    assert set(tables) >= {
        "Table 3",
        "Table 21a",
        "Table 21b",
        "Table 22",
        "Table 23",
        "Table 24",
        "Table 25",
        "Table 26",
        "Table 28",
    }
    t24 = tables["Table 24"]
    assert t24.rows[0][:2] == ["cfg-a", "1.0000 / 0.5000"] and t24.rows[-1][0] == "Mean"
    assert "| cfg-b |" in t24.markdown()


def test_shared_act_pairs_targets_across_conditions() -> None:
    c1 = [ts("a", "ACT", "ACT", post_state_score=0.2), ts("b", "ACT", "ACT", post_state_score=0.4)]
    c2 = [ts("a", "ACT", "CLARIFY", "C2"), ts("b", "ACT", "ACT", "C2", post_state_score=0.8)]
    assert shared_act(c1, c2) == {
        "shared_act_count": 1,
        "shared_post_state_c1": 0.4,
        "shared_post_state_c2": 0.8,
    }
