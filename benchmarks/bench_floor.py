"""Against the physical floor: `reqbench run demo:specpath --agent reference` next to the plain loop that
does the same work with nothing around it.

The floor, for each of the bundled suite's 21 rows (3 families x 7 conditions): copy the family's base
repository, apply its reference patch with ``git apply``, run the verifier's pytest over the family's
hidden tests -- the harness's interpreter with the verifier's flags (``-P``, ``-q``, no cache provider, a
harness-side ini, rootdir the hidden directory, plugin autoloading off, the workspace's ``src`` on
``PYTHONPATH``) but no guard plugin, no evidence channel, no sandbox, no store. Whatever reqbench spends
beyond that is its own cost: workspaces, the agent step, the diff, the sandbox and cgroups, the guard, the
run store, planning, start-up and the report.

Both are whole commands (the floor runs as its own process, `--floor-loop`, importing nothing of
reqbench), run alternately in one run, at concurrency 1 and 2 (the floor then runs its rows on two
threads). Figures, medians over `--rounds`:

* per row above the floor: each row's wall time in reqbench (the attempt's start to finish) minus the
  same row's in the floor loop of the same round, the median over every row of every round
                                                                                 goal <= 10 ms
* the whole command as a ratio to the whole floor command                         goal <= 1.10
* the fixed cost per run: the command's wall time minus its rows' (summed, divided by the concurrency),
  for each side; reqbench's minus the floor's is what a run costs besides its rows (start-up, planning,
  the report), as a ratio to the floor command
* the time from starting ``reqbench run`` to its first row's start, next to a bare interpreter start
                                                                                 goal <= 0.3 s

These figures count everything reqbench adds, the sandbox and the guard included; the older figures of
``bench_specpath_overhead.py`` and ``bench_scale.py`` count the harness outside the check process against
the verifier's time (which includes the sandbox and the guard). reqbench's byte code is compiled first,
as an installed package has it.

    python benchmarks/bench_floor.py [--rounds 5] [--concurrency 1,2]

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
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any

FLOOR_INI = "[pytest]\n"


# ---------------------------------------------------------------------------------------------------
# The floor loop (its own process: stdlib only)

def floor_row(row: dict[str, str], work: Path) -> float:
    """Copy, apply, pytest: one row of the floor; returns its wall seconds."""
    started = time.perf_counter()
    tree = work / row["key"].replace("|", "_")
    shutil.copytree(row["base"], tree)
    subprocess.run(["git", "apply", "--whitespace=nowarn", row["patch"]], cwd=tree, check=True)
    env = {**os.environ, "PYTHONPATH": str(tree / "src"), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}
    hidden = row["hidden"]
    proc = subprocess.run([sys.executable, "-P", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-c", str(work / "floor.ini"), "--rootdir", hidden, hidden],
                          cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if proc.returncode != 0:
        raise SystemExit(f"floor row {row['key']}: pytest exit {proc.returncode}\n{proc.stdout.decode()[-2000:]}")
    shutil.rmtree(tree)
    return time.perf_counter() - started


def floor_loop(rows_file: Path, concurrency: int, report: Path) -> None:
    rows = json.loads(rows_file.read_text())
    with tempfile.TemporaryDirectory(prefix="floor-") as tmp:
        work = Path(tmp)
        (work / "floor.ini").write_text(FLOOR_INI)
        with ThreadPoolExecutor(concurrency) as pool:
            seconds = list(pool.map(lambda r: floor_row(r, work), rows))
    report.write_text(json.dumps({r["key"]: s for r, s in zip(rows, seconds, strict=True)}))


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


def _seconds(a: str, b: str) -> float:
    return (datetime.fromisoformat(b) - datetime.fromisoformat(a)).total_seconds()


def run_floor(rows_file: Path, concurrency: int, tmp: Path) -> tuple[float, dict[str, float]]:
    report = tmp / "floor.json"
    started = time.perf_counter()
    subprocess.run([sys.executable, __file__, "--floor-loop", str(rows_file), "--concurrency", str(concurrency),
                    "--report", str(report)], check=True)
    return time.perf_counter() - started, json.loads(report.read_text())


def run_reqbench(concurrency: int, tmp: Path) -> tuple[float, dict[str, float], float]:
    """Whole-command seconds, each row's wall seconds, and seconds from the command's start to its first
    row's start."""
    from reqbench.core.store import RunStore

    out = tmp / "run"
    shutil.rmtree(out, ignore_errors=True)
    wall_start = time.time()
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "reqbench", "run", "demo:specpath", "--agent", "reference",
                           "--quiet", "--concurrency", str(concurrency), "--out", str(out)],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"reqbench run: exit {proc.returncode}\n{proc.stdout.decode()[-2000:]}")
    with RunStore.open(out, read_only=True) as store:
        attempts = [a for _, a, _ in store.selected_attempts() if a is not None]
        rows = {a.row_key: _seconds(a.started, a.finished) for a in attempts}
        first = min(datetime.fromisoformat(a.started).timestamp() for a in attempts) - wall_start
        if not all(a.result.get("outcome") == "success" for a in attempts):
            raise SystemExit("reqbench run: a reference row did not succeed")
    return wall, rows, first


