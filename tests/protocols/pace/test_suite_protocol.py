"""The SuiteProtocol runs control rows end to end and summarises them per system."""

from pathlib import Path

from reqbench.core.execute.types import RowStatus, RunOptions
from reqbench.protocols.pace.suite import PROTOCOL
from tests.protocols.pace.conftest import BILLFLOW


def test_control_rows_score_and_summarise(tmp_path: Path) -> None:
    opts = RunOptions(agent="reference", judge="offline", conditions=("control:reference", "control:empty"))
    assert PROTOCOL.detect(BILLFLOW)
    rows = PROTOCOL.plan(BILLFLOW, opts)
    assert [r.condition for r in rows] == ["control:reference", "control:empty"]
    done = [(r, PROTOCOL.run_row(BILLFLOW, r, opts, tmp_path / r.condition)) for r in rows]
    assert all(o.status is RowStatus.SCORED for _, o in done)
    assert [o.result["score"] for _, o in done] == [100.0, 0.0]
    empty = done[1][1]
    assert empty.result["attribution"]["loss_by_symptom"]["contract_mismatch"] > 0
    summary = PROTOCOL.summarize(BILLFLOW, done)
    by_cond = {label.split("/", 1)[1]: s for label, s in summary["systems"].items()}
    assert by_cond["control:reference"]["success_rate"] == 1.0
    assert by_cond["control:empty"]["mean"] == 0.0
    again = PROTOCOL.reevaluate(BILLFLOW, rows[0], done[0][1], opts, tmp_path / "re")
    assert again.result["score"] == 100.0


def test_agents_run_on_the_prd_and_their_workspace_diff_is_scored(tmp_path: Path) -> None:
    for agent, expected in (("reference", 100.0), ("null", 0.0)):
        opts = RunOptions(agent=agent, judge="offline")
        (row,) = PROTOCOL.plan(BILLFLOW, opts)
        out = PROTOCOL.run_row(BILLFLOW, row, opts, tmp_path / agent)
        assert out.status is RowStatus.SCORED and out.result["score"] == expected
        assert "prd/prd.md" not in out.artifacts["patch"].decode()  # the task file is not part of the delivery
        assert out.result["process_signals"]["available"] is True
        assert "quality" in out.result and "score" not in out.result["quality"]
