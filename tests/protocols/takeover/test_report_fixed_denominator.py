"""Delivery rates use the fixed denominator (C.2, §4.1): every planned row, started or not. A condition is
final only when every planned row is scored; until then no rate is reported, only the counts.

Threat guarded: an unstarted (or crashed, or pending) row silently leaving the denominator and raising
the reported rate while the report claims to be final."""

from __future__ import annotations

from reqbench.core.bundled import bundled_suite
from reqbench.core.execute.types import Row, RowOutcome, RowStatus, RunOptions
from reqbench.protocols.lookup import protocol_for_suite
from reqbench.protocols.takeover.run.report import delivery_table, planned_rows, withhold_rates
from reqbench.protocols.takeover.run.summary import headline, plots

ALL = ("T1", "T2", "T3", "T4")
DELIVERY = ("T1", "T2", "T3")


def _delivered(task: str, ok: bool, condition: str = "C1") -> tuple[Row, RowOutcome]:
    gate = "PASS" if ok else "FAIL"
    result = {"delivery": {"decision": "pass" if ok else "fail",
                           "statuses": {"build": "PASS", "target": gate, "regression": "PASS"}}}
    return Row(task, condition, "a", 0), RowOutcome(RowStatus.SCORED, result)


def test_unstarted_rows_stay_in_the_denominator_and_withhold_the_rate() -> None:
    rows = [_delivered("T1", True), _delivered("T2", False)]  # T3 never started
    planned = planned_rows(rows, DELIVERY, ALL)
    assert planned == {"C1": [("T1", 0), ("T2", 0), ("T3", 0)]}
    c1 = delivery_table(rows, planned)["C1"]
    assert (c1["n"], c1["unstarted"], c1["final"]) == (3, 1, False)
    assert c1["complete_delivery"] is None and c1["build"] is None
    assert c1["counts"] == {"complete_delivery": 1, "build": 2, "target": 1, "regression": 2}


def test_every_planned_row_scored_is_final_with_rates_over_the_fixed_denominator() -> None:
    rows = [_delivered("T1", True), _delivered("T2", False), _delivered("T3", False)]
    c1 = delivery_table(rows, planned_rows(rows, DELIVERY, ALL))["C1"]
    assert (c1["n"], c1["final"], c1["complete_delivery"], c1["target"], c1["build"]) == (3, True, 1 / 3, 1 / 3,
                                                                                          1.0)


def test_pending_and_invalid_rows_are_not_final_either() -> None:
    rows = [_delivered("T1", True), (Row("T2", "C1", "a", 0), RowOutcome(RowStatus.PENDING)),
            (Row("T3", "C1", "a", 0), RowOutcome(RowStatus.INVALID))]
    c1 = delivery_table(rows, planned_rows(rows, DELIVERY, ALL))["C1"]
    assert (c1["n"], c1["pending"], c1["invalid"], c1["unstarted"], c1["final"]) == (3, 1, 1, 0, False)
    assert c1["complete_delivery"] is None


def test_repeats_and_diagnostic_conditions_plan_their_own_targets() -> None:
    rows = [_delivered("T1", True), (Row("T4", "diag-C1", "a", 1), RowOutcome(RowStatus.SCORED))]
    planned = planned_rows(rows, DELIVERY, ALL)
    assert len(planned["C1"]) == 6  # 3 delivery targets x repeats {0, 1}
    assert len(planned["diag-C1"]) == 8  # every target x 2 repeats


def test_headline_and_plot_show_counts_not_a_rate_until_final() -> None:
    rows = [_delivered("T1", True), _delivered("T2", False)]
    table = delivery_table(rows, planned_rows(rows, DELIVERY, ALL))
    data = {"delivery": {c: {k: v for k, v in r.items() if k != "counts"} for c, r in table.items()},
            "delivery_counts": {c: {"n": r["n"], **r["counts"]} for c, r in table.items()}}
    assert headline(data) == {"C1 delivery": "1/3 passed so far, 1 unstarted: no rate yet"}
    bar = plots(data)[0]
    assert bar.series["delivery rate"] == [None] and bar.ci == [None]


def test_unstarted_diagnostic_targets_withhold_every_rq_rate_but_keep_counts() -> None:
    agg = {"rq3_decision": {"n": 3, "decision_accuracy": 2 / 3, "n_gold_act": 2},
           "rq2": {"n": 3, "pending": 0, "coverage": 0.5}}
    assert withhold_rates(agg, {"unstarted": 0})["rq3_decision"]["decision_accuracy"] == 2 / 3
    held = withhold_rates(agg, {"pending": 0, "invalid": 0, "unstarted": 1})
    assert held["n_unstarted"] == 1
    assert held["rq3_decision"] == {"n": 3, "decision_accuracy": None, "n_gold_act": 2}
    assert held["rq2"]["coverage"] is None


def test_rows_whose_gates_skipped_tests_are_counted() -> None:
    row, outcome = _delivered("T1", False)
    outcome.result.delivery["skipped_tests"] = {"target": ["hidden/test_target.py::test_fee"]}
    table = delivery_table([(row, outcome), _delivered("T2", True)])
    assert table["C1"]["rows_with_skipped_tests"] == 1


def _diagnostic(row: Row, status: RowStatus) -> tuple[Row, RowOutcome]:
    """A diagnostic row as the harness stores it when its Phase-A step failed: no response, kind kept."""
    return row, RowOutcome(status, {"kind": "diagnostic", "target_id": row.task_id, "condition": row.condition,
                                    "response": None})


def test_invalid_diagnostic_rows_withhold_the_rq3_headline_instead_of_scoring_zero() -> None:
    root = bundled_suite("takeover")
    suite = protocol_for_suite(root).load(root)
    planned = suite.plan(RunOptions(conditions=("diag-C1",)))
    every_invalid = suite.summarize([_diagnostic(row, RowStatus.INVALID) for row in planned])
    assert every_invalid.headline == {"diag-C1 RQ3 decision acc.": f"{len(planned)} invalid: no rate yet"}
    one_pending = [_diagnostic(planned[0], RowStatus.PENDING)] + [_diagnostic(r, RowStatus.SCORED) for r in planned[1:]]
    assert suite.summarize(one_pending).headline == {"diag-C1 RQ3 decision acc.": "1 pending: no rate yet"}
    resolved = suite.summarize([_diagnostic(row, RowStatus.SCORED) for row in planned])
    assert resolved.headline == {"diag-C1 RQ3 decision acc.": 0.0}  # every answer missing: agent failures
