"""`pace synthesize`: the paper's PRD-reconstruction and contract-audit prompts (appendix O.2, "Contract
Review") against the scripted OpenAI-compatible server on 127.0.0.1."""

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from reqbench.core.errors import InputError
from reqbench.protocols.pace.audit import audit_candidates
from reqbench.protocols.pace.reconstruct import ProductionRecord, evidence_message, reconstruct_prd
from tests.support.scripted_openai import Reply, ScriptedOpenAI, reply

RECORD = {
    "task_title": "Credit notes",
    "documents": ["Invoices can be credited in full or in part."],
    "conversation": [
        {"role": "user", "content": "Add credit notes for invoices."},
        {"role": "assistant", "content": "I added CreditNoteService.issue_partial_v2 in billflow/credit.py."},
        {"role": "user", "content": "Actually a credit note may never exceed the open amount."},
    ],
    "changed_files": ["billflow/credit.py"],
}
PRD = "## Goals\nCredit notes for invoices.\n\n## Business rules\nA credit note never exceeds the open amount.\n"
POINTS = [{"id": "CP01", "description": "issue a credit note"}, {"id": "CP02", "description": "cap"},
          {"id": "CP03", "description": "file billflow/credit.py exists"}]


def _audit(*entries: dict[str, Any], questions: list[str] | None = None) -> Reply:
    return reply(json.dumps({"audit": list(entries), "scope_questions": questions or []}))


def test_reconstruction_labels_clarifications_and_marks_generated_names_as_not_requirements() -> None:
    text = evidence_message(ProductionRecord.model_validate(RECORD))
    assert text.index("## Requirement document 1") < text.index("## User request")
    assert "## User clarification 1 (later)\nActually a credit note may never exceed" in text
    assert "## Assistant message (generated; its names are not requirements)" in text
    assert text.rstrip().endswith("## Changed files (alignment only)\nbillflow/credit.py")


def test_reconstruction_reasks_once_on_unsupported_sections_then_returns_the_prd(env: pytest.MonkeyPatch) -> None:
    script = [reply("## Progress so far\nI implemented it."), reply("```markdown\n" + PRD + "```")]
    with ScriptedOpenAI(script) as srv:
        env.setenv("REQBENCH_BASE_URL", srv.base_url)
        prd = reconstruct_prd(ProductionRecord.model_validate(RECORD), "m")
        bodies = srv.chat_requests
    assert prd == PRD
    assert "Do not make a name mandatory merely because generated" in bodies[0]["messages"][0]["content"]
    assert "sections outside the supported list: ['Progress so far']" in bodies[1]["messages"][-1]["content"]


def test_reconstruction_refuses_after_two_malformed_answers(env: pytest.MonkeyPatch) -> None:
    with ScriptedOpenAI([reply("no headings"), reply("still none")]) as srv:
        env.setenv("REQBENCH_BASE_URL", srv.base_url)
        with pytest.raises(InputError, match="rejected twice"):
            reconstruct_prd(ProductionRecord.model_validate(RECORD), "m")


def test_audit_attaches_recommendations_in_candidate_order_and_reasks_on_a_missing_candidate(
        env: pytest.MonkeyPatch) -> None:
    keep = {"id": "CP01", "recommendation": "keep", "flags": [], "reason": "PRD goal + issue()"}
    merge = {"id": "CP02", "recommendation": "merge", "merge_with": ["CP01"], "flags": ["duplicate"]}
    remove = {"id": "CP03", "recommendation": "remove", "flags": ["unsupported_name"],
              "reason": "file existence alone proves no behaviour"}
    script = [_audit(keep, merge), _audit(remove, merge, keep, questions=["partial credits in scope?"])]
    with ScriptedOpenAI(script) as srv:
        env.setenv("REQBENCH_BASE_URL", srv.base_url)
        out = audit_candidates(PRD, "diff --git a/x b/x\n", POINTS, "m")
        bodies = srv.chat_requests
    assert [e["id"] for e in out["audit"]] == ["CP01", "CP02", "CP03"]
    assert out["recommendations"] == {"keep": 1, "merge": 1, "rewrite": 0, "remove": 1}
    assert out["scope_questions"] == ["partial credits in scope?"]
    assert "candidates not audited: ['CP03']" in bodies[1]["messages"][-1]["content"]
    sent = json.loads(bodies[0]["messages"][1]["content"].removeprefix("DATA\n"))
    assert set(sent) == {"standardized_prd", "reference_patch", "proposed_code_points"}


