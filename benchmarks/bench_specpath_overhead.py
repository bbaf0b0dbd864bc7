"""SpecPath harness overhead: the bundled matrix with the `reference` agent, one row at a time.

Reports the time the harness spends around the verifier (workspaces, history file, agent call, diff,
patch apply, store writes, planning) as a fraction of total verifier time. Goal: <= 5 %.

    python benchmarks/bench_specpath_overhead.py [--repeats N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

from reqbench.cli.generic_run import run_suite
from reqbench.core.bundled import bundled_suite
from reqbench.core.execute.types import RunOptions

sys.path.insert(0, str(Path(__file__).parent))
from ratios import figure  # noqa: E402

SUITE = bundled_suite("specpath")


def _seconds(a: str, b: str) -> float:
    return (datetime.fromisoformat(b) - datetime.fromisoformat(a)).total_seconds()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-specpath-") as tmp:
        started = time.perf_counter()
        store, _ = run_suite(SUITE, RunOptions(agent="reference", repeats=args.repeats), Path(tmp) / "run",
                             resume=False, quiet=True)
        total = time.perf_counter() - started
        with store:
            attempts = [a for _, a, _ in store.selected_attempts() if a is not None]
    verifier = sum(a.result.get("verifier_seconds", 0.0) for a in attempts)
    agent = sum(a.result.get("agent_seconds") or 0.0 for a in attempts)
    rows = sum(_seconds(a.started, a.finished) for a in attempts)
    per_row = rows - verifier - agent
    whole = total - verifier - agent
    ok = all(a.result.get("outcome") == "success" for a in attempts)
    print(f"rows: {len(attempts)} (all success: {ok})")
    print(f"total wall {total:.2f}s; verifier {verifier:.2f}s; agent {agent:.2f}s")
    print(f"harness overhead inside rows: {per_row:.2f}s = {100 * per_row / verifier:.1f}% of verifier time")
    phases: dict[str, float] = {}
    for a in attempts:
        for name, sec in a.result.get("timings", {}).items():
            phases[name] = phases.get(name, 0.0) + sec
    outside = phases.pop("verify", 0.0) - verifier
    phases["verify outside the verifier process (snapshot copy, sandbox)"] = outside
    verification = phases.get("verify_setup", 0.0) + outside
    print("row phases (s): " + ", ".join(f"{k} {v:.2f}" for k, v in phases.items()))
    print(f"verification overhead (fresh workspace, patch apply, snapshot, sandbox): {verification:.2f}s = "
          f"{100 * verification / verifier:.1f}% of verifier time")
    print(f"harness overhead whole run (incl. planning, store, start-up): {whole:.2f}s = "
          f"{100 * whole / verifier:.1f}% of verifier time (goal <= 5%)")
    figure("specpath bundled: harness inside rows", per_row, "verifier time", verifier, "<= 0.05")
    figure("specpath bundled: harness whole run", whole, "verifier time", verifier)


if __name__ == "__main__":
    main()
