"""Scale: the generated SpecPath matrix (`scale_suite`, 5 families x 14 configs x 7 conditions x 3 repeats =
1,470 rows with real pytest probes) run by the `reference` agent, through the real runner and store.

Figures, all from one run (each a ratio, so a busy machine shifts both sides alike):

* harness time inside rows (row wall time - verifier - agent) / verifier time        goal <= 2 %
* whole run: (wall x concurrency - verifier - agent) / verifier time; the worker time the harness
  spends outside verifiers and agents, including planning, store writes, start-up, idle slots
  at the barriers between repeats                                                     goal <= 5 %
* the same, stricter: the sandbox's own start-up and teardown (`run_sandboxed(['true'])`, measured
  here before the matrix) moved from the verifier's side to the harness's, once per check launch; and
  strictest, with what the guard adds too (a guarded pytest check minus the same pytest run sandboxed
  without it, measured before the matrix)                                             goal <= 2 %
* peak RSS of the driver process                                                      goal <= 300 MB
* store size per row (run.sqlite + WAL + artifacts)
* with ``--executors local,ray`` (the default when Ray is installed): Ray's whole run relative to local
  on the same plan (goal <= 1.2), and whether every row's status, outcome and probe signature are equal
  (Ray at ``RAY_ADDRESS``, else a private cluster started by the benchmark; its start-up is timed and
  reported apart, and the first task on each worker, which imports reqbench there, counts in the run).

    python benchmarks/bench_scale.py [--configs 14] [--repeats 3] [--families 5] [--concurrency 2]
                                     [--executors local[,ray]]

``REQBENCH_BENCH_QUICK=1`` (``make bench-quick``) shrinks the default matrix to 5 x 2 x 7 x 1 = 70 rows.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from ratios import figure  # noqa: E402
from scale_suite import generate, matrix_rows  # noqa: E402

from reqbench.core.execute.executor import make_executor  # noqa: E402
from reqbench.core.execute.runner import WORK_DIR, execute_run  # noqa: E402
from reqbench.core.execute.types import RunOptions  # noqa: E402
from reqbench.core.store import RunMeta, RunStore, utc_now  # noqa: E402
from reqbench.protocols.specpath.suite import PROTOCOL  # noqa: E402


def _seconds(a: str, b: str) -> float:
    return (datetime.fromisoformat(b) - datetime.fromisoformat(a)).total_seconds()


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def run_matrix(suite: Path, run_dir: Path, args: argparse.Namespace, executor_name: str) -> dict[str, Any]:
    """One run of the matrix; its wall time is timed from after the executor is made (for Ray: its cluster
    started or joined, reported apart as ``startup``), so both executors are timed on the same work."""
    started = time.perf_counter()
    executor = make_executor(executor_name, args.concurrency)
    startup = time.perf_counter() - started
    started = time.perf_counter()
    rows = matrix_rows(suite, args.configs, args.repeats)
    options = RunOptions(agent="reference", concurrency=args.concurrency, work_dir=run_dir / WORK_DIR)
    meta = RunMeta(suite_path=str(suite), protocol="specpath", options={"agent": "reference"},
                   created=utc_now(), reqbench_version="bench")
    try:
        with RunStore.create(run_dir, meta) as store:
            execute_run(store, PROTOCOL.load(suite), options, rows=rows, executor=executor)
            wall = time.perf_counter() - started
            attempts = [a for _, a, _ in store.selected_attempts() if a is not None]
            outcomes = store.outcomes(with_artifacts=True)
            per_row = {r.key: (o.status.value, o.result.stored().get("outcome"), o.result.stored().get("signature"))
                       for r, o in outcomes}
            payload = sum(len(json.dumps(o.result)) + sum(map(len, o.artifacts.values())) for _, o in outcomes)
    finally:
        executor.shutdown()
    verifier = sum(a.result.stored().get("verifier_seconds", 0.0) for a in attempts)
    agent = sum(a.result.stored().get("agent_seconds") or 0.0 for a in attempts)
    inside = sum(_seconds(a.started, a.finished) for a in attempts) - verifier - agent
    phases: dict[str, float] = {}
    for a in attempts:
        for phase, sec in a.result.stored().get("timings", {}).items():
            phases[phase] = phases.get(phase, 0.0) + sec
    phases["verify outside the verifier process"] = phases.pop("verify", 0.0) - verifier
    return {"rows": len(rows), "attempts": len(attempts), "wall": wall, "startup": startup, "verifier": verifier,
            "agent": agent,
            "inside": inside, "phases": phases, "whole": wall * args.concurrency - verifier - agent, "per_row": per_row,
            "success": sum(1 for v in per_row.values() if v[1] == "success"), "store": _size(run_dir),
            "payload": payload}


def sandbox_launch_seconds(tmp: Path, runs: int = 30) -> float:
    """Median wall time of `run_sandboxed(['true'])` launched as a check launches its process (HOME and
    TMPDIR in a folder of the check's scratch tree, so without the epilogue an agent's tmpfs HOME
    needs): what a check's launch costs before and after its command."""
    from statistics import median

    from reqbench.core.sandbox import run_sandboxed

    def launch(n: int) -> float:
        scratch = tmp / f"launch-{n}"
        scratch.mkdir()
        started = time.perf_counter()
        run_sandboxed(["true"], tmp, timeout=60, scratch_dir=scratch)
        return time.perf_counter() - started

    launch(0)  # the first launch builds the cached host part of the view
    return median(launch(n) for n in range(1, runs + 1))


