"""Against the physical floor: `reqbench run demo:specpath --agent reference` next to the plain loop that
does the same work with nothing around it.

The floor, for each of the bundled suite's 21 rows (3 families x 7 conditions): copy the family's base
repository, apply its reference patch with ``git apply``, run the verifier's pytest over the family's
hidden tests -- the harness's interpreter with the verifier's flags (``-P``, ``-q``, no cache provider, a
harness-side ini, rootdir the hidden directory, plugin autoloading off, the workspace's ``src`` on
``PYTHONPATH``) but no guard plugin, no evidence channel, no sandbox, no store. Whatever reqbench spends
beyond that is its own cost: workspaces, the agent step, the diff, the sandbox and cgroups, the guard, the
run store, planning, start-up and the report.

Both are whole commands (the floor runs as its own process, `floor_loop.py`, importing nothing of
reqbench), run alternately in one run, at concurrency 1 and 2 (the floor then runs its rows on two
threads). Figures, medians over `--rounds`:

* per row above the floor: each row's wall time in reqbench (the attempt's start to finish) minus the
  same row's in the floor loop of the same round, the median over every row of every round
* the whole command as a ratio to the whole floor command (reported beside the goal below)
* the fixed cost per run: the command's wall time minus its rows' (summed, divided by the concurrency),
  for each side; reqbench's minus the floor's is what a run costs besides its rows (start-up, planning,
  the report), as a ratio to the floor command
* the time from starting ``reqbench run`` to its first row's start, next to a bare interpreter start
                                                                                 goal <= 0.3 s
* the time from its last row's end to the command's exit (the headline, the store, the interpreter's
  teardown), next to a bare interpreter start
* the harness process's own CPU (``reqbench run`` itself, every thread, from its start to its exit, not
  its children: read from ``/proc`` while the exited process is still unreaped), which moves far less
  with the machine's load than any wall time: the figure to compare trees by (``--baseline``)

Beside the floor, where bubblewrap runs here, a **sandboxed floor**: the same loop with each pytest
under bubblewrap with the host part of a check's view (reqbench's own `BASE_ARGS` and system and
toolchain binds, computed once by the driver; the loop binds its tree, the hidden tests and its ini
itself) -- no cgroups, no ``/bin/sh`` in front, no guard, no harness. It prints what the isolation costs
by itself (sandboxed floor vs floor) and reqbench's rows and whole command against it, i.e. what the
harness adds beyond the isolation. **The goal is on this side**: the whole command <= 1.05x the sandboxed
floor at concurrency 1 and 2. Beside it, the bound the libraries set: the sandboxed floor plus the time a
bare interpreter takes to import the third-party packages ``reqbench run`` imports before its first row
(typer, pydantic, yaml, ...) -- the ratio a harness on the same libraries would reach with no code of its
own and no cost per row. And where cgroups can be made, a **capped floor**: the sandboxed floor with the
tree's caps as a row's check has them (a fresh pids and memory group per row, joined by one ``/bin/sh``
in front of bubblewrap), i.e. the same isolation as reqbench's checks -- moving a process into a cgroup
waits for a kernel RCU grace period, 10-18 ms a launch on this kind of machine (`bench_launch.py`), which
the sandboxed floor does not pay. Bubblewrap with a check's view costs 5-8 ms a launch on this kind of machine
by itself, so a goal against the plain floor would measure the isolation, not the harness.

These figures count everything reqbench adds, the sandbox and the guard included; the older figures of
``bench_specpath_overhead.py`` and ``bench_scale.py`` count the harness outside the check process against
the verifier's time (which includes the sandbox and the guard). reqbench's byte code is compiled first,
as an installed package has it.

    python benchmarks/bench_floor.py [--rounds 5] [--concurrency 1,2] [--baseline OTHER/src]

``--baseline`` runs another source tree of reqbench (the folder holding its ``reqbench`` package, e.g. a
worktree of the previous release) as a third side of every round, with the same interpreter, so a change
is measured against the code before it in one run: the same figures for it, and this tree's per-row cost
and whole command next to it.

``REQBENCH_BENCH_QUICK=1`` (``make bench-quick``) runs one round.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from cpu_meter import CpuMeter, meter_closed  # noqa: E402

# ---------------------------------------------------------------------------------------------------
# The comparison

def bundled_rows() -> list[dict[str, str]]:
    """The bundled suite's rows as the floor needs them (family folders, reference patches, hidden tests)."""
    from reqbench.core.bundled import bundled_suite
    from reqbench.protocols.specpath.suite import PROTOCOL

    suite = PROTOCOL.load(bundled_suite("specpath"))
    rows = []
    for family in suite.families.values():
        for condition in family.histories:
            rows.append({"key": f"{family.id}|{condition}|reference|0", "base": str(family.base_repo),
                         "patch": str(family.root / family.spec.reference_patch),
                         "hidden": str(family.hidden_dir)})
    return rows


