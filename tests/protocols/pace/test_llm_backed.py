"""The llm judge and the synthesis passes against the scripted OpenAI-compatible server on 127.0.0.1."""

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from reqbench.protocols.pace.case import load_case
from reqbench.protocols.pace.score import Scorer
from reqbench.protocols.pace.synthesize import synthesize
from tests.protocols.pace.conftest import BILLFLOW
from tests.support.gullible import pace_citation, pace_criteria
from tests.support.scripted_openai import Reply, ScriptedOpenAI, reply


def _criteria(body: dict[str, Any]) -> list[dict[str, Any]]:
    return pace_criteria(body)


def _checklist(body: dict[str, Any], judgment: str = "covered") -> str:
    cite = pace_citation(body)
    return json.dumps({"evidence_checklist": [
        {"criterion_id": c["criterion_id"], "severity": c["severity"], "judgment": judgment, "evidence": "cited",
         "citations": [cite] if cite else []}
        for c in _criteria(body)]})


def test_llm_judge_sees_criteria_and_evidence_but_never_weights_or_reference(env: pytest.MonkeyPatch) -> None:
    case = load_case(BILLFLOW)
    with ScriptedOpenAI(lambda body, i: reply(_checklist(body))) as srv:
        env.setenv("REQBENCH_BASE_URL", srv.base_url)
        result = Scorer(case).score(case.reference_patch, "llm:test-model")
        bodies = srv.chat_requests
    assert result.score == 100.0 and result.judge_id == "llm:test-model"
    prompt = json.dumps(bodies)
    assert '"weight"' not in prompt and "reference.patch" not in prompt
    assert all(b["temperature"] == 0 for b in bodies)
    # L0 closes nothing on the reference, so every point reached the judge exactly once
    assert len(bodies) == len(case.points)


def test_answers_that_rewrite_criteria_are_retried_then_left_pending(env: pytest.MonkeyPatch) -> None:
    case = load_case(BILLFLOW)

    def script(body: dict[str, Any], i: int) -> Reply:
        crit = _criteria(body)
        if crit[0]["criterion_id"] == "CN04.c1":  # always invents an extra criterion for CN04
            extra = json.loads(_checklist(body))
            extra["evidence_checklist"].append({**extra["evidence_checklist"][0], "criterion_id": "CN04.c9"})
            return reply(json.dumps(extra))
        return reply(_checklist(body))

    with ScriptedOpenAI(script) as srv:
        env.setenv("REQBENCH_BASE_URL", srv.base_url)
        result = Scorer(case).score(case.reference_patch, "llm:test-model")
        cn04 = [b for b in srv.chat_requests if _criteria(b)[0]["criterion_id"] == "CN04.c1"]
    assert result.verdicts["CN04"].value == "Unresolved" and result.score is None
    assert len(cn04) == 3
    assert "rejected by the evaluator" in cn04[1]["messages"][1]["content"]


def test_synthesis_runs_three_passes_and_marks_output_unreviewed(env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    script = [
        reply(json.dumps({"functional_points": [{"description": "credit notes", "priority": "high"}]})),
        reply(json.dumps({"change_points": [{"target_file": "billflow/models.py", "change_type": "modified"}]})),
        reply("```json\n" + json.dumps({"code_points": [
            {"id": "CP01", "description": "d", "provenance": "explicit", "weight": 1,
             "criteria": [{"criterion_id": "CP01.c1", "text": "t"}]}]}) + "\n```"),
    ]
    case = load_case(BILLFLOW)
    with ScriptedOpenAI(script) as srv:
        env.setenv("REQBENCH_BASE_URL", srv.base_url)
        out = synthesize(case.prd, case.reference_patch, tmp_path / "cand.yaml", model="m", audit=False)
        bodies = srv.chat_requests
    doc = yaml.safe_load(out.read_text())
    assert doc["reviewed"] is False and doc["code_points"][0]["id"] == "CP01"
    assert len(bodies) == 3
    assert "diff --git" not in bodies[0]["messages"][1]["content"]  # the PRD pass sees no code
    assert "## Goal" not in bodies[1]["messages"][1]["content"]  # the diff pass sees no PRD
    assert "billflow/models.py" in bodies[2]["messages"][1]["content"]  # reconciliation gets both views
