"""Connection-related judgments must agree with the L1 connection inventory (paper appendix §13, O.5)."""

from types import SimpleNamespace
from typing import Any

import pytest

from reqbench.protocols.pace.case import load_case
from reqbench.protocols.pace.connections import check_connections
from reqbench.protocols.pace.l2 import PointRequest
from reqbench.protocols.pace.models import Checklist
from reqbench.protocols.pace.score import Scorer
from tests.protocols.pace.conftest import BILLFLOW

CLAIMS = {
    "CN10.c1": [{"kind": "registry", "target": "handlers.refund_credit_note"}],  # no such edge
    "CN13.c1": [{"kind": "registry", "target": "outbox.credit_note_issued"}],  # in the inventory
    "CN04.c1": [{"kind": "call", "target": "Nowhere.notify"}],  # behaviour point naming a fake edge
}


class Judge:
    judge_id = "scripted"

    def judge_point(self, req: PointRequest) -> dict[str, Any]:
        return {"evidence_checklist": [
            {"criterion_id": c["criterion_id"], "judgment": "covered", "evidence": "x",
             "connections": CLAIMS.get(c["criterion_id"], [])} for c in req.criteria]}


def test_uncorroborated_connection_claims_are_corrected_and_recorded() -> None:
    case = load_case(BILLFLOW)
    result = Scorer(case).score(case.reference_patch, Judge())
    v = {k: x.value for k, x in result.verdicts.items()}
    assert v["CN10"] == "Missing" and v["CN04"] == "Missing" and v["CN13"] == "Covered"
    # weights: total 94, CN10 = 7 and CN04 = 3 lose everything (their corrected criteria are hard)
    assert sum(case.weights.values()) == 94.0
    assert result.score == pytest.approx(100 * (94 - 7 - 3) / 94)
    points = {p.point_id: p.to_dict() for p in result.points}
    assert {"correction": {"criterion_id": "CN10.c1", "from": "covered", "to": "missing",
                           "reason": "connection not corroborated by the L1 connection inventory"}} \
        in points["CN10"]["connection_checks"]
    cn13 = [c for c in points["CN13"]["connection_checks"] if c.get("criterion_id") == "CN13.c1"]
    assert cn13[0]["corroborated"] is True and cn13[0]["edge"]
    assert "connection_checks" not in points["CN02"]  # behaviour, nothing claimed: not checked


def test_integration_point_without_candidate_edges_gets_no_credit() -> None:
    point = next(p for p in load_case(BILLFLOW).points if p.id == "CN13")
    checklist = Checklist.model_validate({"evidence_checklist": [
        {"criterion_id": "CN13.c1", "judgment": "partial", "evidence": "x"}]})
    base_only = SimpleNamespace(connections=[SimpleNamespace(
        kind="registry", source="a", target="b", file="f.py", line=1, origin="base")])
    checks, corrections = check_connections(point, checklist, base_only)  # type: ignore[arg-type]
    assert checks == [{"criterion_id": "CN13.c1", "claim": None, "corroborated": False, "edge": None}]
    assert corrections[0]["from"] == "partial"
    assert checklist.evidence_checklist[0].judgment.value == "missing"
