"""The SuiteProtocol runs control rows end to end and summarises them per system."""

from pathlib import Path

from reqbench.core.execute.suite import RowContext
from reqbench.core.execute.types import RowStatus, RunOptions
from reqbench.protocols.pace.suite import PROTOCOL
from tests.protocols.pace.conftest import BILLFLOW


def test_control_rows_score_and_summarise(tmp_path: Path) -> None:
    opts = RunOptions(agent="reference", judge="offline", conditions=("control:reference", "control:empty"))
    assert PROTOCOL.detect(BILLFLOW)
    suite = PROTOCOL.load(BILLFLOW)
    rows = suite.plan(opts)
    assert [r.condition for r in rows] == ["control:reference", "control:empty"]
    done = [(r, suite.run_row(r, RowContext(opts, tmp_path / r.condition))) for r in rows]
    assert all(o.status is RowStatus.SCORED for _, o in done)
    assert [o.result.score for _, o in done] == [100.0, 0.0]
    empty = done[1][1]
    assert empty.result.attribution["loss_by_symptom"]["contract_mismatch"] > 0
    summary = suite.summarize(done)
    by_cond = {label.split("/", 1)[1]: s for label, s in summary.data["systems"].items()}
    assert by_cond["control:reference"]["success_rate"] is None  # never from the heuristic judge (§3.1)
    assert "withheld" in by_cond["control:reference"]["success_rate_note"]
    assert by_cond["control:empty"]["mean"] == 0.0
    again = suite.reevaluate(rows[0], done[0][1], RowContext(opts, tmp_path / "re"))
    assert again.result.score == 100.0
    assert summary.headline == {"reference/control:reference score": 100.0, "reference/control:empty score": 0.0}
    systems = summary.table("systems")
    assert systems is not None and systems.rows["reference/control:empty"]["mean"] == 0.0


def test_agents_run_on_the_prd_and_their_workspace_diff_is_scored(tmp_path: Path) -> None:
    for agent, expected in (("reference", 100.0), ("null", 0.0)):
        opts = RunOptions(agent=agent, judge="offline")
        suite = PROTOCOL.load(BILLFLOW)
        (row,) = suite.plan(opts)
        out = suite.run_row(row, RowContext(opts, tmp_path / agent))
        assert out.status is RowStatus.SCORED and out.result.score == expected
        assert "prd/prd.md" not in out.artifacts["patch"].decode()  # the task file is not part of the delivery
        assert out.result.process_signals["available"] is True
        assert out.result.quality is not None and "score" not in out.result.quality
