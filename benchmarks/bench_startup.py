"""Start-up: `reqbench --version` and `--help`, and the path of ``reqbench run`` to its first row, each next
to what it cannot go below.

The command line imports only what it names (`reqbench.cli.main`): ``--version`` neither typer nor any
command, ``run`` only `run`'s own modules. Goals: ``--version`` and the first row under 0.3 s.

The first row is taken apart against its **dependency floor**. The *first row* side is ``reqbench run
demo:specpath --agent reference --quiet`` in a child interpreter that stops at the start of its first
attempt (the bench wraps `reqbench.core.execute.runner._attempt`; nothing of reqbench changes). It records
every module loaded by then. Like a killed harness, it may leave behind the cgroups it made ahead; a later
run removes them once they are stale (`core.sandbox.cgroups.sweep_stale`). The *dependencies* side is a
child interpreter that imports exactly the modules the first side loaded that are not reqbench's own
(pydantic, typer, yaml, sqlite3, the standard library...), in the order they were loaded, and runs nothing
else. What separates the two is reqbench's
own: its modules, their classes (dataclasses and pydantic models built at import), the first use of
pydantic's schema machinery, and the work before the first row (argument parsing, validation, the store).

Every side runs alternately, ``--runs`` times; medians of wall time and of the child's CPU. With
``--instructions`` (the default where valgrind is installed, except in ``make bench-quick``), each side also
runs once under callgrind and the instructions it executes are printed: they do not move with the machine's
load, so they are the figures to compare two trees by (the wall times of a 2-core shared machine move by
±50 ms from one minute to the next). Goal: reqbench's own part of the first row <= 0.30 of the first row's
instructions.

The bench keeps a reqbench cache of its own (``$REQBENCH_CACHE``), filled by one whole ``reqbench run
demo:specpath --agent reference`` before anything is timed, as any earlier run fills a user's: the reference
check's validation and the table of generated code (`reqbench.core.code_cache`: dataclass methods and
forward references compiled once per interpreter). Two more sides show that table's part: the first row
with it switched off (``REQBENCH_CODE_CACHE=0``: the figure before it existed), and the dependencies side
with the table installed before their imports, since the first row's table serves the dependencies'
dataclasses and forward references too -- the first row against that side is reqbench's own part with
none of the table's saving on the dependencies counted for reqbench.

``--baseline OTHER/src`` (another source tree of reqbench, e.g. a worktree of the commit before a change)
adds its first row as a further side, run by the same interpreter with ``PYTHONPATH=OTHER/src``, and prints
this tree's first row against it (and, with ``--instructions``, their instruction counts).

    python benchmarks/bench_startup.py [--runs 15] [--[no-]instructions] [--baseline OTHER/src]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from ratios import figure  # noqa: E402

import reqbench  # noqa: E402

FIRST, BASELINE, FLOOR = "reqbench run to its first row", "the baseline's first row", "its dependencies' imports"
UNCACHED = "the first row, no code cache"
FLOOR_CACHED = "dependencies, with the code cache"

COMMANDS = {
    "bare interpreter": [sys.executable, "-c", "pass"],
    "reqbench --version": [sys.executable, "-m", "reqbench", "--version"],
    "reqbench --help": [sys.executable, "-m", "reqbench", "--help"],
}


# ---------------------------------------------------------------------------------------------------
# The two children of the first-row comparison: ``python -c`` programs importing nothing of their own
# beyond importlib, json, os, sys and time (which a run loads anyway), so neither side pays for this bench

FIRST_ROW_CHILD = """
import json, os, sys
out, modules_file = sys.argv[1:3]
from reqbench.core.execute import runner
def stop(*args, **kwargs):  # the first attempt's start: what was loaded by then, and out
    with open(modules_file, "w") as f:
        json.dump(list(sys.modules), f)
    os._exit(0)
runner._attempt = stop
sys.argv = ["reqbench", "run", "demo:specpath", "--agent", "reference", "--quiet", "--out", out]
from reqbench.cli.main import main
main()
raise SystemExit("the run ended without starting a row")
"""
"""``reqbench run`` in the child's own process, stopped (``os._exit``) at the start of its first attempt
after writing the modules loaded by then."""

DEPENDENCIES_CHILD = """
import importlib, json, sys, time
modules_file, times_file = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None
per_package = {}
with open(modules_file) as f:
    names = json.load(f)