def sandbox_prefix() -> list[str] | None:
    """The sandboxed floor's bubblewrap command line before a row's own binds: reqbench's base options and
    the host part of a check's view (for a check's PATH, `launch.scrubbed_env`'s, as `sandbox.warm` builds
    it); None where bubblewrap does not run."""
    from reqbench.core.sandbox.isolation import available_isolation
    from reqbench.core.sandbox.launch import scrubbed_env
    from reqbench.core.sandbox.view import BASE_ARGS, host_part

    if available_isolation() != "bwrap":
        return None
    host = host_part(scrubbed_env(None, Path("/"), Path("/"), "")["PATH"])
    return ["bwrap", *BASE_ARGS, *host.args, *(a for mask in host.masks for a in ("--tmpfs", str(mask)))]


def _seconds(a: str, b: str) -> float:
    return (datetime.fromisoformat(b) - datetime.fromisoformat(a)).total_seconds()


def _cpu(meter: CpuMeter | None) -> float:
    return meter.take() if meter is not None else float("nan")


def run_floor(rows_file: Path, concurrency: int, tmp: Path, meter: CpuMeter | None = None,
              sandbox_file: Path | None = None) -> tuple[float, dict[str, float], float]:
    """Whole-command seconds, each row's wall seconds, and the command's CPU seconds (NaN without a meter);
    with `sandbox_file` (``{"prefix": sandbox_prefix(), "cgroups": [...]}`` as JSON) a sandboxed floor."""
    report = tmp / "floor.json"
    _cpu(meter)
    started = time.perf_counter()
    subprocess.run([*(meter.prefix() if meter is not None else []), sys.executable,
                    str(Path(__file__).with_name("floor_loop.py")),
                    str(rows_file), "--concurrency", str(concurrency), "--report", str(report),
                    *(["--sandbox", str(sandbox_file)] if sandbox_file is not None else [])], check=True)
    return time.perf_counter() - started, json.loads(report.read_text()), _cpu(meter)