def guard_check_seconds(tmp: Path, runs: int = 15) -> float:
    """What a guarded pytest check adds to the same pytest run in the sandbox without it (the guard plugin,
    its evidence channel, the check's scratch tree and protected paths): the median of `runs` differences,
    the two run in turn."""
    from statistics import median

    from reqbench.core.checks import Check, run_check
    from reqbench.core.sandbox import run_sandboxed

    ws, hidden = tmp / "guard-ws", tmp / "guard-hidden"
    ws.mkdir()
    hidden.mkdir()
    (ws / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (hidden / "test_calc.py").write_text("from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n")
    (tmp / "guard.ini").write_text("[pytest]\n")
    check = Check(name="guarded", command="{pytest} -q {hidden}", rootdir="hidden", pythonpath=["."],
                  expected_tests=["test_calc.py::test_add"], timeout_seconds=60)
    plain = [sys.executable, "-P", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", str(tmp / "guard.ini"),
             "--rootdir", str(hidden), str(hidden)]
    env = {"PYTHONPATH": str(ws), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    binds = {hidden: hidden, tmp / "guard.ini": tmp / "guard.ini"}

    def guarded() -> float:
        started = time.perf_counter()
        assert run_check(check, ws, hidden).status.value == "PASS"
        return time.perf_counter() - started

    def sandboxed() -> float:
        started = time.perf_counter()
        assert run_sandboxed(plain, ws, timeout=60, env=env, readonly_binds=binds).exit_code == 0
        return time.perf_counter() - started

    guarded(), sandboxed()
    return median(guarded() - sandboxed() for _ in range(runs))


def peak_rss_mb() -> float:
    """This process's peak RSS: ``VmHWM`` (ru_maxrss would include the parent's size at fork time)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def idle_rss_mb() -> float:
    """Peak RSS of an interpreter that only imported what this driver imports (the floor of any driver)."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import bench_scale, reqbench.core.execute.runner, "
            "reqbench.core.execute.executor, reqbench.core.store, reqbench.protocols.specpath.suite; "
            "print(bench_scale.peak_rss_mb())")
    out = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent)], capture_output=True, text=True,
                         check=True).stdout
    return float(out.strip().splitlines()[-1])


