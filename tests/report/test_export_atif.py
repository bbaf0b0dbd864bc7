"""`reqbench export RUN --format atif --out DIR`: one ATIF trajectory.json per row, checked as plain JSON
against the rules of ATIF v1.x (Harbor's models validate the same files in tests/integration/test_atif_harbor)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from reqbench.cli.main import app
from reqbench.core.agents.base import AgentResult, AgentStatus, TrajectoryEvent, Usage
from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.core.llm.gateway import ModelCall, StoreRecorder
from reqbench.core.store import RunMeta, RunStore, utc_now

AGENT_STEP_ONLY = ("model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics")


def codex_like() -> AgentResult:
    """What the Codex preset stores: the gateway note, then codex's own items."""
    note = TrajectoryEvent("note", {"agent": "codex", "version": "0.171.0", "binary": "/cache/codex",
                                    "gateway": {"calls": 3, "prompt_tokens": 6300, "completion_tokens": 112}},
                           ts=1_790_000_000.25)
    return AgentResult(AgentStatus.COMPLETED, usage=Usage(6300, 112, 0.0201), reply="Done.", trajectory=[
        note,
        TrajectoryEvent("message", {"role": "assistant", "content": "Checking."}, ts=1_790_000_001.0,
                        usage=Usage(2000, 40)),
        TrajectoryEvent("command", {"command": "curl x", "exit_code": 7, "output": "refused"}, ts=1_790_000_002.0),
        TrajectoryEvent("message", {"role": "assistant", "content": "Editing."}, ts=1_790_000_003.0),
        TrajectoryEvent("file_edit", {"changes": [{"path": "greet.py", "kind": "update"}]}, ts=1_790_000_004.0),
        TrajectoryEvent("message", {"role": "assistant", "content": "Done."}, ts=1_790_000_005.0),
        TrajectoryEvent("reply", {"content": "Done."}, ts=1_790_000_006.0)])


def make_run(tmp_path: Path, protocol: str, rows: list[tuple[Row, dict[str, bytes]]]) -> Path:
    meta = RunMeta(suite_path="/s", protocol=protocol, options={"agent": "codex", "agent_options": {"model": "m1"}},
                   created=utc_now(), reqbench_version="9.9")
    with RunStore.create(tmp_path / "run", meta) as store:
        store.add_plan([row for row, _ in rows] + [Row("never", "C", "codex", 0)])
        for row, artifacts in rows:
            store.record_attempt(row, RowOutcome(RowStatus.SCORED, {"score": 1.0}, artifacts=artifacts,
                                                 reason="evaluated"))
    return tmp_path / "run"


def export(run: Path, out: Path) -> dict[str, dict[str, Any]]:
    res = CliRunner().invoke(app, ["export", str(run), "--format", "atif", "--out", str(out)])
    assert res.exit_code == 0, res.output
    return {p.parent.name: json.loads(p.read_text()) for p in sorted(out.glob("*/trajectory.json"))}


def check_atif_rules(doc: dict[str, Any]) -> None:
    """The structural rules Harbor's ATIF models enforce, by hand."""
    assert doc["schema_version"].startswith("ATIF-v1.")
    assert set(doc["agent"]) <= {"name", "version", "model_name", "tool_definitions", "extra"}
    assert [s["step_id"] for s in doc["steps"]] == list(range(1, len(doc["steps"]) + 1))
    for step in doc["steps"]:
        assert step["source"] in ("system", "user", "agent") and isinstance(step["message"], str)
        if step["source"] != "agent":
            assert not set(step) & set(AGENT_STEP_ONLY)
        ids = {c["tool_call_id"] for c in step.get("tool_calls", [])}
        assert all(r["source_call_id"] in ids for r in (step.get("observation") or {}).get("results", []))