def compare(rows: list[dict[str, str]], concurrency: int, rounds: int, tmp: Path) -> dict[str, Any]:
    rows_file = tmp / "rows.json"
    rows_file.write_text(json.dumps(rows))
    walls: dict[str, list[float]] = {"floor": [], "reqbench": []}
    fixed: dict[str, list[float]] = {"floor": [], "reqbench": []}
    per_row: dict[str, list[float]] = {r["key"]: [] for r in rows}
    floor_rows: list[float] = []
    ratios, firsts = [], []
    run_floor(rows_file, concurrency, tmp)  # warm both once (page cache, byte code)
    run_reqbench(concurrency, tmp)
    for n in range(rounds):
        pair: dict[str, tuple[float, dict[str, float]]] = {}
        for side in (("floor", "reqbench") if n % 2 == 0 else ("reqbench", "floor")):
            if side == "floor":
                pair[side] = run_floor(rows_file, concurrency, tmp)
            else:
                wall, times, first = run_reqbench(concurrency, tmp)
                pair[side] = (wall, times)
                firsts.append(first)
        if set(pair["floor"][1]) != set(pair["reqbench"][1]):
            raise SystemExit(f"rows differ: {sorted(set(pair['floor'][1]) ^ set(pair['reqbench'][1]))}")
        for side, (wall, times) in pair.items():
            walls[side].append(wall)
            fixed[side].append(wall - sum(times.values()) / concurrency)
        for key in per_row:
            per_row[key].append(pair["reqbench"][1][key] - pair["floor"][1][key])
        ratios.append(pair["reqbench"][0] / pair["floor"][0])
        floor_rows += pair["floor"][1].values()
    rows_above = {key: statistics.median(v) for key, v in per_row.items()}
    above = statistics.median(d for v in per_row.values() for d in v)  # every row of every round
    return {"floor": statistics.median(walls["floor"]), "reqbench": statistics.median(walls["reqbench"]),
            "ratio": statistics.median(ratios), "ratios": ratios, "above_per_row": above, "rows_above": rows_above,
            "floor_row": statistics.median(floor_rows),
            "fixed_floor": statistics.median(fixed["floor"]), "fixed_reqbench": statistics.median(fixed["reqbench"]),
            "first_row": statistics.median(firsts)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=1 if os.environ.get("REQBENCH_BENCH_QUICK") else 5)
    parser.add_argument("--concurrency", default="1,2")
    parser.add_argument("--floor-loop", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--report", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.floor_loop is not None:
        floor_loop(args.floor_loop, int(args.concurrency), args.report)
        return
    sys.path.insert(0, str(Path(__file__).parent))
    from ratios import figure, interpreter_start

    import reqbench

    compileall.compile_dir(Path(reqbench.__file__).parent, quiet=1, rx=re.compile(r"[/\\]examples[/\\]"))
    rows = bundled_rows()
    with tempfile.TemporaryDirectory(prefix="bench-floor-") as tmp:
        for concurrency in (int(c) for c in args.concurrency.split(",")):
            r = compare(rows, concurrency, args.rounds, Path(tmp))
            print(f"[concurrency {concurrency}, {args.rounds} rounds, {len(rows)} rows] floor {r['floor']:.2f} s, "
                  f"reqbench {r['reqbench']:.2f} s; ratio per round "
                  + ", ".join(f"{x:.3f}" for x in r["ratios"]))
            print(f"[concurrency {concurrency}] fixed cost per run: reqbench {r['fixed_reqbench']:.3f} s, "
                  f"floor {r['fixed_floor']:.3f} s; first row started {r['first_row']:.3f} s after the command")
            print(f"[concurrency {concurrency}] per row above the floor (ms, median of the rounds): "
                  + ", ".join(f"{k.rsplit('|', 2)[0]} {1000 * v:.0f}" for k, v in r["rows_above"].items()))
            figure(f"floor c{concurrency}: per row above the floor", 1000 * r["above_per_row"],
                   "the floor's median row", 1000 * r["floor_row"],
                   "<= 10 ms above", unit="ms")
            figure(f"floor c{concurrency}: whole command", r["reqbench"], "the floor loop", r["floor"], "<= 1.10")
            # the ratio of medians above; the median of the per-round ratios is in the line before
            figure(f"floor c{concurrency}: fixed cost per run", r["fixed_reqbench"] - r["fixed_floor"],
                   "the floor loop", r["floor"])
            figure(f"floor c{concurrency}: reqbench run to its first row", r["first_row"], "bare interpreter start",
                   interpreter_start(), "<= 0.3 s")


if __name__ == "__main__":
    main()