def main() -> None:
    quick = os.environ.get("REQBENCH_BENCH_QUICK") not in (None, "", "0")
    parser = argparse.ArgumentParser()
    parser.add_argument("--families", type=int, default=5)
    parser.add_argument("--configs", type=int, default=2 if quick else 14)
    parser.add_argument("--repeats", type=int, default=1 if quick else 3)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--executors", default="local,ray" if importlib.util.find_spec("ray") else "local")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        launch = sandbox_launch_seconds(Path(tmp))
        guard = guard_check_seconds(Path(tmp))
        print(f"sandbox start-up {1000 * launch:.1f} ms per launch; the guard and the check around pytest "
              f"{1000 * guard:.1f} ms per check (counted as at least 0)")
        guard = max(guard, 0.0)
        suite = generate(Path(tmp) / "suite", args.families)
        # A suite's first validation runs and caches its reference checks: done here, so that neither
        # executor's timed run pays for it (whichever ran first used to, ~1-5 s)
        subprocess.run([sys.executable, "-m", "reqbench", "validate", str(suite)], check=True,
                       stdout=subprocess.DEVNULL)
        results = {}
        for name in args.executors.split(","):
            results[name] = run_matrix(suite, Path(tmp) / f"run-{name}", args, name)
            if name == "local":
                rss_mb = peak_rss_mb()
    for name, r in results.items():
        print(f"[{name}] {r['rows']} rows ({args.families} families x {args.configs} configs x 7 conditions x "
              f"{args.repeats} repeats), concurrency {args.concurrency}: {r['success']} success, "
              f"{r['attempts']} selected attempts; wall {r['wall']:.1f}s = {r['rows'] / r['wall']:.2f} rows/s")
        print(f"[{name}] verifier {r['verifier']:.1f}s, agent {r['agent']:.1f}s; harness inside rows "
              f"{r['inside']:.1f}s = {100 * r['inside'] / r['verifier']:.1f}% of verifier time (goal <= 2%)")
        print(f"[{name}] row phases (s): " + ", ".join(f"{k} {v:.1f}" for k, v in r["phases"].items()))
        print(f"[{name}] harness whole run (wall x concurrency - verifier - agent) {r['whole']:.1f}s = "
              f"{100 * r['whole'] / r['verifier']:.1f}% of verifier time (goal <= 5%)")
        print(f"[{name}] store {r['store'] / 1e6:.1f} MB = {r['store'] / r['rows'] / 1024:.1f} KiB per row")
    for name, r in results.items():
        figure(f"scale {r['rows']} rows [{name}]: harness inside rows", r["inside"], "verifier time", r["verifier"],
               "<= 0.02")
        sandbox = launch * r["attempts"]  # one check launch per attempt of a specpath row
        figure(f"scale {r['rows']} rows [{name}]: harness inside rows incl. sandbox start-up "
               f"({1000 * launch:.1f} ms per launch)", r["inside"] + sandbox, "verifier time less it",
               r["verifier"] - sandbox)
        both = (launch + guard) * r["attempts"]
        figure(f"scale {r['rows']} rows [{name}]: harness inside rows incl. sandbox start-up and the guard "
               f"({1000 * (launch + guard):.1f} ms per check)", r["inside"] + both, "verifier time less them",
               r["verifier"] - both, "<= 0.02")
        figure(f"scale {r['rows']} rows [{name}]: harness whole run", r["whole"], "verifier time", r["verifier"],
               "<= 0.05")
        figure(f"scale {r['rows']} rows [{name}]: store size", r["store"] / 1024, "stored results and artifacts",
               r["payload"] / 1024, unit="KiB")
    if "local" in results:
        print(f"[local] driver peak RSS {rss_mb:.0f} MB (goal <= 300 MB)")
        figure(f"scale {results['local']['rows']} rows: driver peak RSS", rss_mb, "idle interpreter with reqbench",
               idle_rss_mb(), "<= 300 MB absolute", unit="MB")
    if "local" in results and "ray" in results:
        local, ray = results["local"], results["ray"]
        same = local["per_row"] == ray["per_row"]
        print(f"ray vs local: rows/s ratio {(ray['rows'] / ray['wall']) / (local['rows'] / local['wall']):.2f}; "
              f"scores equal on every row: {same}; Ray cluster start-up {ray['startup']:.1f}s (not in its wall)")
        figure(f"scale {local['rows']} rows: ray whole run, cluster start-up apart (scores equal: {same})",
               ray["wall"], "local whole run", local["wall"], "<= 1.2", unit="s")
        figure(f"scale {local['rows']} rows: ray cluster start-up", ray["startup"], "local whole run",
               local["wall"], unit="s")


if __name__ == "__main__":
    main()