def run_reqbench(concurrency: int, tmp: Path, source: Path | None = None,
                 meter: CpuMeter | None = None) -> tuple[float, dict[str, float], float, float, float, float]:
    """Whole-command seconds, each row's wall seconds, seconds from the command's start to its first
    row's start, seconds from its last row's end to its exit, the command's CPU seconds (every process)
    and the reqbench process's own (`source`: another reqbench source tree to run instead of the
    installed one)."""
    from reqbench.core.store import RunStore

    out = tmp / "run"
    shutil.rmtree(out, ignore_errors=True)
    env = {**os.environ, **({"PYTHONPATH": str(source)} if source is not None else {})}
    _cpu(meter)
    wall_start = time.time()
    started = time.perf_counter()
    proc = subprocess.Popen([*(meter.prefix() if meter is not None else []),  # the prefix execs: same pid
                             sys.executable, "-m", "reqbench", "run", "demo:specpath", "--agent", "reference",
                             "--quiet", "--concurrency", str(concurrency), "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    output = proc.stdout.read() if proc.stdout is not None else b""
    own_cpu = _own_cpu_at_exit(proc.pid)
    proc.wait()
    wall, wall_end = time.perf_counter() - started, time.time()
    cpu = _cpu(meter)
    if proc.returncode != 0:
        raise SystemExit(f"reqbench run: exit {proc.returncode}\n{output.decode()[-2000:]}")
    with RunStore.open(out, read_only=True) as store:
        attempts = [a for _, a, _ in store.selected_attempts() if a is not None]
        rows = {a.row_key: _seconds(a.started, a.finished) for a in attempts}
        first = min(datetime.fromisoformat(a.started).timestamp() for a in attempts) - wall_start
        last = wall_end - max(datetime.fromisoformat(a.finished).timestamp() for a in attempts)
        if not all(a.result.stored().get("outcome") == "success" for a in attempts):
            raise SystemExit("reqbench run: a reference row did not succeed")
    return wall, rows, first, last, cpu, own_cpu


def _own_cpu_at_exit(pid: int) -> float:
    """CPU seconds (user + system, all its threads, not its children) of the child `pid`, once it has
    exited but before it is reaped (``WNOWAIT``): its ``/proc/PID/stat`` still holds them then."""
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime (fields 14, 15)


DEPENDENCY_PROBE = """
import sys
from reqbench.cli.main import make_app
make_app('run')
from reqbench.protocols.specpath.suite import PROTOCOL
import reqbench.core.execute.runner
names = {m.split('.')[0] for m in sys.modules} - set(sys.stdlib_module_names) - {'reqbench', '__main__'}
print(' '.join(sorted(n for n in names if not n.startswith('_')
                      and getattr(sys.modules.get(n), '__spec__', None) is not None)))
"""
"""What `reqbench run` imports before its first row, as the top-level packages outside the standard library."""


def dependency_start() -> tuple[list[str], float]:
    """The third-party packages reqbench imports on its way to a run's first row, and the seconds a bare
    interpreter takes to import just them and exit (median of 5): what any harness built on the same
    libraries pays before its first row, before any code of its own runs."""
    packages = subprocess.run([sys.executable, "-c", DEPENDENCY_PROBE], capture_output=True, text=True,
                              check=True).stdout.split()
    times = []
    for _ in range(5):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import " + ", ".join(packages)], check=True)
        times.append(time.perf_counter() - started)
    return packages, statistics.median(times)


SANDBOXED_GOAL = "<= 1.05"
"""The whole command against the sandboxed floor, at concurrency 1 and 2."""

FLOORS = ("floor", "sandboxed", "capped")
"""The sides that are floor loops (plain, sandboxed, sandboxed with the caps); every other side is a reqbench
tree."""


def cgroup_parents() -> list[str]:
    """Where reqbench makes a tree's groups on this machine (`cgroups.parents`: pids, memory), as paths."""
    from reqbench.core.sandbox.cgroups import parents

    return [str(p.path) for p in parents()]


def compare(rows: list[dict[str, str]], concurrency: int, rounds: int, tmp: Path,
            baseline: Path | None = None, meter: CpuMeter | None = None,
            sandbox: list[str] | None = None) -> dict[str, Any]:
    """The floor (and with `sandbox` the sandboxed floor, and where cgroups can be made the capped one),
    reqbench and the `baseline` tree (when given) alternated round by round; the figures of each reqbench
    side under its name ("reqbench", "baseline"), each against every floor (`FLOORS`)."""
    rows_file = tmp / "rows.json"
    rows_file.write_text(json.dumps(rows))
    sandbox_files: dict[str, Path | None] = {"floor": None}
    if sandbox is not None:
        for side, groups in (("sandboxed", []), ("capped", cgroup_parents())):
            if side == "sandboxed" or groups:
                sandbox_files[side] = tmp / f"{side}.json"
                sandbox_files[side].write_text(json.dumps({"prefix": sandbox, "cgroups": groups}))
    floors = list(sandbox_files)
    tools = ["reqbench", *(["baseline"] if baseline is not None else [])]
    sides = [*floors, *tools]
    sources = {"reqbench": None, "baseline": baseline}
    walls: dict[str, list[float]] = {side: [] for side in sides}
    fixed: dict[str, list[float]] = {side: [] for side in sides}
    cpus: dict[str, list[float]] = {side: [] for side in sides}
    row_times: dict[str, list[float]] = {side: [] for side in floors}
    above: dict[tuple[str, str], dict[str, list[float]]] = {
        (side, f): {r["key"]: [] for r in rows} for side in sides for f in floors if side != f}
    ratios: dict[tuple[str, str], list[float]] = {pair: [] for pair in above}
    firsts: dict[str, list[float]] = {side: [] for side in tools}
    lasts: dict[str, list[float]] = {side: [] for side in tools}
    own: dict[str, list[float]] = {side: [] for side in tools}
    for side in floors:  # warm every side once (page cache, byte code)
        run_floor(rows_file, concurrency, tmp, sandbox_file=sandbox_files[side])
    for side in tools:
        run_reqbench(concurrency, tmp, sources[side])
    for n in range(rounds):
        done: dict[str, tuple[float, dict[str, float]]] = {}
        for side in sides[n % len(sides):] + sides[:n % len(sides)]:  # each side first in turn
            if side in FLOORS:
                wall, times, cpu = run_floor(rows_file, concurrency, tmp, meter, sandbox_files[side])
            else:
                wall, times, first, last, cpu, own_cpu = run_reqbench(concurrency, tmp, sources[side], meter)
                firsts[side].append(first)
                lasts[side].append(last)
                own[side].append(own_cpu)
            done[side] = (wall, times)
            cpus[side].append(cpu)
        for (side, floor), per_row in above.items():
            if set(done[floor][1]) != set(done[side][1]):
                raise SystemExit(f"rows differ: {sorted(set(done[floor][1]) ^ set(done[side][1]))}")
            for key in per_row:
                per_row[key].append(done[side][1][key] - done[floor][1][key])
            ratios[side, floor].append(done[side][0] / done[floor][0])
        for side, (wall, times) in done.items():
            walls[side].append(wall)
            fixed[side].append(wall - sum(times.values()) / concurrency)
        for side in floors:
            row_times[side] += done[side][1].values()

    def against(side: str, floor: str) -> dict[str, Any]:
        per_row = above[side, floor]
        return {"ratio": statistics.median(ratios[side, floor]), "ratios": ratios[side, floor],
                "rows_above": {key: statistics.median(v) for key, v in per_row.items()},
                "above_per_row": statistics.median(d for v in per_row.values() for d in v)}  # every row, round

    out: dict[str, Any] = {"sides": tools, "floors": floors}
    for side in floors:
        out[side] = {"wall": statistics.median(walls[side]), "row": statistics.median(row_times[side]),
                     "fixed": statistics.median(fixed[side]), "cpu": statistics.median(cpus[side])}
    for side in floors[1:]:
        out[side]["vs floor"] = against(side, "floor")
    for side in tools:
        out[side] = {"wall": statistics.median(walls[side]), "fixed": statistics.median(fixed[side]),
                     "first_row": statistics.median(firsts[side]), "after_last_row": statistics.median(lasts[side]),
                     "cpu": statistics.median(cpus[side]), "own_cpu": statistics.median(own[side]),
                     **{f"vs {floor}": against(side, floor) for floor in floors}}
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=1 if os.environ.get("REQBENCH_BENCH_QUICK") else 5)
    parser.add_argument("--concurrency", default="1,2")
    parser.add_argument("--baseline", type=Path, help="another reqbench source tree to run beside this one")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).parent))
    from ratios import figure, interpreter_start

    import reqbench

    baseline = args.baseline.resolve() if args.baseline is not None else None
    for tree in [Path(reqbench.__file__).parent, *([baseline / "reqbench"] if baseline is not None else [])]:
        compileall.compile_dir(tree, quiet=1, rx=re.compile(r"[/\\]examples[/\\]"))
    rows, sandbox = bundled_rows(), sandbox_prefix()
    if sandbox is None:
        print(f"bubblewrap does not run here: no sandboxed floor, so its goal ({SANDBOXED_GOAL}) is not measured")
    meter = CpuMeter.make()
    with tempfile.TemporaryDirectory(prefix="bench-floor-") as tmp, meter_closed(meter):
        for concurrency in (int(c) for c in args.concurrency.split(",")):
            r = compare(rows, concurrency, args.rounds, Path(tmp), baseline, meter, sandbox)
            if "sandboxed" in r["floors"]:
                _report_isolation(r, concurrency, figure)
            for side in r["sides"]:
                _report(side, r, concurrency, args.rounds, len(rows), figure, interpreter_start)
            if "sandboxed" in r["floors"]:
                _report_bound(r, concurrency, figure, interpreter_start)
            if baseline is not None:
                mine, base = r["reqbench"], r["baseline"]
                figure(f"floor c{concurrency}: per row above the floor, this tree vs the baseline",
                       1000 * mine["vs floor"]["above_per_row"], "the baseline's",
                       1000 * base["vs floor"]["above_per_row"], unit="ms")
                figure(f"floor c{concurrency}: whole command, this tree vs the baseline", mine["wall"],
                       "the baseline's", base["wall"])
                if meter is not None:
                    figure(f"floor c{concurrency}: CPU of the whole command, this tree vs the baseline", mine["cpu"],
                           "the baseline's", base["cpu"])
                figure(f"floor c{concurrency}: the reqbench process's own CPU, this tree vs the baseline",
                       mine["own_cpu"], "the baseline's", base["own_cpu"])