for name in names:
    top = name.split(".")[0]
    if name in sys.modules:
        continue
    started = time.perf_counter()
    try:
        importlib.import_module(name)
    except Exception:  # a module made at run time (e.g. a lazily aliased name): skipped
        pass
    per_package[top] = per_package.get(top, 0.0) + time.perf_counter() - started
if times_file:
    with open(times_file, "w") as f:
        json.dump(per_package, f)
"""
"""Import each module of the list not loaded yet (the first row's that are not reqbench's, in the order they
were loaded: `dependencies_list`); optionally write the seconds each top-level package's imports took (a
module's own imports are charged to the package of the name that pulled them in)."""

CACHED_DEPENDENCIES_CHILD = "from reqbench.core.code_cache import install\ninstall()\n" + DEPENDENCIES_CHILD
"""The dependencies side with reqbench's table of generated code (`reqbench.core.code_cache`) serving their
dataclasses and forward references too, as it does in the first row: what separates the first row from it
is reqbench's own part with nothing of the table's saving counted for reqbench."""

OWN = ("reqbench", "__main__", "__mp_main__")


def dependency(name: str) -> bool:
    return name.split(".")[0] not in OWN and not name.startswith("__editable__")


def dependencies_list(modules: Path, listed: Path) -> None:
    """Write to `listed` the modules of `modules` (the first row's, in load order) that are not reqbench's."""
    listed.write_text(json.dumps([name for name in json.loads(modules.read_text()) if dependency(name)]))


def dependencies_argv(listed: Path, times: Path | None = None, *, cached: bool = False) -> list[str]:
    return [sys.executable, "-c", CACHED_DEPENDENCIES_CHILD if cached else DEPENDENCIES_CHILD, str(listed),
            str(times or "")]


# ---------------------------------------------------------------------------------------------------
# The driver

def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and the child's CPU seconds (user + system) of one run of `argv`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def instructions(argv: list[str], work: Path, env: dict[str, str]) -> int | None:
    """Instructions `argv`'s own process executes (callgrind; its children are not traced), or None
    without valgrind."""
    if shutil.which("valgrind") is None:
        return None
    log = work / "callgrind.log"
    env = {**env, "PYTHONHASHSEED": "0"}  # the same dict layouts every time
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={work / 'callgrind.out'}",
                    f"--log-file={log}", *argv], check=True, stdout=subprocess.DEVNULL, env=env)
    match = re.search(r"Collected : (\d+)", log.read_text())
    return int(match.group(1)) if match else None


