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

With ``--executor ray`` the driver starts a private Ray cluster on this machine before the run, as
``--executor ray`` would itself (the same `ray_executor.private_cluster` options); its start-up -- wall time
and the process tree's CPU until the cluster is up -- is printed apart and left out of the run's wall time
and process-tree CPU (not out of the driver's own CPU and RSS), and the process tree's CPU then includes
Ray's processes and the row hosts that run the rows. ``--executor ray,local`` measures both executors side
by side (each side, each run, Ray then local), and prints Ray's figures over local's.

``--per-process`` samples every process of the tree (``/proc/PID/stat``, every 0.2 s, from outside it) and
prints their CPU time by kind: the driver, Ray's daemons (``gcs_server``, ``raylet``, dashboard, agents,
log monitor), its worker processes (row hosts, idle workers) and the rest by executable name (sandboxes,
agents' commands: short-lived, so mostly what the tree's total leaves unsampled).

A side is ``SUITE`` or ``SUITE+KEY=VALUE+...`` (extra ``--agent-opt``s), e.g.
``demo:specpath+specpath.barrier_between_repeats=false``; ``--side`` repeats.

    python benchmarks/bench_repeats_in_flight.py [--side demo:pace ...] [--concurrency 4] [--repeats 3]
        [--template 'sleep 1'] [--agent-seconds S] [--runs 1] [--executor local|ray|ray,local]
        [--per-process] [--baseline OTHER/src] [--json OUT]

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
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).parent))
from cpu_meter import CpuMeter, meter_closed  # noqa: E402
from ratios import figure  # noqa: E402