def _report_isolation(r: dict[str, Any], concurrency: int, figure: Any) -> None:
    """What the isolation costs by itself: the sandboxed (and capped) floor against the floor."""
    for side in r["floors"][1:]:
        iso = r[side]["vs floor"]
        figure(f"floor c{concurrency}: the {side} floor, per row above the floor", 1000 * iso["above_per_row"],
               "the floor's median row", 1000 * r["floor"]["row"], unit="ms")
        figure(f"floor c{concurrency}: the {side} floor's whole command", r[side]["wall"], "the floor loop",
               r["floor"]["wall"])


def _report_bound(r: dict[str, Any], concurrency: int, figure: Any, interpreter_start: Any) -> None:
    """The best whole-command ratio to the sandboxed floor that importing reqbench's dependencies allows:
    the sandboxed floor plus their import (beyond a bare interpreter's start, which the floor loop pays
    too), with nothing else added -- no code of reqbench's own, no cost per row."""
    packages, seconds = dependency_start()
    extra = max(seconds - interpreter_start(), 0.0)
    print(f"[concurrency {concurrency}] reqbench's dependencies on the way to the first row: {' '.join(packages)}; "
          f"importing them takes {seconds:.3f} s ({extra:.3f} s beyond a bare interpreter's start)")
    figure(f"floor c{concurrency}: the sandboxed floor plus the dependencies' import alone",
           r["sandboxed"]["wall"] + extra, "the sandboxed floor loop", r["sandboxed"]["wall"])


