"""One verifier check, end to end, as a row runs it: ``run_verifier`` of a bundled SpecPath family on a
fresh base with the reference patch applied (snapshot, protected paths, sandbox, cgroups, guard, evidence),
next to the same pytest run plainly (the floor of a check: the interpreter and flags of the check, no
guard, no sandbox).

With ``--baseline OTHER/src`` the checks of another reqbench source tree run too, each side in its own
process per round, the sides alternated, so a change is measured against the code before it; each
process's CPU time is counted through a cgroup where one can be made (`cpu_meter`), which moves far less
with the machine's load than wall time.

    python benchmarks/bench_check.py [--rounds 6] [--checks 10] [--baseline OTHER/src]
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from cpu_meter import CpuMeter, meter_closed  # noqa: E402
from ratios import figure  # noqa: E402


def worker(checks: int, plain: bool) -> None:
    """Run `checks` checks (or plain pytest runs) on fresh trees; print their wall seconds as JSON."""
    from reqbench.core.bundled import bundled_suite
    from reqbench.protocols.specpath.suite import PROTOCOL
    from reqbench.protocols.specpath.verifier import run_verifier

    family = next(iter(PROTOCOL.load(bundled_suite("specpath")).families.values()))
    work = Path(tempfile.mkdtemp(prefix="bench-check-"))
    ini = work / "floor.ini"
    ini.write_text("[pytest]\n")
    trees = []
    for n in range(checks + 1):
        tree = work / f"t{n}"
        shutil.copytree(family.base_repo, tree)
        subprocess.run(["git", "apply", str(family.root / family.spec.reference_patch)], cwd=tree, check=True)
        trees.append(tree)
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    hidden = str(family.hidden_dir)
    seconds = []
    for n, tree in enumerate(trees):
        started = time.perf_counter()
        if plain:
            subprocess.run([sys.executable, "-P", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", str(ini),
                            "--rootdir", hidden, hidden], cwd=tree, env={**env, "PYTHONPATH": str(tree / "src")},
                           stdout=subprocess.DEVNULL, check=True)
        else:
            run = run_verifier(family, tree, consume=True)
            if run.harness_error or not all(run.probes.values()):
                raise SystemExit(f"the reference did not pass: {run.detail}")
        if n:  # the first one warms the process's caches
            seconds.append(time.perf_counter() - started)
    shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(seconds))


def side(source: Path | None, checks: int, plain: bool, meter: CpuMeter | None) -> tuple[list[float], float]:
    env = {**os.environ, **({"PYTHONPATH": str(source)} if source is not None else {})}
    if meter is not None:
        meter.take()
    out = subprocess.run([*(meter.prefix() if meter is not None else []), sys.executable, __file__, "--worker",
                          str(checks), *(["--plain"] if plain else [])], env=env, stdout=subprocess.PIPE, check=True)
    return json.loads(out.stdout), meter.take() if meter is not None else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2 if os.environ.get("REQBENCH_BENCH_QUICK") else 6)
    parser.add_argument("--checks", type=int, default=10)
    parser.add_argument("--baseline", type=Path)
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--plain", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        worker(args.worker, args.plain)
        return
    sides = {"plain": (None, True), "reqbench": (None, False)}
    if args.baseline is not None:
        sides["baseline"] = (args.baseline.resolve(), False)
    import reqbench  # byte code compiled first, as an installed package has it

    for tree in [Path(reqbench.__file__).parent, *([args.baseline.resolve() / "reqbench"] if args.baseline else [])]:
        compileall.compile_dir(tree, quiet=1, rx=re.compile(r"[/\\]examples[/\\]"))
    meter = CpuMeter.make()
    walls: dict[str, list[float]] = {name: [] for name in sides}
    cpus: dict[str, list[float]] = {name: [] for name in sides}
    names = list(sides)
    with meter_closed(meter):
        for n in range(args.rounds):
            for name in names[n % len(names):] + names[:n % len(names)]:
                source, plain = sides[name]
                seconds, cpu = side(source, args.checks, plain, meter)
                walls[name] += seconds
                cpus[name].append(cpu / (args.checks + 1))  # per check, the warm-up one and the process included
    med = {name: 1000 * statistics.median(v) for name, v in walls.items()}
    figure("one check: wall above plain pytest", med["reqbench"] - med["plain"], "plain pytest", med["plain"],
           unit="ms")
    if meter is not None:
        cpu = {name: 1000 * statistics.median(v) for name, v in cpus.items()}
        figure("one check: CPU above plain pytest (process start included)", cpu["reqbench"] - cpu["plain"],
               "plain pytest", cpu["plain"], unit="ms")
    if "baseline" in sides:
        figure("one check: wall above plain pytest, this tree vs the baseline", med["reqbench"] - med["plain"],
               "the baseline's", med["baseline"] - med["plain"], unit="ms")
        if meter is not None:
            figure("one check: CPU above plain pytest, this tree vs the baseline", cpu["reqbench"] - cpu["plain"],
                   "the baseline's", cpu["baseline"] - cpu["plain"], unit="ms")


if __name__ == "__main__":
    main()