def test_takeover_row_exports_both_stages_with_tool_calls_metrics_and_requirement_context(tmp_path: Path) -> None:
    diagnostic = AgentResult(AgentStatus.COMPLETED, usage=Usage(100, 10), trajectory=[
        TrajectoryEvent("message", {"role": "user", "content": "Diagnose."}, ts=1_790_000_000.0),
        TrajectoryEvent("reply", {"content": "R1 is missing."}, ts=1_790_000_000.5)])
    row = Row("proj-1", "full-history", "codex", 0)
    run = make_run(tmp_path, "takeover", [(row, {
        "phase_a_trajectory.json": json.dumps(diagnostic.to_dict()).encode(),
        "trajectory.json": json.dumps(codex_like().to_dict()).encode()})])
    with RunStore.open(run) as store:
        StoreRecorder.for_store(store).record(ModelCall(row_key=row.key, step=1, api="responses", model="m1",
                                                        request={}, response={}, status=200, prompt_tokens=6300,
                                                        completion_tokens=112, cost_usd=0.0201))
    docs = export(run, tmp_path / "atif")
    assert list(docs) == ["proj-1__full-history__codex__0"]  # the unstarted row has no file
    doc = docs["proj-1__full-history__codex__0"]
    check_atif_rules(doc)
    assert doc["agent"] == {"name": "codex", "version": "0.171.0", "model_name": "m1",
                            "extra": {"spec": "codex", "binary": "/cache/codex"}}
    steps = doc["steps"]
    assert [(s["source"], s["message"], s["extra"]["stage"]) for s in steps] == [
        ("user", "Diagnose.", "diagnostic"), ("agent", "R1 is missing.", "diagnostic"),
        ("system", "note", "coding"), ("agent", "Checking.", "coding"), ("agent", "Editing.", "coding"),
        ("agent", "Done.", "coding")]  # the reply repeating the last message is not a step of its own
    assert steps[0]["timestamp"] == "2026-09-21T14:13:20.000Z"
    check = steps[3]
    assert check["metrics"] == {"prompt_tokens": 2000, "completion_tokens": 40}
    assert check["tool_calls"] == [{"tool_call_id": "call_4_1", "function_name": "bash",
                                    "arguments": {"command": "curl x", "exit_code": 7}}]
    assert check["observation"] == {"results": [{"source_call_id": "call_4_1", "content": "refused"}]}
    assert steps[4]["tool_calls"][0]["arguments"] == {"changes": [{"path": "greet.py", "kind": "update"}]}
    assert steps[2]["extra"]["data"]["gateway"]["calls"] == 3
    assert doc["final_metrics"] == {"total_prompt_tokens": 6400, "total_completion_tokens": 122,
                                    "total_cost_usd": 0.0201, "total_steps": 6,
                                    "extra": {"usage_source": "gateway", "gateway": {
                                        "calls": 1, "upstream": 1, "replay": 0, "refused": 0,
                                        "prompt_tokens": 6300, "completion_tokens": 112, "cost_usd": 0.0201,
                                        "cost_complete": True, "models": {"m1": 1}}}}
    assert doc["extra"]["requirement"] == {"stage": ["diagnostic", "coding"], "turn": None, "target": "proj-1",
                                           "revision": None}
    assert doc["extra"]["reqbench"]["row_key"] == row.key and doc["extra"]["reqbench"]["attempt"] == 1


def test_specpath_revision_journey_turns_and_rows_without_a_trajectory(tmp_path: Path) -> None:
    sp = Row("fam", "override", "llm", 0)
    run = make_run(tmp_path, "specpath", [(sp, {"agent_result": json.dumps(codex_like().to_dict()).encode()}),
                                          (Row("bare", "direct", "llm", 0), {})])
    docs = export(run, tmp_path / "atif")
    assert docs["fam__override__llm__0"]["extra"]["requirement"] == {"stage": None, "turn": None, "target": "fam",
                                                                     "revision": "override"}
    bare = docs["bare__direct__llm__0"]
    check_atif_rules(bare)
    assert bare["steps"] == [{"step_id": 1, "source": "system",
                              "message": "no agent trajectory was stored for this row (status scored: evaluated)"}]
    assert bare["agent"]["version"] == "9.9" and bare["final_metrics"]["extra"] == {"usage_source": "agent"}

    transcript = {"assistant_usage": {"prompt_tokens": 30, "completion_tokens": 3, "cost_usd": None}, "turns": [
        {"index": 1, "stage": 0, "user_message": "Add login.", "reply": "Added.", "status": "completed",
         "usage": {"prompt_tokens": 10, "completion_tokens": 1, "cost_usd": None}, "changed_files": ["a.py"]},
        {"index": 2, "stage": 1, "user_message": "Now logout.", "reply": "Done.", "status": "completed",
         "usage": {"prompt_tokens": 20, "completion_tokens": 2, "cost_usd": None}, "changed_files": []}]}
    jr = Row("inst", "interactive", "llm", 0)
    run2 = make_run(tmp_path / "j", "journey", [(jr, {"transcript.json": json.dumps(transcript).encode()})])
    doc = export(run2, tmp_path / "atif2")["inst__interactive__llm__0"]
    check_atif_rules(doc)
    assert [(s["source"], s["message"], s["extra"]) for s in doc["steps"]] == [
        ("user", "Add login.", {"turn": 1, "stage": 0}),
        ("agent", "Added.", {"turn": 1, "stage": 0, "data": {"status": "completed", "changed_files": ["a.py"]}}),
        ("user", "Now logout.", {"turn": 2, "stage": 1}),
        ("agent", "Done.", {"turn": 2, "stage": 1, "data": {"status": "completed", "changed_files": []}})]
    assert doc["steps"][3]["metrics"] == {"prompt_tokens": 20, "completion_tokens": 2}
    assert doc["extra"]["requirement"]["turn"] == 2
    assert (doc["final_metrics"]["total_prompt_tokens"], doc["final_metrics"]["total_completion_tokens"]) == (30, 3)