def _report(side: str, r: dict[str, Any], concurrency: int, rounds: int, n_rows: int, figure: Any,
            interpreter_start: Any) -> None:
    """Print one reqbench side's figures against the floor (and the sandboxed floor)."""
    s, floor = r[side], r["floor"]
    name = "" if side == "reqbench" else f" ({side})"
    print(f"[concurrency {concurrency}{name}, {rounds} rounds, {n_rows} rows] floor {floor['wall']:.2f} s, "
          f"reqbench {s['wall']:.2f} s; ratio per round " + ", ".join(f"{x:.3f}" for x in s["vs floor"]["ratios"]))
    print(f"[concurrency {concurrency}{name}] fixed cost per run: reqbench {s['fixed']:.3f} s, "
          f"floor {floor['fixed']:.3f} s; first row started {s['first_row']:.3f} s after the command, "
          f"the command exited {s['after_last_row']:.3f} s after its last row")
    print(f"[concurrency {concurrency}{name}] per row above the floor (ms, median of the rounds): "
          + ", ".join(f"{k.rsplit('|', 2)[0]} {1000 * v:.0f}" for k, v in s["vs floor"]["rows_above"].items()))
    figure(f"floor c{concurrency}{name}: per row above the floor", 1000 * s["vs floor"]["above_per_row"],
           "the floor's median row", 1000 * floor["row"], unit="ms")
    figure(f"floor c{concurrency}{name}: whole command", s["wall"], "the floor loop", floor["wall"])
    # the ratio of medians above; the median of the per-round ratios is in the line before
    if "sandboxed" in r["floors"]:
        figure(f"floor c{concurrency}{name}: per row above the sandboxed floor",
               1000 * s["vs sandboxed"]["above_per_row"], "the sandboxed floor's median row",
               1000 * r["sandboxed"]["row"], unit="ms")
        figure(f"floor c{concurrency}{name}: whole command vs the sandboxed floor", s["wall"],
               "the sandboxed floor loop", r["sandboxed"]["wall"], SANDBOXED_GOAL if not name else "")
        print(f"[concurrency {concurrency}{name}] whole command / sandboxed floor per round: "
              + ", ".join(f"{x:.3f}" for x in s["vs sandboxed"]["ratios"]) + f" (goal {SANDBOXED_GOAL}); "
              f"/ the plain floor: {s['wall'] / floor['wall']:.3f}")
    if "capped" in r["floors"]:  # the same isolation as a row's check: the namespaces and the caps' cgroups
        figure(f"floor c{concurrency}{name}: per row above the capped floor", 1000 * s["vs capped"]["above_per_row"],
               "the capped floor's median row", 1000 * r["capped"]["row"], unit="ms")
        figure(f"floor c{concurrency}{name}: whole command vs the capped floor", s["wall"], "the capped floor loop",
               r["capped"]["wall"])
    figure(f"floor c{concurrency}{name}: fixed cost per run", s["fixed"] - floor["fixed"], "the floor loop",
           floor["wall"])
    figure(f"floor c{concurrency}{name}: reqbench run to its first row", s["first_row"], "bare interpreter start",
           interpreter_start(), "<= 0.3 s")
    figure(f"floor c{concurrency}{name}: reqbench run's exit after its last row", s["after_last_row"],
           "bare interpreter start", interpreter_start())
    print(f"[concurrency {concurrency}{name}] the reqbench process's own CPU (median): {s['own_cpu']:.3f} s, "
          f"{1000 * s['own_cpu'] / n_rows:.1f} ms per row, start-up and end included")
    if s["cpu"] == s["cpu"]:  # measured (not NaN): CPU moves far less with the machine's load than wall time
        figure(f"floor c{concurrency}{name}: CPU of the whole command", s["cpu"], "the floor loop's", floor["cpu"])
        if "sandboxed" in r["floors"]:
            figure(f"floor c{concurrency}{name}: CPU of the whole command vs the sandboxed floor", s["cpu"],
                   "the sandboxed floor loop's", r["sandboxed"]["cpu"])
        figure(f"floor c{concurrency}{name}: CPU above the floor per row, fixed cost included",
               1000 * (s["cpu"] - floor["cpu"]) / n_rows, "the floor's CPU per row",
               1000 * floor["cpu"] / n_rows, unit="ms")


if __name__ == "__main__":
    main()
