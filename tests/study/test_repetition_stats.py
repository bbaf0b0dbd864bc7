"""Case spread and label stability across records (`study.repetition`) on hand-made records, and the
study hooks' judge labels for the takeover semantic judge and the journey capability judge."""

from __future__ import annotations

import math

import pytest

from reqbench.core.execute.types import RowOutcome, RowStatus
from reqbench.protocols.journey.study import STUDY as journey
from reqbench.protocols.pace.study import STUDY as pace
from reqbench.protocols.takeover.study import STUDY as takeover
from reqbench.study.repetition import spread, stability


def test_spread_averages_sample_sd_and_range_over_units_in_every_record() -> None:
    records = [{("a",): 60.0, ("b",): 10.0, ("c",): 5.0}, {("a",): 70.0, ("b",): 10.0}, {("a",): 80.0, ("b",): 13.0}]
    found = spread(records)
    # a: 60, 70, 80 -> SD 10, range 20; b: 10, 10, 13 -> SD sqrt(3), range 3; c is not in every record
    assert found.units == 2 and found.records == 3
    assert found.mean_sd == pytest.approx((10 + math.sqrt(3)) / 2)
    assert found.mean_range == pytest.approx(11.5)
    assert spread(records[:1]).mean_sd is None  # one record: no spread


def test_nominal_labels_use_unweighted_kappa() -> None:
    a = {("r", "1"): "yes", ("r", "2"): "yes", ("r", "3"): "no", ("r", "4"): "no"}
    b = {("r", "1"): "yes", ("r", "2"): "no", ("r", "3"): "no", ("r", "4"): "no"}
    found = stability([a, b], None)
    # P_o = 3/4; P_e = 1/2 * 1/4 + 1/2 * 3/4 = 1/2 -> kappa = (3/4 - 1/2) / (1/2) = 1/2
    assert found.items == 4 and found.pairs == 1
    assert found.unanimous == 0.75 and found.agreement == 0.75 and found.kappa == pytest.approx(0.5)
    assert found.severe is None


def test_ordered_labels_count_opposite_extremes_and_leave_unresolved_out_of_kappa() -> None:
    a = {("r", "p1"): "Covered", ("r", "p2"): "Missing", ("r", "p3"): "Unresolved"}
    b = {("r", "p1"): "Missing", ("r", "p2"): "Missing", ("r", "p3"): "Covered"}
    found = stability([a, b], pace.label_order)
    assert found.severe == pytest.approx(1 / 3) and found.agreement == pytest.approx(1 / 3)
    # kappa over p1, p2 only: P_o = (0 + 1) / 2; P_e = (1/2 * 1 * 0) + (1/2 * 1 * 1) = 1/2 -> 0
    assert found.kappa == pytest.approx(0.0)


def _scored(result: dict) -> RowOutcome:
    return RowOutcome(status=RowStatus.SCORED, result=result)


def test_journey_reader_names_each_turns_capability_labels() -> None:
    caps = {"method": "judge:llm:m", "turn_labels": [{"solicits": True, "locus": "hit", "problem": None}]}
    assert journey.judge_labels(_scored({"capabilities": caps})) == {
        "turn0.solicits": "True", "turn0.locus": "hit", "turn0.problem": "None"}
    assert journey.judge_labels(_scored({"capabilities": {"method": "heuristic"}})) == {}


def test_takeover_reader_keeps_accepted_semantic_judge_labels_only() -> None:
    records = [{"contract": "text_equivalence", "request_key": "ab" * 20, "accepted": True,
                "labels": {"f1": "EQUIVALENT"}},
               {"contract": "text_equivalence", "request_key": "cd" * 20, "accepted": False, "labels": {}}]
    found = takeover.judge_labels(_scored({"score": {"judge_records": records}}))
    assert found == {f"text_equivalence:{'ab' * 8}/f1": "EQUIVALENT"}
    assert takeover.judge_labels(_scored({"score": None})) == {}