def package_times(listed: Path, work: Path, runs: int = 5) -> list[tuple[str, float]]:
    """Milliseconds of each top-level package's imports in the dependencies side, medians of `runs`,
    largest first."""
    samples: dict[str, list[float]] = {}
    for _ in range(runs):
        times = work / "package-times.json"
        subprocess.run(dependencies_argv(listed, times), check=True)
        for top, seconds in json.loads(times.read_text()).items():
            samples.setdefault(top, []).append(1000 * seconds)
    return sorted(((top, statistics.median(v)) for top, v in samples.items()), key=lambda kv: -kv[1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--instructions", action=argparse.BooleanOptionalAction,
                        default=bool(shutil.which("valgrind")) and not os.environ.get("REQBENCH_BENCH_QUICK"),
                        help="also count each side's instructions under callgrind (default: where valgrind is)")
    parser.add_argument("--baseline", type=Path, help="another reqbench source tree: its first row as a side")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="reqbench-bench-startup-") as tmp:
        work = Path(tmp)
        modules, listed = work / "modules.json", work / "dependencies.json"
        out = work / "run"

        def first_row(listed: Path = modules) -> list[str]:
            shutil.rmtree(out, ignore_errors=True)
            return [sys.executable, "-c", FIRST_ROW_CHILD, str(out), str(listed)]

        sides = {**{name: (lambda argv=argv: argv) for name, argv in COMMANDS.items()},
                 FIRST: first_row, UNCACHED: first_row, FLOOR: lambda: dependencies_argv(listed),
                 FLOOR_CACHED: lambda: dependencies_argv(listed, cached=True)}
        # A cache of the bench's own (the reference check's validation, the code table), filled by one whole
        # run below as any earlier run on a machine fills it; one side runs with the code table switched off.
        environ = {**os.environ, "REQBENCH_CACHE": str(work / "cache")}
        envs = {name: dict(environ) for name in sides}
        envs[UNCACHED]["REQBENCH_CODE_CACHE"] = "0"
        trees = [Path(reqbench.__file__).parent]
        if args.baseline is not None:
            baseline = args.baseline.resolve()
            trees.append(baseline / "reqbench")
            sides[BASELINE] = lambda: first_row(work / "baseline-modules.json")
            envs[BASELINE] = {**environ, "PYTHONPATH": str(baseline)}
        for tree in trees:  # byte code, as an installed package has it
            compileall.compile_dir(tree, quiet=1, rx=re.compile(r"[/\\]examples[/\\]"))
        subprocess.run([sys.executable, "-m", "reqbench", "run", "demo:specpath", "--agent", "reference", "--quiet",
                        "--out", str(work / "warm-up")], check=True, stdout=subprocess.DEVNULL, env=environ)
        subprocess.run(first_row(), check=True, stdout=subprocess.DEVNULL, env=environ)  # the first row's modules
        dependencies_list(modules, listed)
        for name, make in sides.items():  # warm the page cache
            subprocess.run(make(), check=True, stdout=subprocess.DEVNULL, env=envs[name])
        walls: dict[str, list[float]] = {name: [] for name in sides}
        cpus: dict[str, list[float]] = {name: [] for name in sides}
        for _ in range(args.runs):
            for name, make in sides.items():
                wall, cpu = timed(make(), envs[name])
                walls[name].append(wall)
                cpus[name].append(cpu)
        ms = {name: 1000 * statistics.median(t) for name, t in walls.items()}
        cpu_ms = {name: 1000 * statistics.median(t) for name, t in cpus.items()}
        loaded = json.loads(modules.read_text())
        for name in sides:
            print(f"{name:32s} {ms[name]:8.1f} ms wall, {cpu_ms[name]:8.1f} ms CPU (medians of {args.runs})")
        print(f"[first row] {len(loaded)} modules loaded, {sum(not dependency(m) for m in loaded)} of them "
              "reqbench's own")
        print("[dependencies] the largest packages' imports (median of 5 separate runs): "
              + ", ".join(f"{top} {ms_:.1f} ms" for top, ms_ in package_times(listed, work)[:8]))
        bare = ms["bare interpreter"]
        figure("start-up: reqbench --version", ms["reqbench --version"], "bare interpreter start", bare,
               "<= 300 ms", unit="ms")
        figure("start-up: reqbench --help (every command imported)", ms["reqbench --help"],
               "bare interpreter start", bare, unit="ms")
        first, floor = ms[FIRST], ms[FLOOR]
        figure("start-up: reqbench run to its first row", first, "its dependencies' imports alone", floor,
               "<= 300 ms", unit="ms")
        figure("start-up: reqbench's own part of the first row", first - floor, "the first row", first, unit="ms")
        figure("start-up: the first row, with the code cache vs without", first, "without", ms[UNCACHED], unit="ms")
        if BASELINE in ms:
            figure("start-up: the first row, this tree vs the baseline", first, "the baseline's", ms[BASELINE],
                   unit="ms")
        if args.instructions:
            counts = {name: instructions(make(), work, envs[name]) for name, make in sides.items()}
            if None in counts.values():
                print("[instructions] valgrind is not installed here: no instruction counts")
                return
            millions = {name: count / 1e6 for name, count in counts.items() if count is not None}
            for name, value in millions.items():
                print(f"[instructions] {name:32s} {value:10.1f} M")
            figure("start-up instructions: reqbench's own part of the first row", millions[FIRST] - millions[FLOOR],
                   "the first row's", millions[FIRST], "<= 0.30", unit="M")
            figure("start-up instructions: the same without the code cache (REQBENCH_CODE_CACHE=0)",
                   millions[UNCACHED] - millions[FLOOR], "that first row's", millions[UNCACHED], unit="M")
            figure("start-up instructions: reqbench's own part, the dependencies' generated code served from "
                   "the table too", millions[FIRST] - millions[FLOOR_CACHED], "the first row's", millions[FIRST],
                   unit="M")
            if BASELINE in millions:
                figure("start-up instructions: the first row, this tree vs the baseline", millions[FIRST],
                       "the baseline's", millions[BASELINE], unit="M")


if __name__ == "__main__":
    main()
