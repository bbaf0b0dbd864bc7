"""Runs for the browser tests: a real specpath run (null control agent, seconds) and small synthetic
runs of takeover, journey and pace whose agent output is hostile HTML."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from reqbench.core.execute.types import Row, RowOutcome
from reqbench.core.llm.gateway import ModelCall, StoreRecorder
from reqbench.core.store import RunMeta, RunStore, utc_now
from tests.browser.browser import missing
from tests.cli.generic_helpers import cli_cmd, cli_env

HOSTILE = "<script>document.title='pwned'</script><img src=x onerror=alert(1)>"
DIFF = ("diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n"
        f"-OLD = 1\n+NEW = 2  # {HOSTILE}\n")


@pytest.fixture(scope="session", autouse=True)
def _need_browser() -> None:
    why = missing()
    if why is not None:
        if os.environ.get("CI"):
            pytest.fail(f"browser tests must run in CI: {why}")
        pytest.skip(why)


def _run(root: Path, name: str, protocol: str, agent: str,
         rows: list[tuple[Row, str, dict[str, Any], dict[str, bytes]]], suite: Path | None = None) -> Path:
    meta = RunMeta(suite_path=str(suite or root / "no-suite"), protocol=protocol,
                   options={"agent": agent, "judge": "exact", "repeats": 1, "seed": 7, "conditions": []},
                   created=utc_now(), reqbench_version="test")
    with RunStore.create(root / name, meta) as store:
        store.add_plan([r for r, *_ in rows])
        recorder = StoreRecorder.for_store(store)
        for row, status, result, artifacts in rows:
            store.record_attempt(row, RowOutcome(status=status, result=result, artifacts=artifacts))
            usage = (result.get("agent") or {}).get("usage")
            if usage:  # what the row's model calls spent, as the gateway records it (reports count only this)
                recorder.record(ModelCall(row_key=row.key, step=1, api="chat", model="m", request={},
                                          response={}, status=200, prompt_tokens=usage["prompt_tokens"],
                                          completion_tokens=usage["completion_tokens"],
                                          cost_usd=usage["cost_usd"]))
    return root / name


def takeover_rows(agent: str, passing: bool) -> list[tuple[Row, str, dict[str, Any], dict[str, bytes]]]:
    out = []
    for task in ("T1", "T2"):
        ok = passing or task == "T1"
        status = "PASS" if ok else "FAIL"
        result = {"kind": "delivery", "agent": {"usage": {"prompt_tokens": 10, "completion_tokens": 5,
                                                          "cost_usd": 0.01}, "wall_seconds": 2.5},
                  "checks": {"build": {"status": "PASS", "stdout_tail": "built"},
                             "target": {"status": status, "stdout_tail": f"target log {HOSTILE}"}},
                  "delivery": {"decision": "pass" if ok else "agent_failure", "score": int(ok),
                               "reason": "all gates passed" if ok else "target failed",
                               "statuses": {"build": "PASS", "target": status}}}
        trajectory = {"status": "completed", "reply": f"done {HOSTILE}", "usage": {"prompt_tokens": 10},
                      "trajectory": [{"kind": "command", "command": "pytest -q", "exit_code": 1,
                                      "output": HOSTILE, "usage": {"prompt_tokens": 7}}]}
        out.append((Row(task_id=task, condition="C1", agent=agent, repeat=0), "scored", result,
                    {"submission.patch": DIFF.encode(), "trajectory.json": json.dumps(trajectory).encode()}))
    return out


EXAMPLE_TAKEOVER = Path(__file__).resolve().parents[2] / "src" / "reqbench" / "examples" / "takeover"


def takeover_timeline_rows() -> list[tuple[Row, str, dict[str, Any], dict[str, bytes]]]:
    """One two-phase row of the bundled suite's DOCKSIDE_T001 (the 20% -> 21% VAT request): a Phase-A
    response, its RQ matches and a delivery whose target gate failed."""
    response = {"decision": "ACT", "requirements": [{"requirement_ref": "req_vat",
                                                     "requirement_summary": f"VAT {HOSTILE}"}]}
    score = {"status": "scored", "rq1": {"status": "scored", "requirement": {"f1": 1.0},
                                         "matches": [["req_vat", "REQ_VAT"]]},
             "rq3": {"status": "scored", "decision": "ACT", "gold_decision": "ACT", "post_state_score": 0.5,
                     "requirements": [{"prediction_ref": "req_vat", "gold_ref": "REQ_VAT", "state_score": 0.5}]}}
    result = {"kind": "delivery", "target_id": "DOCKSIDE_T001", "condition": "two-phase-C1",
              "phase_a": {"decision": "ACT", "valid": True, "problems": []}, "score": score,
              "checks": {"build": {"status": "PASS"}, "target": {"status": "FAIL", "stdout_tail": "1 failed"},
                         "regression": {"status": "PASS"}},
              "delivery": {"decision": "agent_failure", "score": 0, "reason": "target gate failed",
                           "statuses": {"build": "PASS", "target": "FAIL", "regression": "PASS"}}}
    return [(Row(task_id="DOCKSIDE_T001", condition="two-phase-C1", agent="reference", repeat=0), "scored",
             result, {"submission.patch": DIFF.encode(),
                      "phase_a_response.json": json.dumps(response).encode()})]


def journey_rows() -> list[tuple[Row, str, dict[str, Any], dict[str, bytes]]]:
    transcript = {"end_reason": "all_resolved", "final_message": "Thanks!", "turns": [
        {"index": 1, "user_message": "Please add due dates.", "reply": f"Added due dates {HOSTILE}",
         "status": "completed", "steps": 3, "changed_files": ["model.py"], "confidence_after": 80,
         "probes": json.dumps({"t::a": True, "t::b": False}), "statuses_after": {"T1": "done", "T2": "active"}},
        {"index": 2, "user_message": "Now priorities.", "reply": "Added priorities.", "status": "completed",
         "steps": 2, "changed_files": [], "confidence_after": 100,
         "probes": json.dumps({"t::a": True, "t::b": True}), "statuses_after": {"T1": "done", "T2": "done"}}]}
    result = {"end_reason": "all_resolved", "final_f2p": 1.0, "proc_f2p": 1.0, "final_confidence": 100,
              "assistant_tokens": 12, "cost_usd": 0.0}
    return [(Row(task_id="tasklet", condition="non-coder", agent="reference", repeat=0), "scored", result,
             {"transcript.json": json.dumps(transcript).encode(), "final.diff": DIFF.encode()})]


def pace_rows() -> list[tuple[Row, str, dict[str, Any], dict[str, bytes]]]:
    points = [{"point_id": "CP01", "verdict": "Covered", "weight": 3.0, "stage": "L2",
               "description": "NEW replaces OLD.", "criteria": {"CP01.c1": f"app.py defines NEW {HOSTILE}"},
               "checklist": {"evidence_checklist": [{"criterion_id": "CP01.c1", "judgment": "covered",
                                                     "severity": "hard", "evidence": "app.py::NEW",
                                                     "citations": ["app.py:2"]}]}},
              {"point_id": "CP02", "verdict": "Not Covered", "weight": 2.0, "stage": "L2",
               "criteria": {"CP02.c1": "NEW is documented."}, "checklist": {"evidence_checklist": []}}]
    result = {"score": 60.0, "complete": True, "judge": "offline", "points": points,
              "verdicts": {"CP01": "Covered", "CP02": "Not Covered"}, "attribution": {}}
    return [(Row(task_id="case1", condition="prd", agent="reference", repeat=0), "scored", result,
             {"patch": DIFF.encode()})]


def specpath_rows() -> list[tuple[Row, str, dict[str, Any], dict[str, bytes]]]:
    """Two specpath rows whose probes ran (the run page's raster has a cell per probe)."""
    out = []
    for condition, passed in (("direct", True), ("override", False)):
        probes = {"test_probes.py::test_a": True, "test_probes.py::test_b": passed}
        result = {"outcome": "success" if passed else "failure", "reason": "passed" if passed else "checks_failed",
                  "probes": probes, "signature": [1, int(passed)]}
        out.append((Row(task_id="fam", condition=condition, agent="reference", repeat=0), "scored", result,
                    {"history": f"# Conversation so far\n\n## Message 1\n\nPlease {HOSTILE}\n".encode(),
                     "patch": DIFF.encode()}))
    return out


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    _run(root, "takeover-a", "takeover", "null", takeover_rows("null", passing=False))
    _run(root, "takeover-b", "takeover", "reference", takeover_rows("reference", passing=True))
    _run(root, "takeover-timeline", "takeover", "reference", takeover_timeline_rows(), EXAMPLE_TAKEOVER)
    _run(root, "journey", "journey", "reference", journey_rows())
    _run(root, "pace", "pace", "reference", pace_rows())
    _run(root, "specpath-probes", "specpath", "reference", specpath_rows())
    subprocess.run([*cli_cmd(), "run", "demo:specpath", "--agent", "null", "--out", str(root / "specpath")],
                   env=cli_env(), check=True, capture_output=True, timeout=300)
    return root


@pytest.fixture(scope="session")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Screenshots of the browser tests (REQBENCH_SCREENSHOTS, else a temporary directory)."""
    target = os.environ.get("REQBENCH_SCREENSHOTS")
    path = Path(target) if target else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path
