"""Run every benchmark module in this folder (``bench_*.py``), print its report, then a summary of every
figure as a ratio to the baseline measured beside it in the same run (`ratios.figure`).

    python benchmarks/run_all.py [--only NAME ...]
``REQBENCH_BENCH_QUICK=1`` asks the long benchmarks for their reduced size (`make bench-quick`).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import runpy
import sys
from pathlib import Path

here = Path(__file__).parent


class Tee(io.TextIOBase):
    """Passes the printed lines on, keeping the ``FIGURE|`` lines for the summary instead."""

    def __init__(self, out: io.TextIOBase, figures: list[list[str]]) -> None:
        self.out, self.figures, self.buffer_text = out, figures, ""

    def write(self, text: str) -> int:
        self.buffer_text += text
        lines = self.buffer_text.split("\n")
        self.buffer_text = lines.pop()
        for line in lines:
            if line.startswith("FIGURE|"):
                self.figures.append(line.split("|")[1:])
            else:
                self.out.write(line + "\n")
        self.out.flush()
        return len(text)


def main() -> None:
    """Every selected benchmark in turn, then the summary. (A function: a benchmark's processes started with
    ``spawn`` import this module as their main one, and must run nothing.)"""
    sys.path.insert(0, str(here))
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", nargs="*", default=[])
    args = parser.parse_args()
    mods = [m for m in sorted(here.glob("bench_*.py")) if not args.only or m.stem.removeprefix("bench_") in args.only]
    if not mods:
        print("no benchmarks selected")
    print(f"machine: {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    figures: list[list[str]] = []
    for mod in mods:
        print(f"== {mod.stem}", flush=True)
        sys.argv = [str(mod)]
        with contextlib.redirect_stdout(Tee(sys.stdout, figures)):  # type: ignore[type-var]
            try:
                runpy.run_path(str(mod), run_name="__main__")
            except Exception as exc:  # noqa: BLE001 - one failing benchmark must not hide the others
                print(f"{mod.stem} failed: {exc!r}")
    print("== summary: every figure as a ratio to its side-by-side baseline")
    width = max((len(f[0]) for f in figures), default=10)
    for name, ratio, baseline, goal in figures:
        print(f"{name:<{width}}  {float(ratio):>9.3g} x {baseline}" + (f"   goal {goal}" if goal else ""))


if __name__ == "__main__":
    main()