# Runs the CLI in this interpreter and, at exit, writes its own CPU time and peak RSS to argv[1]; with
# BENCH_RAY_INIT it first starts a private Ray cluster (what `--executor ray` would start) and writes how long
# that took, and the process tree's CPU by then (its cgroup, BENCH_CPU_GROUP), to argv[1].ray, so the run's
# figures leave the cluster's start-up out.
DRIVER = """
import atexit, json, os, resource, sys
def _tree_cpu(group=os.environ.get('BENCH_CPU_GROUP')):
    if not group:
        return None
    if os.path.exists(group + '/cpuacct.usage'):
        return int(open(group + '/cpuacct.usage').read()) / 1e9
    stat = dict(line.split() for line in open(group + '/cpu.stat'))
    return int(stat['usage_usec']) / 1e6
def _report(path=sys.argv[1]):
    usage = resource.getrusage(resource.RUSAGE_SELF)
    hwm = [int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:')][0] / 1024
    with open(path, 'w') as out:
        json.dump({'cpu': usage.ru_utime + usage.ru_stime, 'rss_mb': hwm, 'tree_at_exit': _tree_cpu()}, out)
atexit.register(_report)
if os.environ.get('BENCH_RAY_INIT'):  # the private Ray cluster started before the run, its time reported apart
    import time
    began = time.perf_counter()
    import ray
    try:
        from reqbench.core.execute.ray_executor import private_cluster
    except ImportError:  # a tree from before the lean private cluster: what its executor started
        ray.init(_node_ip_address='127.0.0.1', log_to_driver=False, configure_logging=False)
    else:
        private_cluster()
    with open(sys.argv[1] + '.ray', 'w') as out:
        json.dump({'startup': time.perf_counter() - began, 'startup_cpu': _tree_cpu(),
                   'cpus': ray.cluster_resources().get('CPU')}, out)
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


PROCESS_KINDS = (("gcs_server", "ray gcs_server"), ("raylet", "ray raylet"),
                 ("dashboard/agent.py", "ray dashboard agent"), ("dashboard.py", "ray dashboard"),
                 ("runtime_env/agent", "ray runtime-env agent"), ("log_monitor", "ray log monitor"),
                 ("monitor.py", "ray monitor"), ("ray::RowHost", "ray row hosts"),
                 ("ray::DashboardAgent", "ray dashboard agent"), ("ray::RuntimeEnvAgent", "ray runtime-env agent"),
                 ("ray::", "ray other workers"),
                 ("default_worker.py", "ray other workers"), ("from reqbench.cli.main import main", "driver"))


def process_kind(cmdline: str, comm: str) -> str:
    """What a process of the tree is, from its command line (Ray's workers retitle theirs ``ray::...``); the
    rest (sandboxes, agents' commands) by executable name."""
    head = [*cmdline.split("\0")[:3], comm.strip()]
    for marker, kind in PROCESS_KINDS:
        if any(marker in part for part in head):
            return kind
    return f"other: {comm.strip()}"


@contextmanager
def sampled_processes(group: Path | None, period: float = 0.2) -> Iterator[dict[str, float]]:
    """CPU seconds by `process_kind` of the processes in cgroup `group`, sampled every `period` from this
    thread's own process (outside the group), filled in when the block ends."""
    by_kind: dict[str, float] = {}
    if group is None:
        yield by_kind
        return
    tick = os.sysconf("SC_CLK_TCK")
    last: dict[int, tuple[str, float]] = {}
    stop = threading.Event()

    def sample() -> None:
        for pid in map(int, (group / "cgroup.procs").read_text().split()):
            try:  # the command line each time: a Ray worker retitles itself when it becomes an actor
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                kind = process_kind(Path(f"/proc/{pid}/cmdline").read_text(errors="replace"),
                                    Path(f"/proc/{pid}/comm").read_text(errors="replace"))
            except OSError:
                continue
            if kind.startswith("other: ") and pid in last:  # a command line read as the process was busy
                kind = last[pid][0]
            last[pid] = (kind, (int(fields[11]) + int(fields[12])) / tick)  # utime + stime

    def loop() -> None:
        while not stop.wait(period):
            sample()

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield by_kind
    finally:
        stop.set()
        thread.join()
        for kind, cpu in last.values():
            by_kind[kind] = by_kind.get(kind, 0.0) + cpu
            by_kind[f"{kind} (processes)"] = by_kind.get(f"{kind} (processes)", 0) + 1


def emptied(group: Path, patience: float = 30.0) -> None:
    """Wait until every process of the command's cgroup `group` has ended (a cluster's processes outlive its
    driver by a moment), so its CPU is counted whole and the group can be removed; what is left after
    `patience` seconds is killed (they are the measured command's own processes)."""
    deadline = time.monotonic() + patience
    while (left := (group / "cgroup.procs").read_text().split()) and time.monotonic() < deadline:
        time.sleep(0.2)
    for pid in left:
        try:
            os.kill(int(pid), 9)
        except ProcessLookupError:
            pass
    while (group / "cgroup.procs").read_text().split() and time.monotonic() < deadline + 10:
        time.sleep(0.2)


def measure(src: Path, side: str, executor: str, args: argparse.Namespace) -> dict[str, Any]:
    suite, *opts = side.split("+")
    with tempfile.TemporaryDirectory() as tmp, meter_closed(CpuMeter.make()) as meter, \
            sampled_processes(meter.path if meter and args.per_process else None) as by_kind:
        env = {**os.environ, "PYTHONPATH": str(src), **({"BENCH_CPU_GROUP": str(meter.path)} if meter else {})}
        ray = executor == "ray"
        cli = ["run", suite, "--agent", "command", "--agent-opt", f"template={args.template}",
               "--executor", executor,
               *[a for opt in opts for a in ("--agent-opt", opt)], "--repeats", str(args.repeats),
               "--concurrency", str(args.concurrency), "--quiet", "--out", str(Path(tmp) / "run")]
        stats = Path(tmp) / "driver.json"
        started = time.perf_counter()
        done = subprocess.run([*(meter.prefix() if meter else []), sys.executable, "-c", DRIVER, str(stats), *cli],
                              env={**env, **({"BENCH_RAY_INIT": "1"} if ray else {})}, cwd=tmp,
                              capture_output=True, text=True)
        wall = time.perf_counter() - started
        cluster = (json.loads(Path(f"{stats}.ray").read_text()) if ray
                   else {"startup": 0.0, "startup_cpu": None, "cpus": None})
        wall -= cluster["startup"]
        if done.returncode not in (0, 1):
            raise SystemExit(f"{side}: exit {done.returncode}\n{done.stderr[-2000:]}")
        if meter:
            emptied(meter.path)
        tree_cpu = meter.take() if meter else None
        if tree_cpu is not None and cluster["startup_cpu"] is not None:
            tree_cpu -= cluster["startup_cpu"]
        run = spans(Path(tmp) / "run")
        driver = json.loads(stats.read_text())
        at_exit = driver.pop("tree_at_exit", None)
        after_exit = tree_cpu + (cluster["startup_cpu"] or 0.0) - at_exit if tree_cpu is not None and at_exit else None
    return {"rows": len(run), "most": in_flight(run), "wall": wall, "tree_cpu": tree_cpu, **cluster,
            "span": (max(e for _, e in run) - min(s for s, _ in run)).total_seconds(), **driver,
            "load": os.getloadavg()[0], "by_kind": by_kind, "after_exit": after_exit}


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
          f"{r['most']} rows in flight, first start to last end {r['span']:.1f} s, wall {r['wall']:.1f} s, "
          f"load {r['load']:.1f} at the end"
          + (f" (Ray cluster start-up apart: {r['startup']:.1f} s"
             + (f", {r['startup_cpu']:.1f} s of CPU" if r["startup_cpu"] is not None else "")
             + f", {r['cpus']:g} CPUs)" if r["startup"] else ""))
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
        if r["after_exit"] is not None:
            print(f"{name}: of which {r['after_exit']:.2f} s ({r['after_exit'] / r['rows'] * 1000:.1f} ms/row) "
                  "after the driver's exit handlers (processes ending: a cluster's stop)")
    per_row = max(r["rss_mb"] - idle_mb, 0.0) / max(r["most"], 1)
    print(f"{name}: driver peak RSS {r['rss_mb']:.0f} MB, idle interpreter with the CLI {idle_mb:.0f} MB")
    figure(f"driver RSS above idle per row in flight ({name})", per_row, "2 MB goal", 2,
           goal="<= 1" if mine else "", unit="MB")
    if r["by_kind"]:
        whole = r["tree_cpu"] + (r["startup_cpu"] or 0.0) if r["tree_cpu"] is not None else None
        cpu_of = {kind: cpu for kind, cpu in r["by_kind"].items() if not kind.endswith(" (processes)")}
        parts = sorted(cpu_of.items(), key=lambda kv: -kv[1])
        if whole is not None:
            parts.append(("unsampled (short-lived processes)", max(whole - sum(cpu_of.values()), 0.0)))
        print(f"{name}: CPU by process, start-up included: " + "; ".join(
            f"{kind} x{r['by_kind'].get(f'{kind} (processes)', '?'):g} {cpu:.2f} s "
            f"({cpu / r['rows'] * 1000:.1f} ms/row)" if f"{kind} (processes)" in r["by_kind"]
            else f"{kind} {cpu:.2f} s ({cpu / r['rows'] * 1000:.1f} ms/row)" for kind, cpu in parts))


def side_by_side(name: str, ray: dict[str, Any], local: dict[str, Any]) -> None:
    """Ray's figures over the local executor's, measured moments apart."""
    figure(f"Ray's wall / local's ({name})", ray["wall"], "local executor's wall", local["wall"])
    if ray["tree_cpu"] is not None and local["tree_cpu"] is not None:
        extra = (ray["tree_cpu"] - local["tree_cpu"]) / ray["rows"] * 1000
        figure(f"Ray's process-tree CPU / local's ({name}; {extra:+.1f} ms/row)", ray["tree_cpu"],
               "local executor's", local["tree_cpu"])


def median_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Each figure's median over `runs` (CPU by process: each kind's median)."""
    merged: dict[str, Any] = {}
    for key in runs[0]:
        if key == "by_kind":
            kinds = {kind for r in runs for kind in r["by_kind"]}
            merged[key] = {kind: statistics.median(r["by_kind"].get(kind, 0.0) for r in runs) for kind in kinds}
        else:
            known = [r[key] for r in runs if r[key] is not None]
            merged[key] = statistics.median(known) if known else None
    return merged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--side", action="append", help="SUITE[+AGENT_OPT...] (repeatable; default demo:pace)")
    parser.add_argument("--suite", help="same as one --side")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--template", default="sleep 1", help="the command agent's template")
    parser.add_argument("--agent-seconds", type=float, help="the agent's wait per row (default: N of 'sleep N')")
    parser.add_argument("--executor", default="local",
                        help="local, ray (a private cluster on this machine, its start-up apart) or ray,local "
                             "(both, side by side)")
    parser.add_argument("--per-process", action="store_true", help="sample the tree's CPU by process kind")
    parser.add_argument("--baseline", type=Path, help="another reqbench source tree to measure beside this one")
    parser.add_argument("--runs", type=int, default=1, help="runs per side; each figure is their median")
    parser.add_argument("--json", type=Path, help="also write every side's figures here")
    args = parser.parse_args()
    executors = args.executor.split(",")
    if not executors or any(e not in ("local", "ray") for e in executors):
        parser.error("--executor: local, ray or ray,local")
    sides = (args.side or []) + ([args.suite] if args.suite else []) or ["demo:pace"]
    trees = [("this tree", ROOT / "src")] + ([("baseline", args.baseline)] if args.baseline else [])
    results = {}
    for tree, src in trees:
        idle_mb = idle_rss_mb(src)
        for side in sides:
            runs: dict[str, list[dict[str, Any]]] = {e: [] for e in executors}
            for _ in range(args.runs):
                for executor in executors:  # interleaved, so each run's executors see the same load
                    runs[executor].append(measure(src, side, executor, args))
            for executor in executors:
                name = f"{tree}, {side}" + (f", {executor}" if len(executors) > 1 or executor != "local" else "")
                results[name] = median_of(runs[executor])
                if args.runs > 1:
                    print(f"{name}: medians of {args.runs} runs; wall times "
                          f"{[round(r['wall'], 1) for r in runs[executor]]} s")
                report(name, results[name], args, idle_mb)
            if {"ray", "local"} <= set(executors):
                side_by_side(f"{tree}, {side}", results[f"{tree}, {side}, ray"], results[f"{tree}, {side}, local"])
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
