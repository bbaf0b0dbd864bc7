"""Run every benchmark module in this folder (``bench_*.py``) and print its report."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

here = Path(__file__).parent
mods = sorted(here.glob("bench_*.py"))
if not mods:
    print("no benchmarks yet")
for mod in mods:
    print(f"== {mod.stem}")
    sys.argv = [str(mod)]
    runpy.run_path(str(mod), run_name="__main__")
