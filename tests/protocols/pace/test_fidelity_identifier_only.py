"""Identifier-only control pooled over targeted behavioural points (paper appendix "Controls", 4.03)."""

import json

import pytest

from reqbench.protocols.pace.case import load_case
from reqbench.protocols.pace.controls import identifier_only_targets, pooled_identifier_only
from tests.protocols.pace.conftest import BILLFLOW, EXAMPLES, run_cli


def _control(weights: dict[str, float], verdicts: dict[str, str]) -> dict:
    return {"details": {"identifier_only": {"targets": {"weights": weights, "verdicts": verdicts}}}}


def test_the_papers_4_03_from_its_counts() -> None:
    # 54 targeted criteria, weights sum 109.105, three Partials whose weights sum 8.8, 51 Missing.
    partial = {"p1": 3.0, "p2": 3.0, "p3": 2.8}
    missing = {f"m{i}": 100.305 / 51 for i in range(51)}
    pooled = pooled_identifier_only([_control({**partial, **missing},
                                              {**dict.fromkeys(partial, "Partial"),
                                               **dict.fromkeys(missing, "Missing")})])
    assert pooled["targeted_points"] == 54
    assert pooled["weight"] == pytest.approx(109.105)
    assert pooled["score"] == pytest.approx(100 * 0.5 * 8.8 / 109.105)
    assert round(pooled["score"], 2) == 4.03


def test_pooling_is_over_points_not_a_mean_of_case_scores() -> None:
    a = _control({"a1": 2.0, "a2": 3.0}, {"a1": "Partial", "a2": "Missing"})  # case score 20
    b = _control({"b1": 5.0}, {"b1": "Missing"})  # case score 0
    pooled = pooled_identifier_only([a, b])
    assert pooled["score"] == pytest.approx(10.0)  # 100 * 0.5*2 / 10, not (20 + 0) / 2
    assert pooled["verdicts"] == {"Covered": 0, "Partial": 1, "Missing": 2, "Unresolved": 0}
    blocked = pooled_identifier_only([_control({"x": 1.0}, {"x": "Unresolved"})])
    assert blocked["score"] is None


def test_targets_are_behavioural_points_the_stub_reaches() -> None:
    case = load_case(BILLFLOW)
    patch = ("--- a/billflow/services/credit_notes.py\n+++ b/billflow/services/credit_notes.py\n"
             "@@ -0,0 +1,2 @@\n+class CreditNoteService:\n+    pass\n")
    targets = identifier_only_targets(case, patch)
    kinds = {p.id: p.kind for p in case.points}
    assert "CN02" in targets  # hint: billflow/services/credit_notes.py, behaviour
    assert "CN01" not in targets  # structure point (symbol_exists contract) is not behavioural
    assert all(kinds[t] in ("behavior", "integration", "registration") for t in targets)


def test_cli_pools_a_suite() -> None:
    proc = run_cli("pace", "controls", str(EXAMPLES), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert sorted(c["case_id"] for c in out["cases"]) == ["billflow-credit-notes", "cachetools-slru",
                                                          "shopcart-discounts"]
    pooled = out["identifier_only_pooled"]
    assert pooled["cases"] == 3 and pooled["targeted_points"] > 0
    assert pooled["score"] == 0.0  # the offline heuristic gives stubs no credit on the bundled cases
