"""`reqbench run` + `reqbench report --json` on the bundled suite: the paper-style summary per persona."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from reqbench.protocols.journey.personas import PRESET_NAMES

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "journey"
KEYS = {"sessions", "proc_f2p", "final_f2p", "final_p2p", "turns_per_session", "cost_per_session"}


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reqbench.cli.main", *args], capture_output=True, text=True,
                          timeout=900)


def test_bundled_suite_reference_scores_full_marks_and_null_scores_zero(tmp_path: Path) -> None:
    summaries = {}
    for agent in ("reference", "null"):
        out = tmp_path / agent
        proc = _cli("run", str(EXAMPLES), "--agent", agent, "--out", str(out))
        assert proc.returncode == 0, proc.stderr[-2000:]
        proc = _cli("report", str(out), "--json")
        assert proc.returncode == 0, proc.stderr[-2000:]
        summaries[agent] = json.loads(proc.stdout)["journey"]
    for agent, summary in summaries.items():
        assert set(summary) == set(PRESET_NAMES), agent
        for persona, row in summary.items():
            assert KEYS <= set(row), (agent, persona)
            assert row["sessions"] == 1
            for key in ("proc_f2p", "final_f2p", "final_p2p"):
                assert 0.0 <= row[key] <= 1.0
    for row in summaries["reference"].values():
        assert (row["proc_f2p"], row["final_f2p"], row["final_p2p"]) == (1.0, 1.0, 1.0)
        assert row["cost_per_session"] == 0.0
    for row in summaries["null"].values():
        assert (row["final_f2p"], row["final_p2p"], row["user_confidence"]) == (0.0, 1.0, 0.0)
    # fewer, larger disclosures mean fewer turns: the product manager needs fewer than the non-coder
    ref = summaries["reference"]
    assert ref["product-manager"]["turns_per_session"] < ref["non-coder"]["turns_per_session"]