@pytest.mark.parametrize("entry, rule", [
    ({"id": "CP01", "recommendation": "drop"}, "recommendation must be one of"),
    ({"id": "CP01", "recommendation": "merge", "merge_with": ["CP01"]}, "merge needs merge_with"),
    ({"id": "CP01", "recommendation": "keep", "flags": ["vibes"]}, "unknown flags"),
    ({"id": "CP09", "recommendation": "keep"}, "unknown candidate"),
])
def test_audit_refuses_malformed_answers_twice(env: pytest.MonkeyPatch, entry: dict[str, Any], rule: str) -> None:
    with ScriptedOpenAI([_audit(entry), _audit(entry)]) as srv:
        env.setenv("REQBENCH_BASE_URL", srv.base_url)
        with pytest.raises(InputError, match=rule):
            audit_candidates(PRD, "", POINTS[:1], "m")


def test_cli_reconstructs_the_prd_from_a_record_then_synthesizes_and_audits(tmp_path: Path) -> None:
    record = tmp_path / "record.json"
    record.write_text(json.dumps(RECORD))
    diff = tmp_path / "ref.patch"
    diff.write_text("diff --git a/billflow/credit.py b/billflow/credit.py\n")
    point = {"id": "CP01", "description": "d", "provenance": "explicit", "weight": 1,
             "criteria": [{"criterion_id": "CP01.c1", "text": "t"}]}
    script = [
        reply(PRD),
        reply(json.dumps({"functional_points": [{"description": "credit notes"}]})),
        reply(json.dumps({"change_points": [{"target_file": "billflow/credit.py"}]})),
        reply(json.dumps({"code_points": [point]})),
        _audit({"id": "CP01", "recommendation": "rewrite", "flags": ["composite"]}),
    ]
    with ScriptedOpenAI(script) as srv:
        env = {**os.environ, "REQBENCH_BASE_URL": srv.base_url, "REQBENCH_API_KEY": "k", "REQBENCH_MODEL": "m"}
        env.pop("REQBENCH_LLM_CACHE", None)
        proc = subprocess.run([sys.executable, "-m", "reqbench.cli.main", "pace", "synthesize", "--record",
                               str(record), "--diff", str(diff), "--out", str(tmp_path / "cand.yaml")],
                              capture_output=True, text=True, env=env, timeout=120)
        bodies = srv.chat_requests
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "cand.prd.md").read_text() == PRD
    doc = yaml.safe_load((tmp_path / "cand.yaml").read_text())
    assert doc["reviewed"] is False and doc["prd_reconstructed_from"] == str(record)
    assert doc["code_points"] == [point]  # the audit attaches findings, it never edits candidates
    assert doc["contract_audit"]["audit"][0]["recommendation"] == "rewrite"
    assert len(bodies) == 5 and "Credit notes for invoices." in bodies[1]["messages"][1]["content"]


def test_cli_needs_exactly_one_prd_source(tmp_path: Path) -> None:
    diff = tmp_path / "d.patch"
    diff.write_text("")
    proc = subprocess.run([sys.executable, "-m", "reqbench.cli.main", "pace", "synthesize", "--diff", str(diff),
                           "--out", str(tmp_path / "c.yaml")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "exactly one of --prd and --record" in proc.stderr + proc.stdout
    assert not (tmp_path / "c.yaml").exists()
