"""L2 binds judges to the frozen criteria; missing evidence gets one expansion, then blocks the score."""

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from reqbench.core.errors import InputError
from reqbench.core.judges.base import JudgeRejected
from reqbench.protocols.pace.case import freeze_case, load_case
from reqbench.protocols.pace.l2 import PointRequest, validate_checklist
from reqbench.protocols.pace.score import Scorer
from tests.protocols.pace.conftest import BILLFLOW


@pytest.fixture
def case_dir(tmp_path: Path) -> Path:
    dest = tmp_path / "case"
    shutil.copytree(BILLFLOW, dest)
    return dest


def _entries(req: PointRequest, judgment: str = "covered") -> list[dict[str, Any]]:
    return [
        {
            "criterion_id": c["criterion_id"],
            "severity": c["severity"],
            "judgment": judgment,
            "evidence": "CreditNoteService.issue",
        }
        for c in req.criteria
    ]


class ScriptedJudge:
    """Answers from a function of the request (a real judge object, deterministic)."""

    judge_id = "scripted"

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        self.requests: list[PointRequest] = []

    def judge_point(self, request: PointRequest) -> Any:
        self.requests.append(request)
        return self.fn(request)


def test_checklist_with_an_invented_criterion_is_rejected() -> None:
    point = load_case(BILLFLOW).points[0]
    good = [
        {"criterion_id": c.criterion_id, "severity": c.severity.value, "judgment": "covered", "evidence": "x"}
        for c in point.criteria
    ]
    validate_checklist(point, {"evidence_checklist": good})
    for bad in (
        [*good, {**good[0], "criterion_id": "NEW.c9"}],
        good[:-1],
        [*good, good[0]],
        [{**good[0], "evidence": " "}, *good[1:]],
    ):
        with pytest.raises(JudgeRejected):
            validate_checklist(point, {"evidence_checklist": bad})


def test_missing_evidence_gets_exactly_one_expansion_then_blocks_the_score() -> None:
    scorer = Scorer(load_case(BILLFLOW))

    def answer(req: PointRequest) -> dict[str, Any]:
        return {"evidence_checklist": _entries(req), "missing_evidence": ["Store::nonexistent_helper"]}

    judge = ScriptedJudge(answer)
    result = scorer.score(load_case(BILLFLOW).reference_patch, judge)
    assert result.score is None and result.complete is False
    assert all(v.value == "Unresolved" for v in result.verdicts.values())
    rounds = {}
    for r in judge.requests:
        rounds.setdefault(r.point_id, []).append(r.round)
    assert all(v == [0, 1] for v in rounds.values())


def test_expansion_supplies_the_named_owner_method_and_its_same_owner_helpers() -> None:
    case = load_case(BILLFLOW)
    scorer = Scorer(case)

    def answer(req: PointRequest) -> dict[str, Any]:
        if req.round == 0:
            return {"evidence_checklist": _entries(req), "missing_evidence": ["Outbox::credit_note_issued"]}
        assert "billflow/handlers/notify.py::Outbox.credit_note_issued" in req.evidence_text
        assert "Outbox._send" in req.evidence_text  # same-owner helper, one hop
        return {"evidence_checklist": _entries(req, "partial")}

    result = scorer.score(case.reference_patch, ScriptedJudge(answer))
    assert set(result.verdicts.values()) - {"Missing"} <= {"Partial"}  # L0 may close points earlier
    assert result.score is not None and result.score <= 50.0


def test_hard_miss_soft_miss_and_partial_fold_deterministically() -> None:
    case = load_case(BILLFLOW)
    scorer = Scorer(case)

    def answer(req: PointRequest) -> dict[str, Any]:
        entries = _entries(req)
        if req.point_id == "CN07":  # c1 hard, c2 hard, c3 soft -> soft miss only
            entries[2]["judgment"] = "missing"
        if req.point_id == "CN03":
            entries[0]["judgment"] = "missing"  # hard miss
        return {"evidence_checklist": entries}

    result = scorer.score(case.reference_patch, ScriptedJudge(answer))
    v = {k: x.value for k, x in result.verdicts.items()}
    assert v["CN07"] == "Partial" and v["CN03"] == "Missing"
    w = case.weights
    expected = 100 * (sum(w.values()) - w["CN03"] - 0.5 * w["CN07"]) / sum(w.values())
    assert result.score == pytest.approx(expected)
    assert result.complete is False


def test_replay_judge_without_a_recording_leaves_points_unresolved(tmp_path: Path) -> None:
    (tmp_path / "r.jsonl").write_text("")
    case = load_case(BILLFLOW)
    result = Scorer(case).score(case.reference_patch, f"replay:{tmp_path / 'r.jsonl'}")
    assert result.score is None


def test_replay_judge_reads_checklists_from_the_one_replay_format(tmp_path: Path) -> None:
    """Recorded checklists are call records keyed by ``pace/CASE/POINT/round-N`` with the checklist as their
    answer; the last accepted record for a key wins, as for every replay file."""
    case = load_case(BILLFLOW)
    lines = []
    for point in case.points:
        judgment = "missing" if point.id == "CN03" else "covered"
        checklist = {"evidence_checklist": [
            {"criterion_id": c.criterion_id, "evidence": "recorded", "judgment": judgment}
            for c in point.criteria]}
        key = f"pace/{case.id}/{point.id}/round-0"
        lines.append(json.dumps({"request_key": key, "answer": {"evidence_checklist": []}}))
        lines.append(json.dumps({"request_key": key, "answer": checklist, "judge_id": "human"}))
    (tmp_path / "r.jsonl").write_text("\n".join(lines) + "\n")
    result = Scorer(case).score(case.reference_patch, f"replay:{tmp_path / 'r.jsonl'}")
    w = case.weights
    assert result.verdicts["CN03"].value == "Missing"
    assert result.score == pytest.approx(100 * (sum(w.values()) - w["CN03"]) / sum(w.values()))


def test_contract_edited_after_freezing_is_refused(case_dir: Path) -> None:
    data = yaml.safe_load((case_dir / "case.yaml").read_text())
    data["code_points"][0]["weight"] = 40
    (case_dir / "case.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(InputError, match="frozen_hash"):
        Scorer(load_case(case_dir))
    freeze_case(case_dir)
    assert Scorer(load_case(case_dir)).frozen_hash == load_case(case_dir).spec.frozen_hash


def test_validate_reports_duplicate_ids_and_dangling_hints(case_dir: Path) -> None:
    from reqbench.protocols.pace.validate import validate_path

    data = yaml.safe_load((case_dir / "case.yaml").read_text())
    data["code_points"][1]["id"] = data["code_points"][0]["id"]
    data["code_points"][2]["retrieval_hints"] = ["billflow/nowhere.py::Thing"]
    (case_dir / "case.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    freeze_case(case_dir)
    problems = validate_path(case_dir)
    assert any("point id is not unique" in p for p in problems)
    data["code_points"][1]["id"] = "CN02"
    (case_dir / "case.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    freeze_case(case_dir)
    problems = validate_path(case_dir)
    assert any("nowhere.py" in p and "neither in the base" in p for p in problems)
