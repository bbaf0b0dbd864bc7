"""Paper §3.1/§13: the judge never sees the reference; the token-overlap heuristic does, so it says so."""

import json
from pathlib import Path

from reqbench.core.execute.suite import RowContext
from reqbench.core.execute.types import RunOptions
from reqbench.protocols.pace.judges import HEURISTIC_NOTICE, judge_notice
from reqbench.protocols.pace.suite import PROTOCOL
from tests.protocols.pace.conftest import BILLFLOW, run_cli


def test_notice_only_for_the_token_overlap_heuristic() -> None:
    assert judge_notice("token-overlap/v1") == HEURISTIC_NOTICE
    assert judge_notice("offline-heuristic/v1") == HEURISTIC_NOTICE  # results recorded before the rename
    assert judge_notice("llm:some-model") is None
    assert judge_notice("replay:judged.json") is None
    assert "reference patch" in HEURISTIC_NOTICE and "not a PACE score" in HEURISTIC_NOTICE


def test_pace_score_header_names_the_heuristic() -> None:
    patch = str(BILLFLOW / "reference.patch")
    text = run_cli("pace", "score", str(BILLFLOW), "--patch", patch)
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines()[0] == f"NOTE: {HEURISTIC_NOTICE}"
    js = run_cli("pace", "score", str(BILLFLOW), "--patch", patch, "--json")
    assert json.loads(js.stdout)["judge_notice"] == HEURISTIC_NOTICE


def test_report_summary_carries_the_notice_and_the_estimator(tmp_path: Path) -> None:
    opts = RunOptions(agent="reference", judge="offline", conditions=("control:empty",))
    suite = PROTOCOL.load(BILLFLOW)
    (row,) = suite.plan(opts)
    out = suite.run_row(row, RowContext(opts, tmp_path))
    typed = suite.summarize([(row, out)])
    summary = typed.data
    assert typed.overview["judge_notice"] == HEURISTIC_NOTICE  # shown in the report's overview table
    assert list(summary)[:3] == ["judge", "judge_notice", "interval"]
    assert summary["judge"] == "token-overlap/v1"
    assert summary["judge_notice"] == HEURISTIC_NOTICE
    assert "standard error" in summary["interval"]
