"""SpecPath harness overhead: the bundled matrix with the `reference` agent, one row at a time.

Reports the time the harness spends around the verifier (workspaces, history file, agent call, diff,
patch apply, store writes, planning) as a fraction of total verifier time. Goal: <= 5 %.
The bundled base repositories are far below `OVERLAY_MIN_ENTRIES`, so their workspaces are copies
(`core.workspace.overlay` pays off on large trees: ``bench_workspace.py``). `--rounds` runs add up.

    python benchmarks/bench_specpath_overhead.py [--repeats N] [--rounds N]
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


def measure(repeats: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="bench-specpath-") as tmp:
        started = time.perf_counter()
        store, _ = run_suite(SUITE, RunOptions(agent="reference", repeats=repeats), Path(tmp) / "run",
                             resume=False, quiet=True)
        total = time.perf_counter() - started
        with store:
            attempts = [a for _, a, _ in store.selected_attempts() if a is not None]
    verifier = sum(a.result.stored().get("verifier_seconds", 0.0) for a in attempts)
    agent = sum(a.result.stored().get("agent_seconds") or 0.0 for a in attempts)
    rows = sum(_seconds(a.started, a.finished) for a in attempts)
    out = {"rows": len(attempts), "total": total, "verifier": verifier, "agent": agent,
           "inside": rows - verifier - agent, "whole": total - verifier - agent,
           "ok": float(all(a.result.stored().get("outcome") == "success" for a in attempts))}
    for a in attempts:
        for name, sec in a.result.stored().get("timings", {}).items():
            out[f"phase {name}"] = out.get(f"phase {name}", 0.0) + sec
    out["phase verify outside the verifier process (scratch, copies, sandbox set-up)"] = (
        out.pop("phase verify", 0.0) - verifier)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    totals: dict[str, dict[str, float]] = {"copy": {}}
    for _ in range(args.rounds):
        for key, value in measure(args.repeats).items():
            totals["copy"][key] = totals["copy"].get(key, 0.0) + value
    for mode, r in totals.items():
        verifier = r["verifier"]
        print(f"[{mode} workspaces, {args.rounds} rounds] rows: {r['rows']:.0f} "
              f"(all success: {r['ok'] == args.rounds})")
        print(f"[{mode}] total wall {r['total']:.2f}s; verifier {verifier:.2f}s; agent {r['agent']:.2f}s")
        print(f"[{mode}] harness overhead inside rows: {r['inside']:.2f}s = {100 * r['inside'] / verifier:.1f}% of "
              "verifier time")
        print(f"[{mode}] row phases (s): " + ", ".join(f"{k[6:]} {v:.2f}" for k, v in r.items()
                                                    if k.startswith("phase ")))
        print(f"[{mode}] harness overhead whole run (incl. planning, store, start-up): {r['whole']:.2f}s = "
              f"{100 * r['whole'] / verifier:.1f}% of verifier time")
        figure("specpath bundled: harness inside rows", r["inside"], "verifier time", verifier, "<= 0.05")
        figure("specpath bundled: harness whole run", r["whole"], "verifier time", verifier)


if __name__ == "__main__":
    main()
