"""Scoring throughput: gold responses of the ReqMemBench fixture targets with the exact judge.

Target: under 100 ms per (target, condition) on one core, so that re-scoring a full release
(349 targets x 2 conditions x 6 configurations) offline takes minutes, not hours.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from reqbench.core.judges.exact import ExactJudge
from reqbench.protocols.takeover.scoring import gold_response, load_target, score_target

sys.path.insert(0, str(Path(__file__).parent))
from ratios import cpu_unit, figure  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
STAGE2 = next((p for p in (ROOT / ".." / "shared", ROOT / ".." / ".." / "shared") if p.is_dir()),
              ROOT / ".." / "shared") / "reference/reqmembench/44132019/outputs_new/stage2/44132019"

if __name__ == "__main__":
    if not STAGE2.is_dir():
        print(f"skipped: fixture not found at {STAGE2}")
    else:
        targets = [load_target(STAGE2 / f"RQ3/44132019_{t}_RQ3.json", STAGE2 / f"RQ1/44132019_{t}_RQ1.json",
                               STAGE2 / f"RQ2/44132019_{t}_RQ2.json") for t in ("T001", "T002")]
        cases = [(inst, cond, gold_response(inst, cond)) for inst in targets for cond in ("C1", "C2")]
        rounds = 50
        start = time.perf_counter()
        for _ in range(rounds):
            for inst, cond, resp in cases:
                score_target(inst, resp, cond, ExactJudge())
        per = (time.perf_counter() - start) / (rounds * len(cases))
        print(f"score_target (exact judge, fixture gold): {per * 1000:.2f} ms per target-condition")
        figure("takeover: score one target-condition", per, "CPU unit", cpu_unit())
