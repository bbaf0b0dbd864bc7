"""Figures of `make bench` as ratios measured side by side in one run.

A shared 2-core machine makes absolute times noisy, so every figure is printed next to a baseline that was
measured in the same process, moments apart, on the same data (`figure`). When no natural baseline exists
(an absolute budget such as "index 100k lines in 10 s"), the baseline is `cpu_unit()`: a fixed pure-Python
workload timed in the same run, so the figure reads "N CPU units" and moves with the machine's load. Each
`figure` also prints one ``FIGURE|...`` line that `run_all.py` gathers into the closing summary.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from functools import cache


def _work() -> int:
    total = 0
    for i in range(2_000_000):
        total += i % 7
    return total


@cache
def cpu_unit() -> float:
    """Seconds of a fixed pure-Python loop on this machine now (median of 5)."""
    times = []
    for _ in range(5):
        start = time.perf_counter()
        _work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


@cache
def interpreter_start() -> float:
    """Seconds to start this interpreter and exit (median of 5): the floor of any subprocess step."""
    times = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def figure(name: str, value: float, baseline: str, base: float, goal: str = "", unit: str = "s") -> float:
    """Print `value` next to `base` and their ratio; returns the ratio."""
    ratio = value / base if base else float("inf")
    print(f"{name}: {value:.4g} {unit} vs {baseline} {base:.4g} {unit} -> ratio {ratio:.3g}"
          + (f" (goal {goal})" if goal else ""))
    print(f"FIGURE|{name}|{ratio:.4g}|{baseline}|{goal}")
    return ratio
