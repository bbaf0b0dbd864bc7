"""Start-up: `reqbench --version` and `reqbench --help` next to a bare interpreter start, alternated.

The command line imports only what it names (`reqbench.cli.main`): ``--version`` neither typer nor any
command, ``run`` only `run`'s own modules (the time from ``reqbench run`` to its first row is a figure of
``bench_floor.py``, which runs the whole command). Goal: ``--version`` under 0.3 s, i.e. a few interpreter
starts.

    python benchmarks/bench_startup.py [--runs 15]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from ratios import figure  # noqa: E402

COMMANDS = {
    "bare interpreter": [sys.executable, "-c", "pass"],
    "reqbench --version": [sys.executable, "-m", "reqbench", "--version"],
    "reqbench --help": [sys.executable, "-m", "reqbench", "--help"],
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for argv in COMMANDS.values():  # warm the page cache and byte code once
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    for _ in range(args.runs):
        for name, argv in COMMANDS.items():
            started = time.perf_counter()
            subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
            times[name].append(time.perf_counter() - started)
    ms = {name: 1000 * statistics.median(t) for name, t in times.items()}
    for name, value in ms.items():
        print(f"{name:20s} {value:8.1f} ms (median of {args.runs})")
    bare = ms["bare interpreter"]
    figure("start-up: reqbench --version", ms["reqbench --version"], "bare interpreter start", bare,
           "<= 300 ms", unit="ms")
    figure("start-up: reqbench --help (every command imported)", ms["reqbench --help"], "bare interpreter start",
           bare, unit="ms")


if __name__ == "__main__":
    main()
