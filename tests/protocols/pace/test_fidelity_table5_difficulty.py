"""Table 5 judging variants, difficulty groups and Spearman (paper §4.1, §4.4, appendix)."""

from types import SimpleNamespace
from typing import Any

import pytest

from reqbench.core.stats.rank import average_ranks, spearman
from reqbench.protocols.pace.case import load_case
from reqbench.protocols.pace.difficulty import difficulty, group_of
from reqbench.protocols.pace.l2 import PointRequest
from reqbench.protocols.pace.models import Provenance
from reqbench.protocols.pace.score import Scorer
from tests.protocols.pace.conftest import BILLFLOW


class Recorder:
    judge_id = "scripted"

    def __init__(self, answer: Any) -> None:
        self.answer, self.requests = answer, []

    def judge_point(self, req: PointRequest) -> Any:
        self.requests.append((req.round, req.variant, req.evidence_text, list(req.connection_inventory)))
        return self.answer(req)


def _all(req: PointRequest, judgment: str = "covered", missing: list[str] | None = None) -> dict:
    return {"evidence_checklist": [{"criterion_id": c["criterion_id"], "judgment": judgment, "evidence": "x"}
                                   for c in req.criteria], "missing_evidence": missing or []}


def test_full_diff_variant_shows_the_whole_patch_and_no_inventory() -> None:
    case = load_case(BILLFLOW)
    judge = Recorder(_all)
    res = Scorer(case).score(case.reference_patch, judge, variant="full-diff")
    assert res.judge_id == "scripted#full-diff"
    assert all(text == case.reference_patch and inv == [] for _, _, text, inv in judge.requests)


def test_no_checklist_takes_the_direct_verdict() -> None:
    case = load_case(BILLFLOW)
    judge = Recorder(lambda req: {"verdict": "Partial" if req.point_id == "CN04" else "Covered"})
    res = Scorer(case).score(case.reference_patch, judge, variant="no-checklist")
    w = case.weights
    assert res.verdicts["CN04"].value == "Partial"
    assert res.score == pytest.approx(100 * (94 - 0.5 * w["CN04"]) / 94)  # 100 * 92.5 / 94


def test_no_expansion_leaves_missing_evidence_unresolved_after_one_round() -> None:
    case = load_case(BILLFLOW)
    judge = Recorder(lambda req: _all(req, missing=["Store::helper"]))
    res = Scorer(case).score(case.reference_patch, judge, variant="no-expansion")
    assert res.score is None and {r for r, *_ in judge.requests} == {0}


def test_spearman_by_hand() -> None:
    assert average_ranks([10, 20, 20, 30]) == [1, 2.5, 2.5, 4]
    # ranks x 1..5, y 2,1,4,3,5: d = -1,1,-1,1,0 -> rho = 1 - 6*4/(5*24) = 0.8
    out = spearman([1, 2, 3, 4, 5], [20, 10, 40, 30, 50])
    assert out["rho"] == pytest.approx(0.8) and out["n"] == 5
    assert spearman([1, 2], [2, 1])["rho"] is None


def test_difficulty_groups_and_rho_by_hand() -> None:
    def case(cid: str, derived: int, total: int) -> Any:
        pts = [SimpleNamespace(provenance=Provenance.DERIVED if i < derived else Provenance.EXPLICIT)
               for i in range(total)]
        return SimpleNamespace(id=cid, points=pts)

    cases = [case("a", 0, 4), case("b", 1, 4), case("c", 2, 4), case("d", 3, 4)]  # 0, .25, .5, .75
    assert [group_of(x) for x in (0.0, 0.25, 0.5, 0.75)] == ["<25%", "25-50%", "25-50%", ">50%"]
    out = difficulty(cases, {"a": 80.0, "b": 70.0, "c": 50.0, "d": 60.0})
    assert out["groups"] == {"<25%": {"cases": 1, "mean_score": 80.0},
                             "25-50%": {"cases": 2, "mean_score": 60.0},
                             ">50%": {"cases": 1, "mean_score": 60.0}}
    # score ranks 4,3,1,2 against share ranks 1..4: d = -3,-1,2,2 -> rho = 1 - 6*18/(4*15) = -0.8
    assert out["spearman"]["rho"] == pytest.approx(-0.8)
