"""The bundled suite end to end, in one process (so every identical tree is tested once): calibration,
`reqbench run` with the reference and null assistants, and `reqbench report --json` per persona."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from reqbench.cli.main import app
from reqbench.core.bundled import bundled_suite
from reqbench.protocols.journey.models import DEFAULT_CONDITIONS

EXAMPLES = bundled_suite("journey")
KEYS = {"sessions", "proc_f2p", "final_f2p", "final_p2p", "turns_per_session", "cost_per_session"}
runner = CliRunner()


def test_bundled_suite_calibrates_and_reference_scores_full_marks_while_null_scores_zero(tmp_path: Path) -> None:
    calib = runner.invoke(app, ["journey", "calibrate", str(EXAMPLES / "tasklet"), "--json"])
    assert calib.exit_code == 0, calib.output
    report = json.loads(calib.stdout)
    assert report["ok"] and report["whole_f2p"] == 29 and report["whole_p2p"] == 4
    assert len(report["subtasks"]) == 9 and report["test_runs"] == 10

    summaries = {}
    for agent in ("reference", "null"):
        out = tmp_path / agent
        run = runner.invoke(app, ["run", str(EXAMPLES), "--agent", agent, "--out", str(out)])
        assert run.exit_code == 0, run.output[-2000:]
        rep = runner.invoke(app, ["report", str(out), "--json"])
        assert rep.exit_code == 0, rep.output[-2000:]
        summaries[agent] = json.loads(rep.stdout)["journey"]
    for agent, summary in summaries.items():
        assert set(summary) == set(DEFAULT_CONDITIONS), agent  # the four personas and single-shot (B.2)
        for persona, row in summary.items():
            assert KEYS <= set(row), (agent, persona)
            assert row["sessions"] == 1
            for key in ("proc_f2p", "final_f2p", "final_p2p"):
                if persona == "single-shot" and key == "proc_f2p":
                    assert row[key] is None  # B.2: single-shot scores only the final repository state
                    continue
                assert 0.0 <= row[key] <= 1.0
    for cond, row in summaries["reference"].items():
        assert (row["final_f2p"], row["final_p2p"]) == (1.0, 1.0)
        assert row["proc_f2p"] == (None if cond == "single-shot" else 1.0)
        assert row["cost_per_session"] == 0.0
    for cond, row in summaries["null"].items():
        assert (row["final_f2p"], row["final_p2p"]) == (0.0, 1.0)
        assert row["user_confidence"] == (None if cond == "single-shot" else 0.0)
    table = runner.invoke(app, ["journey", "table", str(tmp_path / "reference")])
    assert table.exit_code == 0
    assert "| software-architect | 1 | 100.00 | 100.00 | 100.00 | 100.00 |" in table.stdout
    # fewer, larger disclosures mean fewer turns: the product manager needs fewer than the non-coder
    ref = summaries["reference"]
    assert ref["product-manager"]["turns_per_session"] < ref["non-coder"]["turns_per_session"]
