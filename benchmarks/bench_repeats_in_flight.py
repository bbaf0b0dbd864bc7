"""Rows in flight: how many attempts run at once, how close the wall time comes to the ideal, and what the
harness costs per row, for one or more `reqbench run` command lines measured side by side in one run.

``reqbench run demo:pace --agent command --agent-opt template='sleep 1' --repeats 3 --concurrency 4``: the demo
suite has 3 tasks, so with a barrier between repeats at most 3 rows run at once whatever the concurrency; a
protocol without one fills the 4 slots across repeats. Printed per side:

* the most attempts in flight (counted from the ``attempts`` table's ``started``/``finished``, never from wall
  time), as a share of ``--concurrency``, and the span from the first start to the last end;
* the command's wall time (interpreter start-up to exit) against the ideal for an agent that waits
  ``--agent-seconds`` (default: N of a ``sleep N`` template) and a harness that costs nothing:
  ``ceil(rows / concurrency) x agent seconds``;
* the harness's CPU per row: the driver process's own user+system time (``getrusage(RUSAGE_SELF)`` at its
  exit), and the whole process tree's (the driver, every bubblewrap sandbox and the agent's commands, counted
  by a cgroup, `cpu_meter`) when one can be made;
* the driver's peak RSS (``VmHWM``) above an idle interpreter that imported the CLI, per row in flight.

With ``--executor ray`` the driver starts a private Ray cluster on this machine before the run (what
``--executor ray`` would start itself); its start-up is timed and printed apart and left out of the wall
time (not out of the driver's CPU and RSS), and the process tree's CPU then includes Ray's processes and
the row hosts that run the rows.

A side is ``SUITE`` or ``SUITE+KEY=VALUE+...`` (extra ``--agent-opt``s), e.g.
``demo:specpath+specpath.barrier_between_repeats=false``; ``--side`` repeats.

    python benchmarks/bench_repeats_in_flight.py [--side demo:pace ...] [--concurrency 4] [--repeats 3]
        [--template 'sleep 1'] [--agent-seconds S] [--runs 1] [--executor local|ray] [--baseline OTHER/src]
        [--json OUT]

Goals of the scale work: 1,050 rows of a 5 s agent at ``--concurrency 500`` within 1.25 x the ideal, <= 12 ms
harness CPU per row, <= 2 MB driver RSS per row in flight::

    python benchmarks/bench_repeats_in_flight.py --side demo:specpath+specpath.barrier_between_repeats=false \\
        --repeats 50 --concurrency 500 --template 'sleep 5'
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).parent))
from cpu_meter import CpuMeter, meter_closed  # noqa: E402
from ratios import figure  # noqa: E402

# Runs the CLI in this interpreter and, at exit, writes its own CPU time and peak RSS to argv[1]; with
# BENCH_RAY_INIT it first starts a private Ray cluster (what `--executor ray` would start) and writes how long
# that took to argv[1].ray, so the run's figures leave the cluster's start-up out.
DRIVER = """
import atexit, json, os, resource, sys
def _report(path=sys.argv[1]):
    usage = resource.getrusage(resource.RUSAGE_SELF)
    hwm = [int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:')][0] / 1024
    with open(path, 'w') as out:
        json.dump({'cpu': usage.ru_utime + usage.ru_stime, 'rss_mb': hwm}, out)
atexit.register(_report)
if os.environ.get('BENCH_RAY_INIT'):  # the private Ray cluster started before the run, its time reported apart
    import time, ray
    began = time.perf_counter()
    ray.init(_node_ip_address='127.0.0.1', log_to_driver=False, configure_logging=False)
    with open(sys.argv[1] + '.ray', 'w') as out:
        json.dump({'startup': time.perf_counter() - began, 'cpus': ray.cluster_resources().get('CPU')}, out)
sys.argv = ['reqbench'] + sys.argv[2:]
from reqbench.cli.main import main
main()
"""

IDLE = ("import reqbench.cli.main; print([int(l.split()[1]) for l in open('/proc/self/status') "
        "if l.startswith('VmHWM:')][0] / 1024)")


def spans(run_dir: Path) -> list[tuple[datetime, datetime]]:
    conn = sqlite3.connect(run_dir / "run.sqlite")
    rows = conn.execute("SELECT started, finished FROM attempts WHERE kind = 'run'").fetchall()
    conn.close()
    return [(datetime.fromisoformat(s), datetime.fromisoformat(e)) for s, e in rows]


def in_flight(run: list[tuple[datetime, datetime]]) -> int:
    """Most attempts running at once: a sweep over the start and end events (ends first at a tie)."""
    events = sorted([(s, 1) for s, _ in run] + [(e, -1) for _, e in run], key=lambda ev: (ev[0], ev[1]))
    most = now = 0
    for _, step in events:
        now += step
        most = max(most, now)
    return most


def idle_rss_mb(src: Path) -> float:
    out = subprocess.run([sys.executable, "-c", IDLE], env={**os.environ, "PYTHONPATH": str(src)},
                         capture_output=True, text=True, check=True).stdout
    return float(out.strip().splitlines()[-1])


def measure(src: Path, side: str, args: argparse.Namespace) -> dict[str, Any]:
    suite, *opts = side.split("+")
    with tempfile.TemporaryDirectory() as tmp, meter_closed(CpuMeter.make()) as meter:
        env = {**os.environ, "PYTHONPATH": str(src)}
        ray = args.executor == "ray"
        cli = ["run", suite, "--agent", "command", "--agent-opt", f"template={args.template}",
               "--executor", args.executor,
               *[a for opt in opts for a in ("--agent-opt", opt)], "--repeats", str(args.repeats),
               "--concurrency", str(args.concurrency), "--quiet", "--out", str(Path(tmp) / "run")]
        stats = Path(tmp) / "driver.json"
        started = time.perf_counter()
        done = subprocess.run([*(meter.prefix() if meter else []), sys.executable, "-c", DRIVER, str(stats), *cli],
                              env={**env, **({"BENCH_RAY_INIT": "1"} if ray else {})}, cwd=tmp,
                              capture_output=True, text=True)
        wall = time.perf_counter() - started
        cluster = json.loads(Path(f"{stats}.ray").read_text()) if ray else {"startup": 0.0, "cpus": None}
        wall -= cluster["startup"]
        if done.returncode not in (0, 1):
            raise SystemExit(f"{side}: exit {done.returncode}\n{done.stderr[-2000:]}")
        tree_cpu = meter.take() if meter else None
        run = spans(Path(tmp) / "run")
        driver = json.loads(stats.read_text())
    return {"rows": len(run), "most": in_flight(run), "wall": wall, "tree_cpu": tree_cpu, **cluster,
            "span": (max(e for _, e in run) - min(s for s, _ in run)).total_seconds(), **driver}


def agent_seconds(args: argparse.Namespace) -> float | None:
    if args.agent_seconds is not None:
        return float(args.agent_seconds)
    words = args.template.split()
    try:
        return float(words[1]) if len(words) == 2 and words[0] == "sleep" else None
    except ValueError:
        return None


def report(name: str, r: dict[str, Any], args: argparse.Namespace, idle_mb: float) -> None:
    print(f"{name}: {r['rows']} rows, --repeats {args.repeats} --concurrency {args.concurrency}: at most "
          f"{r['most']} rows in flight, first start to last end {r['span']:.1f} s, wall {r['wall']:.1f} s"
          + (f" (Ray cluster start-up apart: {r['startup']:.1f} s, {r['cpus']:g} CPUs)" if r["startup"] else ""))
    mine = name.startswith("this tree")
    figure(f"rows in flight / --concurrency ({name})", r["most"], "--concurrency",
           min(args.concurrency, r["rows"]), goal="1" if mine else "", unit="rows")
    wait = agent_seconds(args)
    if wait:
        ideal = math.ceil(r["rows"] / args.concurrency) * wait
        figure(f"wall time / ideal ({name})", r["wall"], f"ceil(rows/concurrency) x {wait:g} s", ideal,
               goal="<= 1.25" if mine else "")
    figure(f"driver CPU per row ({name})", r["cpu"] / r["rows"] * 1000, "12 ms goal", 12,
           goal="<= 1" if mine else "", unit="ms")
    if r["tree_cpu"] is not None:
        figure(f"process-tree CPU per row ({name})", r["tree_cpu"] / r["rows"] * 1000, "12 ms goal", 12,
               unit="ms")
    per_row = max(r["rss_mb"] - idle_mb, 0.0) / max(r["most"], 1)
    print(f"{name}: driver peak RSS {r['rss_mb']:.0f} MB, idle interpreter with the CLI {idle_mb:.0f} MB")
    figure(f"driver RSS above idle per row in flight ({name})", per_row, "2 MB goal", 2,
           goal="<= 1" if mine else "", unit="MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--side", action="append", help="SUITE[+AGENT_OPT...] (repeatable; default demo:pace)")
    parser.add_argument("--suite", help="same as one --side")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--template", default="sleep 1", help="the command agent's template")
    parser.add_argument("--agent-seconds", type=float, help="the agent's wait per row (default: N of 'sleep N')")
    parser.add_argument("--executor", choices=("local", "ray"), default="local",
                        help="ray: a private cluster on this machine, its start-up timed apart")
    parser.add_argument("--baseline", type=Path, help="another reqbench source tree to measure beside this one")
    parser.add_argument("--runs", type=int, default=1, help="runs per side; each figure is their median")
    parser.add_argument("--json", type=Path, help="also write every side's figures here")
    args = parser.parse_args()
    sides = (args.side or []) + ([args.suite] if args.suite else []) or ["demo:pace"]
    trees = [("this tree", ROOT / "src")] + ([("baseline", args.baseline)] if args.baseline else [])
    results = {}
    for tree, src in trees:
        idle_mb = idle_rss_mb(src)
        for side in sides:
            name = f"{tree}, {side}"
            runs = [measure(src, side, args) for _ in range(args.runs)]
            results[name] = {key: statistics.median(r[key] for r in runs) if runs[0][key] is not None else None
                             for key in runs[0]}
            if args.runs > 1:
                print(f"{name}: medians of {args.runs} runs; wall times {[round(r['wall'], 1) for r in runs]} s")
            report(name, results[name], args, idle_mb)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
