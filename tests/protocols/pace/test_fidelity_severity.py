"""Severity is judged (paper O.5 schema, appendix §13); the frozen severity is the default, overrides are
recorded and fold."""

from typing import Any

import pytest

from reqbench.protocols.pace.case import load_case
from reqbench.protocols.pace.l2 import PointRequest, judged_severities, validate_checklist
from reqbench.protocols.pace.score import Scorer
from tests.protocols.pace.conftest import BILLFLOW


class Judge:
    judge_id = "scripted"

    def __init__(self, overrides: dict[str, tuple[str, str]]) -> None:
        self.overrides = overrides  # criterion id -> (severity, judgment)

    def judge_point(self, req: PointRequest) -> dict[str, Any]:
        out = []
        for c in req.criteria:
            entry = {"criterion_id": c["criterion_id"], "judgment": "covered", "evidence": "x"}
            if c["criterion_id"] in self.overrides:
                entry["severity"], entry["judgment"] = self.overrides[c["criterion_id"]]
            out.append(entry)  # no severity key: the frozen default is confirmed
        return {"evidence_checklist": out}


def test_an_omitted_severity_confirms_the_frozen_default() -> None:
    point = next(p for p in load_case(BILLFLOW).points if p.id == "CN07")
    checklist = validate_checklist(point, {"evidence_checklist": [
        {"criterion_id": c.criterion_id, "judgment": "covered", "evidence": "x"} for c in point.criteria]})
    sev, changes = judged_severities(point, checklist)
    assert {k: v.value for k, v in sev.items()} == {c.criterion_id: c.severity.value for c in point.criteria}
    assert changes == []


def test_overrides_fold_with_the_judged_severity_and_are_recorded() -> None:
    case = load_case(BILLFLOW)
    crit = {c.criterion_id: c.severity.value for p in case.points for c in p.criteria}
    assert crit["CN07.c3"] == "soft" and crit["CN03.c1"] == "hard"
    judge = Judge({"CN07.c3": ("hard", "missing"),  # frozen soft -> judged hard: Missing
                   "CN03.c1": ("soft", "missing")})  # frozen hard -> judged soft: Partial
    result = Scorer(case).score(case.reference_patch, judge)
    v = {k: x.value for k, x in result.verdicts.items()}
    assert v["CN07"] == "Missing" and v["CN03"] == "Partial"
    w = case.weights
    total = sum(w.values())
    # hand computation: CN07 earns 0, CN03 earns half, every other point full credit
    assert result.score == pytest.approx(100 * (total - w["CN07"] - 0.5 * w["CN03"]) / total)
    points = {p.point_id: p.to_dict() for p in result.points}
    assert points["CN07"]["severity_changes"] == [
        {"criterion_id": "CN07.c3", "frozen": "soft", "judged": "hard"}]
    assert points["CN03"]["severity_changes"] == [
        {"criterion_id": "CN03.c1", "frozen": "hard", "judged": "soft"}]
    assert "severity_changes" not in points["CN04"]
