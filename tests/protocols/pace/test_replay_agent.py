"""`reqbench run PACE_SUITE --agent replay:FILE` scores stored patches: the row key reaches the replay control
through `ctx.step`'s answers, so a stored reference patch scores as the reference agent does and a row the
store lacks, or stores empty, is the empty candidate (PACE-Bench §4: every case is scored on the candidate
the system left)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from reqbench.core.store import RunStore
from tests.protocols.pace.conftest import BILLFLOW, EXAMPLES, run_cli


def _suite(tmp: Path) -> Path:
    suite = tmp / "suite"
    suite.mkdir()
    for case in (BILLFLOW, EXAMPLES / "shopcart-discounts"):
        shutil.copytree(case, suite / case.name)
    (suite / "suite.yaml").write_text("protocol: pace\nname: two\njudge: token-overlap\n"
                                      "cases: [billflow-credit-notes, shopcart-discounts]\n")
    return suite


def test_a_replay_store_of_patches_scores_each_row_on_its_stored_patch(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    reference = (BILLFLOW / "reference.patch").read_text()
    store = tmp_path / "replay.jsonl"
    # keys name task|condition|agent|repeat; another agent name matches when task, condition and repeat do
    store.write_text(json.dumps({"row": "billflow-credit-notes|prd|elsewhere|0", "patch": reference}) + "\n"
                     + json.dumps({"row": "shopcart-discounts|prd|elsewhere|0", "patch": ""}) + "\n")
    run_dir = tmp_path / "run"
    ran = run_cli("run", str(suite), "--agent", f"replay:{store}", "--out", str(run_dir), "--quiet")
    assert ran.returncode == 0, ran.stderr[-2000:]
    report = json.loads(run_cli("report", str(run_dir), "--json").stdout)["pace"]
    (scores,) = report["case_scores"].values()
    assert scores == {"billflow-credit-notes": 100.0, "shopcart-discounts": 0.0}  # as reference / null score
    with RunStore.open(run_dir, read_only=True) as rs:
        outcomes = {row.task_id: rs.selected_outcome(row) for row in rs.plan()}
    billflow = outcomes["billflow-credit-notes"]
    assert billflow is not None and billflow.reason == "evaluated"
    delivered = billflow.artifacts["patch"].decode()  # the workspace's diff after the stored patch applied
    assert {line for line in delivered.splitlines() if line[:1] in "+-" and not line.startswith(("+++", "---"))} \
        == {line for line in reference.splitlines() if line[:1] in "+-" and not line.startswith(("+++", "---"))}
